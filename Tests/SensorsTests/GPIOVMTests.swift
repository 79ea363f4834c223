import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// Data-ready timing on a gpio-sim line, with the MPU-6050 map on i2c-stub as the chip.
    @Suite struct GPIO {
        @Test func theLineIsFoundByChipLabelOrByNameAloneNeverByAssumingGpiochip0() throws {
            let byLabel = try DataReadyLine(.init(chip: VMFixtures.gpioLabel, line: VMFixtures.gpioLine))
            #expect(byLabel.chipName == VMFixtures.gpioChip)
            #expect(byLabel.offset == 3)
            byLabel.close()
            let byName = try DataReadyLine(.init(chip: nil, line: VMFixtures.gpioLine))
            #expect(byName.chipLabel == VMFixtures.gpioLabel)
            byName.close()
            let byOffset = try DataReadyLine(.init(chip: VMFixtures.gpioChip, line: "3"))
            #expect(byOffset.lineName == VMFixtures.gpioLine)
            // Held lines are reported busy, naming the holder.
            let busy = #expect(throws: SensorError.self) { try DataReadyLine(.init(chip: VMFixtures.gpioChip, line: "3"), consumer: "second") }
            #expect(busy?.description.contains("held by 'edgemotion'") == true)
            byOffset.close()
            let missing = #expect(throws: SensorError.self) { try DataReadyLine(.init(chip: nil, line: "no-such-line")) }
            #expect(missing?.kind == .notFound)
            #expect(missing?.description.contains("\(VMFixtures.gpioChip) [\(VMFixtures.gpioLabel)]") == true)
        }

        @Test func aPulseTrainYieldsOneSamplePerEdgeStampedWithTheEdgeAndSkippedPulsesCountAsMissed() throws {
            // Warm-up: under TCG the first pass through these code paths pages them in over 9p,
            // which can take longer than a period and would look like a lost edge.
            try Self.pulseAndReadOnce()
            VMFixtures.pull(up: false)
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu6050,
                                      dataReady: .init(chip: VMFixtures.gpioLabel, line: VMFixtures.gpioLine))
            let config = try source.start(requestedRate: 5)
            defer { source.stop() }
            #expect(config.timing == .dataReadyInterrupt)
            #expect(config.rate == 5)
            let period: UInt64 = 200_000_000
            let skipped: Set<Int> = [4, 8, 9]
            let slots = 14
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            var samples: [IMUSample] = []
            var errors: [Double] = []      // edge timestamp − start of the pull write, ms
            var edgeTimes: [UInt64] = []
            var windows: [Double] = []     // duration of the pull write, ms
            let t0 = MonotonicClock.nowNanos() + 50_000_000
            for k in 0..<slots {
                let due = t0 + UInt64(k) * period
                while MonotonicClock.nowNanos() < due { usleep(500) }
                if skipped.contains(k) { continue }
                let before = MonotonicClock.nowNanos()
                VMFixtures.pull(up: true)
                let after = MonotonicClock.nowNanos()
                VMFixtures.pull(up: false)
                let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
                #expect(r == .samples(1), "slot \(k)")
                guard r == .samples(1) else { continue }
                let s = buf[0]
                samples.append(s)
                edgeTimes.append(s.timestampNanos)
                #expect(s.flags.contains(.hardwareTimestamp))
                #expect(s.timestampNanos >= before, "slot \(k): edge stamped before the line was driven")
                #expect(s.timestampNanos <= after + 5_000_000, "slot \(k): edge stamped \(Double(s.timestampNanos - after) / 1e6) ms after the write returned")
                errors.append(Double(Int64(bitPattern: s.timestampNanos &- before)) / 1e6)
                windows.append(Double(after - before) / 1e6)
            }
            // Nothing else is pending: a read now times out.
            let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .milliseconds(150)) }
            #expect(r == .timeout)
            #expect(samples.count == slots - skipped.count)
            #expect(source.missedSamples == UInt64(skipped.count))
            // Sequence numbers leave a gap exactly where pulses were skipped.
            #expect(samples.map(\.sequence) == (0..<slots).filter { !skipped.contains($0) }.map(UInt64.init),
                    "edge intervals (ms): \(zip(edgeTimes, edgeTimes.dropFirst()).map { Double($1 - $0) / 1e6 })")
            #expect(samples.filter { $0.flags.contains(.discontinuity) }.count == 2)
            #expect(abs(samples[0].specificForce.z) > 0)
            let sorted = errors.sorted()
            print("gpio edge timestamp − pull write start: min \(sorted.first!) ms, median \(sorted[sorted.count / 2]) ms, max \(sorted.last!) ms; write window max \(windows.max()!) ms; n=\(sorted.count)")
        }

        static func pulseAndReadOnce() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu6050,
                                      dataReady: .init(chip: VMFixtures.gpioLabel, line: VMFixtures.gpioLine))
            _ = try source.start(requestedRate: 5)
            defer { source.stop() }
            VMFixtures.pull(up: true)
            VMFixtures.pull(up: false)
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            _ = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
        }

        @Test func edgesQueuedBeforeAReadCoalesceIntoOneSampleAndCountAsMissed() throws {
            VMFixtures.pull(up: false)
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu6050,
                                      dataReady: .init(chip: nil, line: VMFixtures.gpioLine))
            _ = try source.start(requestedRate: 10)
            defer { source.stop() }
            var stamps: [UInt64] = []
            for _ in 0..<3 {
                VMFixtures.pull(up: true)
                stamps.append(MonotonicClock.nowNanos())
                VMFixtures.pull(up: false)
                usleep(2_000)
            }
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
            #expect(r == .samples(1))
            #expect(source.missedSamples == 2)
            #expect(buf[0].sequence == 2)
            #expect(buf[0].flags.contains(.discontinuity))
            #expect(buf[0].timestampNanos > stamps[1])          // the newest edge's time
        }
    }
}
