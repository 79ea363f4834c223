import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// The kernel's st_lsm6dsx driver on i2c-stub at 0x1e (hardware/register-maps/lsm6dsox-iio-stub.regs):
    /// one LSM6DSOX registered as two IIO devices, `lsm6dsox_accel` and `lsm6dsox_gyro`, without an
    /// IRQ and so without buffers (polled `_raw`). `IIOSource` combines them into one IMU.
    @Suite struct IIOLSM6DSx {
        static let address: UInt16 = 0x1e
        static let client = "\(VMFixtures.i2cBus)-001e"
        static let driver = "/sys/bus/i2c/drivers/st_lsm6dsx_i2c"
        /// The driver's scales at its default full scales: ±2 g (61 µg/LSB → m/s²) and ±250 °/s
        /// (8.75 m°/s per LSB → rad/s), as IIO_VAL_INT_PLUS_NANO.
        static let accelScale = 0.000598205
        static let gyroScale = 0.000152716

        /// OUTX_L_G … OUTZ_H_XL (0x22…0x2D, little-endian): gyro then accel.
        static func setOutputs(gyro: (Int16, Int16, Int16), accel: (Int16, Int16, Int16)) throws {
            let le = VMFixtures.littleEndian
            try VMFixtures.poke(address, 0x22, le(gyro.0) + le(gyro.1) + le(gyro.2) + le(accel.0) + le(accel.1) + le(accel.2))
        }

        static func read(_ source: IIOSource, count: Int) throws -> [IMUSample] {
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 1)
            var out: [IMUSample] = []
            while out.count < count {
                let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(2)) }
                if case .samples(let n) = r { out += buf[0..<n] }
            }
            return out
        }

        static func expect(_ s: IMUSample, gyro g: (Double, Double, Double), accel a: (Double, Double, Double),
                           sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(s.contents.isSuperset(of: [.accelerometer, .gyroscope]), sourceLocation: sourceLocation)
            let want = [a.0 * accelScale, a.1 * accelScale, a.2 * accelScale, g.0 * gyroScale, g.1 * gyroScale, g.2 * gyroScale]
            let got = [s.specificForce.x, s.specificForce.y, s.specificForce.z, s.rotationRate.x, s.rotationRate.y, s.rotationRate.z]
            #expect(zip(want, got).allSatisfy { abs($0 - $1) < 1e-9 }, "got \(got), want \(want)", sourceLocation: sourceLocation)
        }

        @Test func theKernelDriverProbedTheStubAsTwoIIODevicesOfOneI2CClient() throws {
            let devices = try IIODeviceInfo.list()
            let accel = try #require(devices.first { $0.name == "lsm6dsox_accel" })
            let gyro = try #require(devices.first { $0.name == "lsm6dsox_gyro" })
            #expect(accel.parent != nil && accel.parent == gyro.parent)
            #expect(accel.parent?.hasSuffix("/" + Self.client) == true)
            // Without an IRQ the driver has no hardware-FIFO buffer but gives each device a triggered
            // buffer for software triggers (hrtimer).
            #expect(accel.bufferCapable && gyro.bufferCapable)
            #expect(FileManager.default.fileExists(atPath: "/sys/bus/iio/devices/\(accel.id)/trigger/current_trigger"))
            #expect(Set(accel.channels.map(\.id)).isSuperset(of: ["accel_x", "accel_y", "accel_z"]))
            #expect(Set(gyro.channels.map(\.id)).isSuperset(of: ["anglvel_x", "anglvel_y", "anglvel_z"]))
            #expect(accel.availableFrequencies.contains(104))
            // The driver's probe wrote the chip: CTRL3_C (0x12) holds its BOOT (0x80, trimming reload
            // after the software reset) and BDU (0x40) bits (i2c-stub keeps what is written).
            let bus = try I2CBus(number: VMFixtures.i2cBus, preferSMBus: true)
            let ctrl3 = try bus.readByte(address: Self.address, register: I2CRegister(0x12, "CTRL3_C"), force: true)
            print("lsm6dsox stub CTRL3_C after probe: 0x\(String(ctrl3, radix: 16))")
            #expect(ctrl3 & 0xC0 == 0xC0)
        }

        @Test func namingTheAccelDeviceAlsoReadsItsGyroSiblingScaledIntoTheSameSamples() throws {
            try Self.setOutputs(gyro: (1000, -1000, 50), accel: (100, -200, 16384))
            let source = IIOSource(device: "lsm6dsox_accel", trigger: "none")
            let started = MonotonicClock.nowNanos()
            let config = try source.start(requestedRate: 400)
            defer { source.stop() }
            #expect(source.memberIDs.count == 2)
            #expect(config.timing == .timer)
            #expect(config.rate == 416)
            #expect(source.capabilities.sensors.isSuperset(of: [.accelerometer, .gyroscope]))
            let first = try Self.read(source, count: 3)
            for s in first { Self.expect(s, gyro: (1000, -1000, 50), accel: (100, -200, 16384)) }
            let period = Double(first.last!.timestampNanos - started) / 3 / 1e6
            print("lsm6dsox polled accel+gyro (6 _raw reads, driver settles ~3 ODR periods each): \(period) ms per sample")
            // Values written into the stub while running show up, scaled, accel and gyro together.
            try Self.setOutputs(gyro: (-32768, 32767, 7), accel: (-1234, 0, -16384))
            let after = try Self.read(source, count: 2)
            for s in after { Self.expect(s, gyro: (-32768, 32767, 7), accel: (-1234, 0, -16384)) }
            #expect(zip(first + after, (first + after).dropFirst()).allSatisfy { $0.timestampNanos < $1.timestampNanos && $0.sequence < $1.sequence })
        }

        @Test func bufferedOnAnHrtimerAccelAndGyroFromTwoBuffersArePairedIntoOneStampedStream() throws {
            try Self.setOutputs(gyro: (300, -300, 30), accel: (1000, 2000, 16000))
            let source = IIOSource(device: "lsm6dsox_accel", trigger: "hrtimer", useBuffer: true, bufferLength: 4)
            let started = MonotonicClock.nowNanos()
            let config = try source.start(requestedRate: 100)
            defer { source.stop() }
            #expect(source.memberIDs.count == 2)
            #expect(config.timing == .bufferTimestamp)
            #expect(config.rate == 104)
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 8)
            var samples: [IMUSample] = []
            var changedAt: UInt64 = 0
            while samples.count < 60 {
                let r = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(2)) }
                guard case .samples(let n) = r else { Issue.record("timed out after \(samples.count) samples"); break }
                samples += buf[0..<n]
                if changedAt == 0, samples.count >= 30 {
                    try Self.setOutputs(gyro: (-300, 300, -30), accel: (-1000, -2000, -16000))
                    changedAt = MonotonicClock.nowNanos()
                }
            }
            // Every sample carries both sensors; before the change the old values, well after it the new
            // ones — accel and gyro together, from two devices' buffers.
            for s in samples.filter({ $0.timestampNanos < changedAt }) { Self.expect(s, gyro: (300, -300, 30), accel: (1000, 2000, 16000)) }
            let after = samples.filter { $0.timestampNanos > changedAt + 30_000_000 }
            #expect(after.count > 10)
            for s in after { Self.expect(s, gyro: (-300, 300, -30), accel: (-1000, -2000, -16000)) }
            let stamps = samples.map(\.timestampNanos)
            #expect(stamps.first! >= started && stamps.last! <= MonotonicClock.nowNanos())
            #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $0 < $1 })
            #expect(samples.allSatisfy { $0.flags.contains(.hardwareTimestamp) })
            let mean = Double(stamps.last! - stamps.first!) / Double(stamps.count - 1) / 1e6
            let skew = Double(source.maxPairingSkewNanos) / 1e6
            print("lsm6dsox hrtimer 104 Hz, accel+gyro paired: \(samples.count) samples, mean period \(mean) ms, missed \(source.missedSamples), max accel–gyro timestamp skew \(skew) ms")
            // Both devices run off one hrtimer tick: each accel sample pairs with the gyro sample of the
            // same tick, never a neighbouring one (a period is 9.6 ms).
            #expect(source.maxPairingSkewNanos > 0 && skew < 1000 / 104 / 2)
            #expect(abs(mean - 1000 / 104) < 1.5)
        }

        @Test func anExplicitDeviceListIsReadExactlyAsListed() throws {
            try Self.setOutputs(gyro: (10, 20, 30), accel: (-10, -20, -30))
            // config/iio-lsm6dsox.yaml's trigger: own needs the IRQ (hardware FIFO); without it the
            // error says what to use instead.
            let own = #expect(throws: SensorError.self) {
                try IIOSource(device: nil, devices: ["lsm6dsox_accel", "lsm6dsox_gyro"], trigger: "own", bufferLength: 4).start(requestedRate: 100)
            }
            #expect(own?.kind == .unsupported)
            #expect(own?.description.contains("lsm6dsox_") == true && own?.description.contains("hrtimer or none") == true)
            let both = IIOSource(device: nil, devices: ["lsm6dsox_gyro", "lsm6dsox_accel"], trigger: "none")
            _ = try both.start(requestedRate: 800)
            let ids = both.memberIDs
            Self.expect(try Self.read(both, count: 1)[0], gyro: (10, 20, 30), accel: (-10, -20, -30))
            both.stop()
            #expect(ids.count == 2)
            // One device listed: exactly that one, no sibling.
            let alone = IIOSource(device: nil, devices: ["lsm6dsox_accel"], trigger: "none")
            _ = try alone.start(requestedRate: 800)
            #expect(alone.memberIDs.count == 1)
            let s = try Self.read(alone, count: 1)[0]
            alone.stop()
            #expect(s.contents.contains(.accelerometer) && !s.contents.contains(.gyroscope))
            let missing = #expect(throws: SensorError.self) {
                try IIOSource(device: nil, devices: ["lsm6dsox_accel", "lsm6dsox_magn"], trigger: "none").start(requestedRate: 100)
            }
            #expect(missing?.kind == .notFound)
            #expect(missing?.description.contains("'lsm6dsox_magn' (source.iio.devices)") == true)
        }

        @Test func unbindingTheChipIsAReadErrorNamingItAndAFreshStartWorksAfterRebind() throws {
            try Self.setOutputs(gyro: (1, 2, 3), accel: (4, 5, 6))
            let source = IIOSource(device: "lsm6dsox_gyro", trigger: "none")
            _ = try source.start(requestedRate: 800)
            _ = try Self.read(source, count: 1)
            try Self.client.write(toFile: Self.driver + "/unbind", atomically: false, encoding: .utf8)
            var rebound = false
            defer { if !rebound { try? Self.client.write(toFile: Self.driver + "/bind", atomically: false, encoding: .utf8) } }
            let error = #expect(throws: SensorError.self) { _ = try Self.read(source, count: 1) }
            print("lsm6dsox unbind: \(error.map(String.init(describing:)) ?? "no error")")
            #expect(error?.description.contains("lsm6dsox_") == true)
            source.stop()
            try Self.client.write(toFile: Self.driver + "/bind", atomically: false, encoding: .utf8)
            rebound = true
            let again = IIOSource(device: "lsm6dsox_gyro", trigger: "none")
            _ = try again.start(requestedRate: 800)
            defer { again.stop() }
            #expect(again.memberIDs.count == 2)
            Self.expect(try Self.read(again, count: 1)[0], gyro: (1, 2, 3), accel: (4, 5, 6))
        }
    }
}
