import Foundation
import Testing
import TestSupport
@testable import Messaging

private func parse(_ w: JSONWriter) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(w.buffer), options: [.fragmentsAllowed])
}

private func text(_ w: JSONWriter) -> String { String(decoding: w.buffer, as: UTF8.self) }

@Suite struct JSONWriterTests {
    @Test func writesNestedStructureWithCommasInTheRightPlaces() throws {
        var w = JSONWriter(capacity: 256)
        w.beginObject()
        w.field("seq", UInt64(42))
        w.field("name", "board-7")
        w.key("ok"); w.value(true)
        w.key("none"); w.null()
        w.key("ax"); w.beginArray(); w.value(1.5); w.value(-0.25); w.value(3); w.endArray()
        w.key("nested"); w.beginObject(); w.key("empty"); w.beginArray(); w.endArray(); w.endObject()
        w.endObject()
        #expect(text(w) == #"{"seq":42,"name":"board-7","ok":true,"none":null,"ax":[1.5,-0.25,3],"nested":{"empty":[]}}"#)
        #expect(w.depth == 0)
        let obj = try #require(try parse(w) as? [String: Any])
        #expect(obj["seq"] as? Int == 42)
        #expect((obj["ax"] as? [Double]) == [1.5, -0.25, 3])
    }

    @Test func resetKeepsCapacityAndStartsFresh() {
        var w = JSONWriter(capacity: 1024)
        let capacity = w.capacity
        w.beginArray(); w.value(1); w.endArray()
        w.reset()
        w.beginArray(); w.value(2); w.endArray()
        #expect(text(w) == "[2]")
        #expect(w.capacity == capacity)
    }

    @Test(arguments: [
        (0.0, 6, "0"), (1.0, 6, "1"), (-1.0, 6, "-1"), (0.1, 3, "0.1"), (0.125, 2, "0.13"),
        (-0.125, 2, "-0.13"), (9.80665, 6, "9.80665"), (123.456789, 3, "123.457"),
        (-2.5e-7, 6, "0"), (1e-6, 6, "0.000001"), (0.000_010_5, 6, "0.000011"), (42.0, 0, "42"),
        (1234567.891, 9, "1234567.891"),
    ])
    func doublesUseFixedFractionDigitsWithTrailingZerosTrimmed(_ v: Double, _ digits: Int, _ expected: String) {
        var w = JSONWriter()
        w.value(v, fractionDigits: digits)
        #expect(text(w) == expected)
    }

    @Test func cursorAndFragmentsWriteTheSameBytesAsTheWritersOwnMethods() throws {
        let doubles: [Double] = [0, -0.0, 1, -1, 0.1, 0.125, -0.125, 9.80665, 123.456789, -2.5e-7, 1e-6, 42,
                                 1234567.891, 99.999_999_96, .nan, .infinity, -.infinity, 1e13, -9.87654321e20,
                                 1.7976931348623157e308, 123456789012345678.0, 5e300]
        let ints: [Int64] = [0, 7, -7, 10, 99, 100, -1001, .max, .min + 1]
        for digits in [0, 2, 3, 6, 7, 9] {
            var a = JSONWriter(capacity: 16)
            a.beginObject()
            a.key("n"); a.beginArray(); for d in doubles { a.value(d, fractionDigits: digits) }; a.endArray()
            a.key("i"); a.beginArray(); for i in ints { a.value(i) }; a.endArray()
            a.key("o"); a.beginArray(); a.beginObject(); a.key("k"); a.value(true); a.endObject(); a.endArray()
            a.endObject()

            var b = JSONWriter(capacity: 16)  // small: the cursor must grow the buffer itself
            b.beginObject()
            b.fragment("\"n\":[", depthChange: 1)
            b.withCursor(reserving: doubles.count * JSONCursor.maximumNumberLength) { c in
                for d in doubles { c.value(d, fractionDigits: digits) }
            }
            b.fragment("],\"i\":[")
            b.withCursor(reserving: ints.count * JSONCursor.maximumNumberLength) { c in
                for i in ints { c.value(i) }
                c.fragment("],\"o\":[")
                c.beginObject()
                c.fragment("\"k\":true}", endsWithValue: true, depthChange: -1)
            }
            b.endArray()
            b.endObject()
            #expect(text(b) == text(a), "\(digits) digits")
            #expect(b.depth == 0)
            _ = try parse(b)
        }
    }

    @Test func nonFiniteDoublesBecomeNull() throws {
        var w = JSONWriter()
        w.beginArray(); w.value(Double.nan); w.value(Double.infinity); w.value(-Double.infinity); w.value(Float.nan); w.endArray()
        #expect(text(w) == "[null,null,null,null]")
        let arr = try #require(try parse(w) as? [Any])
        #expect(arr.allSatisfy { $0 is NSNull })
    }

    @Test func hugeMagnitudesUseAnExponentAndRoundTrip() throws {
        for v in [1e13, -9.87654321e20, 1.7976931348623157e308, 123456789012345678.0, 5e300] {
            var w = JSONWriter()
            w.beginArray(); w.value(v); w.endArray()
            let parsed = try #require((try parse(w) as? [NSNumber])?.first?.doubleValue, "\(text(w))")
            #expect(abs(parsed - v) <= abs(v) * 1e-15, "\(v) → \(text(w)) → \(parsed)")
        }
    }

    @Test func integersCoverTheirFullRange() throws {
        var w = JSONWriter()
        w.beginArray()
        w.value(Int64.min); w.value(Int64.max); w.value(UInt64.max); w.value(0); w.value(-7)
        w.endArray()
        #expect(text(w) == "[-9223372036854775808,9223372036854775807,18446744073709551615,0,-7]")
    }

    @Test func stringsAreEscapedSoAnyContentParsesBack() throws {
        let nasty = "quote\" backslash\\ newline\n tab\t cr\r bell\u{07} nul\u{0} del\u{7F} ünïcödé 🚀 </script>"
        var w = JSONWriter()
        w.beginObject(); w.field("s", nasty); w.endObject()
        let obj = try #require(try parse(w) as? [String: String])
        #expect(obj["s"] == nasty)
        #expect(!w.buffer.contains(0x0A), "raw newline must be escaped")
    }

    @Test func manyRandomDocumentsParseAndNumbersRoundTripWithinPrecision() throws {
        // Seeded so a failure reproduces: the seed is in every failure message.
        let seed = SplitMix64.seed(default: 0x1500_2026)
        var rng = SplitMix64(state: seed)
        var w = JSONWriter(capacity: 16384)
        for round in 0..<300 {
            w.reset()
            let digits = Int.random(in: 0...9, using: &rng)
            var doubles: [Double] = []
            var ints: [Int64] = []
            for _ in 0..<Int.random(in: 0...40, using: &rng) {
                let scale = pow(10.0, Double.random(in: -8...12, using: &rng))
                doubles.append(Double.random(in: -1...1, using: &rng) * scale)
                ints.append(Int64.random(in: Int64.min...Int64.max, using: &rng))
            }
            let label = String((0..<Int.random(in: 0...12, using: &rng)).map { _ in
                Character(Unicode.Scalar(UInt8.random(in: 0...127, using: &rng)))
            })
            w.beginObject()
            w.field("round", round)
            w.field("label", label)
            w.key("d"); w.beginArray(); for d in doubles { w.value(d, fractionDigits: digits) }; w.endArray()
            w.key("i"); w.beginArray(); for i in ints { w.value(i) }; w.endArray()
            w.endObject()

            let context = "seed \(seed) (EDGEMOTION_TEST_SEED), round \(round)"
            let obj = try #require(try parse(w) as? [String: Any], "\(context): \(text(w))")
            #expect(obj["label"] as? String == label, "\(context)")
            let parsedD = try #require(obj["d"] as? [NSNumber], "\(context)")
            #expect(parsedD.count == doubles.count, "\(context)")
            let tolerance = 0.5 * pow(10.0, -Double(digits))
            for (p, d) in zip(parsedD, doubles) {
                let err = abs(p.doubleValue - d)
                #expect(err <= max(tolerance * 1.000001, abs(d) * 1e-15) + 4 * d.ulp, "\(context): \(d) with \(digits) digits → \(p) (err \(err))")
            }
            let parsedI = try #require(obj["i"] as? [NSNumber], "\(context)")
            #expect(parsedI.map(\.int64Value) == ints, "\(context)")
        }
    }
}
