import Testing
import MotionCore

/// `motion` decided by the chip's engine: one event per episode of flagged samples, the software
/// detector's own `motion` withheld while the chip decides, and the software detector untouched
/// (it stays the fallback and the reference) when the chip engine is off.
@Suite("Chip motion gate")
struct ChipMotionGateTests {
    static let atRest = Vector3(0, 0, 9.81)
    static let shaken = Vector3(3, 0, 9.81)              // 3 m/s² off gravity: software "moves" too

    /// 10 Hz samples; `flagged(t)` says whether the chip flagged sample t (s); `force(t)` the input.
    func run(chip: Bool, seconds: Double, flagged: (Double) -> Bool, force: (Double) -> Vector3 = { _ in atRest }) -> [MotionEvent] {
        var c = MotionEventConfiguration()
        c.chipMotion = chip
        var d = MotionEventDetectors(configuration: c, sampleRate: 10)
        var events: [MotionEvent] = []
        for i in 0..<Int(seconds * 10) {
            let t = Double(i) / 10
            d.update(time: t, specificForce: force(t), rotationRate: nil, chipFlags: flagged(t) ? .chipMotion : []) { events.append($0) }
        }
        return events.filter { $0.type == .motion }
    }

    @Test func oneEpisodeOfFlagsIsOneChipMotionEventAtTheFirstFlag() {
        let events = run(chip: true, seconds: 10, flagged: { $0 >= 3 && $0 < 4 })
        #expect(events.count == 1)
        #expect(events.first?.fromChip == true)
        #expect(abs((events.first?.time ?? 0) - 3) < 1e-9)
    }

    @Test func flagsAfterTheStationaryTimeStartANewEpisode() {
        // Flags at 1 s and 1.5 s (one episode), then at 5 s: more than stationary_s (2 s) later.
        let events = run(chip: true, seconds: 8, flagged: { t in [1.0, 1.5, 5.0].contains { abs($0 - t) < 1e-6 } })
        #expect(events.map(\.time).map { ($0 * 10).rounded() / 10 } == [1.0, 5.0])
    }

    @Test func whileTheChipDecidesTheSoftwareMotionIsWithheld() {
        let events = run(chip: true, seconds: 6, flagged: { _ in false }, force: { $0 >= 2 && $0 < 3 ? Self.shaken : Self.atRest })
        #expect(events.isEmpty)
    }

    @Test func withTheChipOffFlagsAreIgnoredAndTheSoftwareDecides() {
        let events = run(chip: false, seconds: 6, flagged: { _ in true }, force: { $0 >= 2 && $0 < 3 ? Self.shaken : Self.atRest })
        #expect(events.count == 1)
        #expect(events.first?.fromChip == false)
    }
}
