import Testing
import Foundation
import MotionCore
@testable import Sensors

/// The MPU-6050's FIFO mode over a scripted chip below the `I2CAdapter` seam (i2c-stub has no FIFO
/// register semantics), and the burst timestamping on its own with a known chip clock.
@Suite("MPU-6050 FIFO (host)")
struct MPU6050FIFOHostTests {
    func samples(_ n: Int) -> UnsafeMutableBufferPointer<IMUSample> { FIFOHostTestSupport.samples(n) }

    func configuredDriver(_ chip: ScriptedMPU6050) throws -> (MPU6050, IMUChipConfiguration) {
        let bus = try I2CBus(number: 9, path: "scripted", adapter: chip)
        let driver = MPU6050(device: I2CDevice(bus: bus, address: 0x68))
        let config = try driver.configure(IMUChipSettings(rate: 200, accelRangeG: 2, gyroRangeDPS: 250))
        try driver.enableFIFO(dataReadyInterrupt: false)
        return (driver, config)
    }

    @Test func enablingTheFIFOResetsItThenSelectsAccelAndGyroAndTheOverflowInterrupt() throws {
        let chip = ScriptedMPU6050()
        chip.push(3)                                           // stale frames from before
        _ = try configuredDriver(chip)
        let s = chip.state.withLock { $0 }
        let fifoWrites = s.writes.filter { [0x23, 0x6A, 0x38].contains($0.register) }.suffix(5).map { [$0.register, $0.value] }
        #expect(fifoWrites == [[0x23, 0x00], [0x6A, 0x04], [0x23, 0x78], [0x6A, 0x40], [0x38, 0x10]])
        #expect(s.fifo.isEmpty)
    }

    @Test(arguments: [false, true])
    func burstsAreWholeFramesConvertedInOrderAndSMBusChunksStayWithin32BytesOnFIFO_R_W(plainI2C: Bool) throws {
        let chip = ScriptedMPU6050(plainI2C: plainI2C)
        let (driver, config) = try configuredDriver(chip)
        chip.push(7)
        chip.append([0xAA, 0xBB])                              // part of a frame still being written
        let status = try driver.fifoStatus()
        #expect(status == (false, 7))
        let out = samples(16)
        defer { out.deallocate() }
        try driver.readFIFO(frames: status.frames, into: out)
        for k in 0..<7 {
            #expect(out[k].specificForce == Vector3(Double(k), Double(-k), 16384) * config.accelScale)
            #expect(out[k].rotationRate == Vector3(Double(131 * k), 2, -3) * config.gyroScale)
            #expect(out[k].contents == .inertial)
        }
        let s = chip.state.withLock { $0 }
        #expect(s.fifo == [0xAA, 0xBB])                       // the partial frame stays for the next burst
        if plainI2C {
            #expect(s.fifoChunks == [84])                      // one I2C_RDWR transfer
        } else {
            #expect(s.fifoChunks == [32, 32, 20])             // every chunk re-reads FIFO_R_W
            #expect(s.largestSMBusBlock <= 32)
        }
    }

    @Test func anOverflowIsReportedAndAResetEmptiesTheFIFO() throws {
        let chip = ScriptedMPU6050()
        let (driver, _) = try configuredDriver(chip)
        chip.push(90)                                          // 1080 bytes into a 1024-byte FIFO
        let status = try driver.fifoStatus()
        #expect(status.overflowed)
        try driver.resetFIFO()
        #expect(chip.state.withLock { $0.fifo.isEmpty })
        #expect(try driver.fifoStatus() == (false, 0))      // INT_STATUS cleared by the read
    }

    @Test func theSourceHandsOutEveryFrameInOrderWithIncreasingTimesAndCountsAnOverflowAsAGap() throws {
        try FIFOHostTestSupport.expectBurstsInOrderAndOneOverflowCounted(chip: ScriptedMPU6050(), model: .mpu6050,
                                                                         requestedRate: 200, expectedRate: 200)
    }

    // MARK: Timestamping, with a known chip clock

    /// A chip whose clock runs `drift` off nominal, read on a jittery timer: returns the true sample
    /// times and, per burst, the wake time and the frames read.
    static func timeline(nominal: Double, drift: Double, wakeEvery: Double, jitter: Double, bursts: Int)
        -> (truth: [Double], bursts: [(wake: Double, frames: Int)]) {
        let period = nominal * (1 + drift)
        var rng = SimulatorRandom(seed: 42)
        var truth: [Double] = []
        var result: [(Double, Int)] = []
        var next = 0.37 * period                               // an arbitrary phase
        for b in 1...bursts {
            let wake = Double(b) * wakeEvery + (rng.uniform() - 0.5) * 2 * jitter
            var n = 0
            while next <= wake { truth.append(next); next += period; n += 1 }
            result.append((wake, n))
        }
        return (truth, result)
    }

    @Test func theMeasuredPeriodFollowsAChipClock2PercentSlowAndStampsLandWithinAPeriod() {
        let nominal = 5e6                                      // 200 Hz
        let (truth, bursts) = Self.timeline(nominal: nominal, drift: 0.02, wakeEvery: 50e6, jitter: 1e6, bursts: 60)
        var stamper = FIFOTimestamper(nominalPeriodNanos: nominal)
        var stamps: [Double] = []
        for b in bursts {
            let (first, spacing) = stamper.stamp(frames: b.frames, wakeNanos: UInt64(b.wake), wake: .timer)
            stamps += (0..<b.frames).map { Double(first) + Double($0) * spacing }
        }
        #expect(stamps.count == truth.count)
        #expect(abs(stamper.periodNanos / (nominal * 1.02) - 1) < 0.003, "period \(stamper.periodNanos) ns, truth \(nominal * 1.02) ns")
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
        // After the window filled (16 bursts), every stamp is within one period of the truth and
        // the mean error is under a quarter period (the newest frame is anchored half a period back).
        let settled = bursts.prefix(16).reduce(0) { $0 + $1.frames }
        let errors = zip(stamps, truth).dropFirst(settled).map { $0 - $1 }
        #expect(errors.allSatisfy { abs($0) < nominal * 1.02 }, "worst \(errors.map(abs).max() ?? 0) ns")
        let mean = errors.reduce(0, +) / Double(errors.count)
        #expect(abs(mean) < nominal / 4, "mean error \(mean) ns")
    }

    @Test func wokenByTheNewestFramesEdgeTheNewestStampIsExactAndOlderOnesFollowThePeriod() {
        let nominal = 10e6
        let period = nominal * 0.99                            // a fast chip
        var stamper = FIFOTimestamper(nominalPeriodNanos: nominal)
        var worst = 0.0
        for b in 0..<40 {
            let newest = Double(b * 8 + 7) * period + 1e9       // 8 frames per burst; wake = edge of the newest
            let (first, spacing) = stamper.stamp(frames: 8, wakeNanos: UInt64(newest), wake: .dataReadyEdge)
            #expect(UInt64((Double(first) + 7 * spacing).rounded()) == UInt64(newest))
            if b >= 16 {
                for i in 0..<8 { worst = max(worst, abs(Double(first) + Double(i) * spacing - (newest - Double(7 - i) * period))) }
            }
        }
        #expect(worst < 1000, "worst error \(worst) ns once the period is measured")
    }

    @Test func anUnbelievablePeriodIsIgnoredAndTheWindowRestarts() {
        var stamper = FIFOTimestamper(nominalPeriodNanos: 10e6)
        _ = stamper.stamp(frames: 10, wakeNanos: 1_000_000_000, wake: .timer)
        _ = stamper.stamp(frames: 10, wakeNanos: 1_100_000_000, wake: .timer)
        #expect(stamper.periodNanos == 10e6)
        _ = stamper.stamp(frames: 10, wakeNanos: 1_400_000_000, wake: .timer)   // 30 ms "per sample": a stall
        #expect(stamper.periodNanos == 10e6)
        _ = stamper.stamp(frames: 10, wakeNanos: 1_501_000_000, wake: .timer)
        #expect(abs(stamper.periodNanos - 10.1e6) < 1)      // measured from the stall on, not across it
    }
}
