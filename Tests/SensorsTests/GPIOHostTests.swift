import Testing
@testable import Sensors

@Suite("GPIO data-ready accounting (host)")
struct GPIOHostTests {
    @Test func regularEdgesLoseNothing() {
        var d = EdgeGapDetector(periodNanos: 10_000_000)
        for k in 0..<5 { #expect(d.register(count: 1, firstNanos: 1_000 + UInt64(k) * 10_000_000, lastNanos: 1_000 + UInt64(k) * 10_000_000) == 0) }
        #expect(d.missed == 0)
        #expect(d.edges == 5)
    }

    @Test func aGapOfTwoPeriodsIsOneMissedEdgeAndJitterIsNot() {
        var d = EdgeGapDetector(periodNanos: 10_000_000)
        _ = d.register(count: 1, firstNanos: 100_000_000, lastNanos: 100_000_000)
        #expect(d.register(count: 1, firstNanos: 114_000_000, lastNanos: 114_000_000) == 0)   // 1.4 periods: late, not lost
        #expect(d.register(count: 1, firstNanos: 134_000_000, lastNanos: 134_000_000) == 1)   // 2 periods
        #expect(d.register(count: 1, firstNanos: 174_000_000, lastNanos: 174_000_000) == 3)   // 4 periods
        #expect(d.missed == 4)
    }

    @Test func queuedEdgesReadTogetherCountAllButTheNewest() {
        var d = EdgeGapDetector(periodNanos: 10_000_000)
        _ = d.register(count: 1, firstNanos: 100_000_000, lastNanos: 100_000_000)
        #expect(d.register(count: 3, firstNanos: 110_000_000, lastNanos: 130_000_000) == 2)
        #expect(d.lastNanos == 130_000_000)
    }

    @Test func withoutAnyGPIOChipTheErrorListsWhatExists() {
        // On the host there are usually no chips; on a board, a bogus label still fails clearly.
        let error = #expect(throws: SensorError.self) { try DataReadyLine(.init(chip: "no-such-chip-label", line: "1")) }
        #expect(error?.kind == .notFound)
        #expect(error?.description.contains("gpio no-such-chip-label:1") == true)
    }
}
