import Testing
import MotionCore

/// `free_fall`, `tap` and `double_tap` decided by the chip's engines (`IMUSample.Flags.chipFreeFall`,
/// `.chipTap`, `.chipDoubleTap`): the same event types as the software detectors, marked
/// `fromChip`, the software detectors' own withheld while the chip decides and untouched (the
/// fallback and the reference) when it does not.
@Suite("Chip free-fall and tap gates")
struct ChipFreeFallTapGateTests {
    static let atRest = Vector3(0, 0, 9.81)

    /// `rate` Hz samples for `seconds`; `flags(i)` the chip flags of sample i (t = i / rate s).
    func run(freeFall: Bool = false, tap: Bool = false, seconds: Double, rate: Int = 100, flags: (Int) -> IMUSample.Flags = { _ in [] },
             force: (Int) -> Vector3 = { _ in atRest }) -> [MotionEvent] {
        var c = MotionEventConfiguration()
        c.chipFreeFall = freeFall
        c.chipTap = tap
        var d = MotionEventDetectors(configuration: c, sampleRate: Double(rate))
        var events: [MotionEvent] = []
        for i in 0..<(Int(seconds) * rate) {
            d.update(time: Double(i) / Double(rate), specificForce: force(i), rotationRate: nil, chipFlags: flags(i)) { events.append($0) }
        }
        return events
    }

    @Test func aRunOfFreeFallFlagsIsOneFreeFallEventWhenItEndsWithTheFallsLength() throws {
        // Flags on samples 100…129 (t = 1.00…1.29 s); free_fall_min_s 0.2 (the default): the fall
        // began 0.2 s before the first flag, at 0.80 s, and lasted to 1.29 s: 0.49 s; sent at the
        // first unflagged sample, 1.30 s. Drop height g t²/2 = 9.80665 × 0.2401 / 2 = 1.1773 m.
        let events = run(freeFall: true, seconds: 3, flags: { (100..<130).contains($0) ? .chipFreeFall : [] }).filter { $0.type == .freeFall }
        #expect(events.count == 1)
        let e = try #require(events.first)
        #expect(e.fromChip)
        #expect(abs(e.time - 1.30) < 1e-9 && abs(e.onset - 0.80) < 1e-9)
        #expect(abs(e.duration - 0.49) < 1e-9)
        #expect(abs(e.dropHeight - 1.1773) < 1e-4, "\(e.dropHeight)")
    }

    @Test func withoutTheChipTheFlagsAreIgnored() {
        let events = run(seconds: 3, flags: { (100..<130).contains($0) ? .chipFreeFall : [] })
        #expect(!events.contains { $0.type == .freeFall })
    }

    /// A real fall for 0.5 s (specific force 0) with no chip flag.
    static func falling(_ i: Int) -> Vector3 { (100..<150).contains(i) ? .zero : atRest }

    @Test func whileTheChipDecidesFreeFallTheSoftwareDetectorsIsWithheldAndOtherwiseItIsTheReference() {
        #expect(run(freeFall: false, seconds: 3, force: Self.falling).filter { $0.type == .freeFall && !$0.fromChip }.count == 1)
        #expect(!run(freeFall: true, seconds: 3, force: Self.falling).contains { $0.type == .freeFall })
    }

    @Test func eachTapFlagIsOneChipEventOfItsType() {
        let flags: (Int) -> IMUSample.Flags = { i in
            switch i {
            case 200: .chipTap
            case 230: .chipDoubleTap
            case 400: [.chipTap, .chipDoubleTap]
            default: []
            }
        }
        let events = run(tap: true, seconds: 5, flags: flags).filter { $0.type == .tap || $0.type == .doubleTap }
        #expect(events.map(\.type) == [.tap, .doubleTap, .tap, .doubleTap])
        #expect(events.map { ($0.time * 100).rounded() } == [200, 230, 400, 400])
        #expect(events.allSatisfy { $0.fromChip })
        #expect(!run(seconds: 5, flags: flags).contains { $0.type == .tap || $0.type == .doubleTap })
    }

    /// A tap at 1 s, sampled at 1 kHz: the struck board rings at 300 Hz, 4 g, decaying with a
    /// 20 ms time constant (the tap detector's own test signal, `TapTests.tap`), for 0.3 s.
    static func knocked(_ i: Int) -> Vector3 {
        guard (1000..<1300).contains(i) else { return atRest }
        let t = Double(i - 1000) / 1000
        return Vector3(0, 0, 9.81 + 4 * 9.80665 * (2 * .pi * 300 * t).sin * (-t / 0.02).exp)
    }

    @Test func whileTheChipDecidesTapsTheSoftwareTapsAreWithheldAndOtherwiseTheyAreTheReference() {
        #expect(run(tap: false, seconds: 3, rate: 1000, force: Self.knocked).filter { $0.type == .tap && !$0.fromChip }.count == 1)
        #expect(!run(tap: true, seconds: 3, rate: 1000, force: Self.knocked).contains { $0.type == .tap || $0.type == .doubleTap })
    }
}
