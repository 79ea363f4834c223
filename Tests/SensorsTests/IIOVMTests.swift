import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// The kernel's bmi160 driver on i2c-stub at 0x69, read through libiio's local backend.
    @Suite struct IIO {
        /// Stub register values (hardware/register-maps/bmi160-stub.regs) and the driver's scales at
        /// ±2 g and ±2000 °/s.
        static let accelScale = 0.000598
        static let gyroScale = 0.001065

        static func resetStubData() throws {
            try VMFixtures.poke(0x69, 0x0C, [0x10, 0x00, 0x20, 0x00, 0x30, 0x00, 0x00, 0x01, 0x00, 0x02, 0x00, 0x40])
        }

        static func sysfsTriggerPath(named name: String) -> String? {
            let base = "/sys/bus/iio/devices"
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] where entry.hasPrefix("trigger") {
                if (try? String(contentsOfFile: "\(base)/\(entry)/name", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == name {
                    return "\(base)/\(entry)/trigger_now"
                }
            }
            return nil
        }

        @Test func theDeviceIsFoundByNameOrIndexWithItsRates() throws {
            let byName = IIOSource(device: "bmi160").capabilities
            #expect(byName.name == "iio:bmi160")
            #expect(byName.sensors == .inertial)
            #expect(byName.supportedRates.contains(100) && byName.supportedRates.contains(200))
            let index = VMFixtures.iioDevice.replacingOccurrences(of: "iio:device", with: "")
            #expect(IIOSource(device: index).capabilities.name == "iio:bmi160")
            #expect(IIOSource(device: nil).capabilities.name == "iio:bmi160")      // first with an accelerometer
            let missing = IIOSource(device: "no-such-imu")
            let error = #expect(throws: SensorError.self) { try missing.start(requestedRate: 100) }
            #expect(error?.kind == .notFound)
            #expect(error?.description.contains("bmi160 (\(VMFixtures.iioDevice))") == true)
        }

        @Test func bufferedAt200HzOnACreatedHrtimerGivesScaledSamplesAndMonotonicTimestampsSpacedByThePeriod() throws {
            try Self.resetStubData()
            let source = IIOSource(device: "bmi160", trigger: "hrtimer", useBuffer: true, bufferLength: 4)
            let started = MonotonicClock.nowNanos()
            let config = try source.start(requestedRate: 200)
            defer { source.stop() }
            #expect(FileManager.default.fileExists(atPath: "/sys/kernel/config/iio/triggers/hrtimer/edgemotion"))
            #expect(config.rate == 200)
            #expect(config.timing == .bufferTimestamp)
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 8)
            var samples: [IMUSample] = []
            var changedAt: UInt64 = 0
            while samples.count < 160 {
                let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(2)) }
                guard case .samples(let n) = r else { Issue.record("timed out after \(samples.count) samples"); break }
                samples += buf[0..<n]
                if changedAt == 0, samples.count >= 80 {
                    try VMFixtures.poke(0x69, 0x12, VMFixtures.littleEndian(-512))      // accel x while running
                    changedAt = MonotonicClock.nowNanos()
                }
            }
            let first = samples[0]
            #expect(abs(first.specificForce.x - 256 * Self.accelScale) < 1e-9)
            #expect(abs(first.specificForce.y - 512 * Self.accelScale) < 1e-9)
            #expect(abs(first.specificForce.z - 16384 * Self.accelScale) < 1e-9)
            #expect(abs(first.rotationRate.x - 16 * Self.gyroScale) < 1e-9)
            #expect(abs(first.rotationRate.z - 48 * Self.gyroScale) < 1e-9)
            #expect(first.flags.contains(.hardwareTimestamp))
            // Values written into the stub's registers while running show up, scaled.
            let after = samples.filter { $0.timestampNanos > changedAt + 20_000_000 }
            #expect(!after.isEmpty)
            #expect(after.allSatisfy { abs($0.specificForce.x + 512 * Self.accelScale) < 1e-9 })
            // Kernel timestamps: CLOCK_MONOTONIC (between start and now), strictly increasing, ~5 ms apart.
            let stamps = samples.map(\.timestampNanos)
            #expect(stamps.first! >= started && stamps.last! <= MonotonicClock.nowNanos())
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
            let deltas = zip(stamps, stamps.dropFirst()).map { Double($1 - $0) / 1e6 }.sorted()
            let mean = Double(stamps.last! - stamps.first!) / Double(stamps.count - 1) / 1e6
            let median = deltas[deltas.count / 2]
            print("iio hrtimer 200 Hz: \(samples.count) samples, mean period \(mean) ms, median \(median) ms, min \(deltas.first!) ms, max \(deltas.last!) ms, missed \(source.missedSamples)")
            // Under TCG on a loaded host the guest's hrtimer runs late at times (seen: max gap 95 ms at
            // load 9 on 2 cores), so the typical spacing is checked, and the mean only reported.
            #expect(abs(median - 5) < 1.5)
            #expect(samples.last!.sequence == UInt64(samples.count - 1) + source.missedSamples)
        }

        @Test func aSysfsTriggerGivesExactlyOneSamplePerTriggerStampedWhenTriggered() throws {
            try Self.resetStubData()
            guard let triggerNow = Self.sysfsTriggerPath(named: VMFixtures.sysfsTrigger) else {
                Issue.record("no \(VMFixtures.sysfsTrigger) trigger"); return
            }
            let source = IIOSource(device: "bmi160", trigger: VMFixtures.sysfsTrigger, useBuffer: true, bufferLength: 1)
            let config = try source.start(requestedRate: 100)
            defer { source.stop() }
            #expect(config.timing == .bufferTimestamp)
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 4)
            for k in 1...5 {
                try VMFixtures.poke(0x69, 0x16, VMFixtures.littleEndian(Int16(1000 * k)))     // accel z
                let before = MonotonicClock.nowNanos()
                try "1".write(toFile: triggerNow, atomically: false, encoding: .utf8)
                let after = MonotonicClock.nowNanos()
                let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(2)) }
                #expect(r == .samples(1))
                #expect(abs(buf[0].specificForce.z - Double(1000 * k) * Self.accelScale) < 1e-9)
                #expect(buf[0].timestampNanos >= before && buf[0].timestampNanos <= after, "trigger \(k)")
                #expect(buf[0].sequence == UInt64(k - 1))
            }
            let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .milliseconds(200)) }
            #expect(r == .timeout)
        }

        @Test func withoutATriggerTheRawAttributesArePolledOnATimer() throws {
            try Self.resetStubData()
            let source = IIOSource(device: "bmi160", trigger: "none")
            let config = try source.start(requestedRate: 50)
            defer { source.stop() }
            #expect(config.timing == .timer)
            #expect(config.rate == 50)
            // bmi160 exposes a shared in_mount_matrix (identity on this ACPI-less stub).
            #expect(source.mountMatrices["accel"] == .identity)
            #expect(source.mountMatrices["anglvel"] == .identity)
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            var stamps: [UInt64] = []
            for _ in 0..<10 {
                _ = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(1)) }
                stamps.append(buf[0].timestampNanos)
            }
            #expect(abs(buf[0].specificForce.z - 16384 * Self.accelScale) < 1e-9)
            #expect(abs(buf[0].rotationRate.y - 32 * Self.gyroScale) < 1e-9)
            #expect(!buf[0].flags.contains(.hardwareTimestamp))
            let mean = Double(stamps.last! - stamps.first!) / 9 / 1e6
            print("iio polled 50 Hz: mean period \(mean) ms")
            #expect(abs(mean - 20) < 6)
        }

        @Test func theOwnTriggerOfADeviceWithoutAnIRQSaysToUseHrtimer() throws {
            let source = IIOSource(device: "bmi160", trigger: "own")
            let error = #expect(throws: SensorError.self) { try source.start(requestedRate: 100) }
            #expect(error?.kind == .unsupported)
            #expect(error?.description.contains("hrtimer") == true)
        }
    }
}
