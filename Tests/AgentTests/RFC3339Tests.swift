import Testing
@testable import Agent
import Platform

/// The date-times of history and recording queries: strict RFC 3339 in, UTC milliseconds out.
@Suite("RFC 3339 date-times")
struct RFC3339Tests {
    @Test(arguments: [
        ("2025-11-30T00:00:00Z", 1_764_460_800.0),
        ("2025-11-30T00:00:00.250Z", 1_764_460_800.25),
        ("2025-11-30t00:00:00z", 1_764_460_800.0),
        ("2025-11-30 01:00:00+01:00", 1_764_460_800.0),
        ("2025-11-29T19:30:00-04:30", 1_764_460_800.0),
        ("2024-02-29T12:00:00Z", 1_709_208_000.0),
    ])
    func validDateTimesParseToUnixSeconds(text: String, seconds: Double) {
        #expect(RFC3339.parse(text) == seconds)
    }

    // The fraction is rounded once, from its whole nanoseconds: 0.3 s after the epoch is the
    // Double nearest 0.3 (the literal `0.3`, 0.29999999999999998890), not 3 × 0.1 accumulated
    // (0.30000000000000004441, one ulp above, which the Double-summing parser returned); 0.7 s is
    // the literal `0.7` (0.69999999999999995559), where 7 × 0.1 gives 0.70000000000000006661.
    // Digits past the ninth are dropped, as by `parseNanos`: .1234567899 reads as 0.123456789.
    @Test func theFractionIsTheDoubleNearestItsNanoseconds() {
        #expect(RFC3339.parse("1970-01-01T00:00:00.3Z") == 0.3)
        #expect(RFC3339.parse("1970-01-01T00:00:00.7Z") == 0.7)
        #expect(RFC3339.parse("1970-01-01T00:00:00.1234567899Z") == 0.123456789)
    }

    @Test(arguments: ["2025-11-30", "2025-11-30T00:00:00", "2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z",
                      "2025-11-30T24:00:00Z", "2025-11-30T00:00:00.Z", "2025-11-30T00:00:00Z trailing", "noon", "",
                      "2025-11-30T00:00:00+1:00", "２０２５-11-30T00:00:00Z"])
    func anythingElseIsRefused(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test func formattingIsUTCWithMillisecondsAndRoundTrips() {
        #expect(RFC3339.format(1_764_460_800.25) == "2025-11-30T00:00:00.250Z")
        #expect(RFC3339.format(-0.5) == "1969-12-31T23:59:59.500Z")
        for t in [0.0, 1_764_460_800.125, 4_102_444_799.999] {
            #expect(RFC3339.parse(RFC3339.format(t)) == t)
        }
    }

    @Test func fixedPointNumbersMatchPrintf() {
        #expect(FixedPoint.string(270.5, digits: 1) == "270.5")
        #expect(FixedPoint.string(2.0 / 3, digits: 2) == "0.67")
        #expect(FixedPoint.string(-0.04, digits: 1) == "-0.0")
        #expect(FixedPoint.string(12, digits: 0) == "12")
    }
}
