import Testing
@testable import Sensors

/// The timer pacing shared by the polled IIO and I2C sources. Ticks written by hand: period
/// 100 ns, next tick at 1000.
@Suite struct TickSleeperTests {
    @Test("a wake-up within one period loses nothing and moves to the following tick")
    func onTime() {
        var tick: UInt64 = 1000
        #expect(TickSleeper.advance(&tick, period: 100, woke: 1050) == 0)
        #expect(tick == 1100)
        #expect(TickSleeper.advance(&tick, period: 100, woke: 1200) == 0)   // exactly one period late
        #expect(tick == 1200)
    }

    @Test("a wake-up 3.5 periods late skips the 3 whole periods it overran")
    func late() {
        var tick: UInt64 = 1000
        #expect(TickSleeper.advance(&tick, period: 100, woke: 1350) == 3)   // ticks 1000…1300 due; 1000,1100,1200 lost
        #expect(tick == 1400)
    }
}
