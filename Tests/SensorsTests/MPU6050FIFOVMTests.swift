import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// FIFO mode against i2c-stub at 0x68. The stub is a plain register file (no FIFO semantics), so
    /// this checks what reaches the chip (the FIFO configuration) and the burst read over the real
    /// i2c-dev SMBus path: a burst longer than 32 bytes is split into chunks that each start again at
    /// FIFO_R_W (an auto-incrementing read would fetch the registers after it instead).
    @Suite struct MPU6050FIFO {
        @Test func fifoModeWritesTheFIFORegistersAndBurstsRestartEveryChunkAtFIFO_R_W() throws {
            let bus = VMFixtures.i2cBus
            let source = I2CIMUSource(bus: bus, address: 0x68, chip: .mpu6050, accelRangeG: 2, gyroRangeDPS: 250,
                                      fifo: FIFOOptions(watermark: 3))
            let config = try source.start(requestedRate: 100)
            defer {
                source.stop()
                // Leave the stub as the other suites expect it: empty FIFO count, WHO_AM_I intact.
                try? VMFixtures.poke(0x68, 0x72, [0, 0])
                try? VMFixtures.poke(0x68, 0x74, [0, 0x68] + [UInt8](repeating: 0, count: 34))
            }
            #expect(config.timing == .fifoBurst)
            let check = try I2CBus(number: bus)
            func reg(_ r: UInt8) throws -> UInt8 { try check.readByte(address: 0x68, register: I2CRegister(r, "stub"), force: true) }
            #expect(try reg(0x23) == 0x78)          // FIFO_EN: gyro X, Y, Z + accel
            #expect(try reg(0x6A) == 0x40)          // USER_CTRL: FIFO_EN (the reset bit written before it)
            #expect(try reg(0x38) == 0x10)          // INT_ENABLE: FIFO overflow (no data-ready line)
            #expect(try reg(0x19) == 9)             // SMPLRT_DIV: 1 kHz / (1 + 9) = 100 Hz

            // Three frames (36 bytes) "in the FIFO": FIFO_COUNT = 36, bytes from FIFO_R_W (0x74) on;
            // byte 1 is WHO_AM_I's 0x68 so the identity register keeps its value.
            var data = (0..<36).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
            data[1] = 0x68
            try VMFixtures.poke(0x68, 0x3A, [0])
            try VMFixtures.poke(0x68, 0x74, data)
            try VMFixtures.poke(0x68, 0x72, [0x00, 36])
            let out = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 8)
            defer { out.deallocate() }
            var got: [IMUSample] = []
            for _ in 0..<50 where got.count < 3 {
                if case .samples(let n) = try source.read(into: out, timeout: .milliseconds(500)) { got += (0..<n).map { out[$0] } }
            }
            try #require(got.count >= 3)
            // Chunk 1: 32 bytes from 0x74 (frames 0, 1 and 8 bytes of frame 2); chunk 2: 4 bytes from 0x74 again.
            let stream = Array(data[0..<32]) + Array(data[0..<4])
            let scale = try #require(source.chipConfiguration)
            for k in 0..<3 {
                let bytes = Array(stream[(k * 12)..<(k * 12 + 12)])
                let accel = bytes.withUnsafeBytes { RegisterDecoding.vector($0, at: 0, bigEndian: true, scale: scale.accelScale) }
                let gyro = bytes.withUnsafeBytes { RegisterDecoding.vector($0, at: 6, bigEndian: true, scale: scale.gyroScale) }
                #expect(got[k].specificForce == accel, "frame \(k) accel")
                #expect(got[k].rotationRate == gyro, "frame \(k) gyro")
                #expect(got[k].sequence == UInt64(k))
            }
            #expect(got[0].timestampNanos < got[1].timestampNanos && got[1].timestampNanos < got[2].timestampNanos)
        }

        /// Woken by data-ready edges: nothing is read before `watermark` edges arrived; then the
        /// newest frame carries the last edge's kernel timestamp and the older ones go back by the period.
        @Test func withADataReadyLineTheBurstWaitsForWatermarkEdgesAndItsNewestFrameTakesTheLastEdge() throws {
            VMFixtures.pull(up: false)
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: 0x68, chip: .mpu6050,
                                      dataReady: .init(chip: VMFixtures.gpioLabel, line: VMFixtures.gpioLine),
                                      fifo: FIFOOptions(watermark: 3))
            let config = try source.start(requestedRate: 50)
            defer {
                source.stop()
                try? VMFixtures.poke(0x68, 0x72, [0, 0])
                try? VMFixtures.poke(0x68, 0x74, [0, 0x68] + [UInt8](repeating: 0, count: 34))
            }
            #expect(config.timing == .fifoBurst)
            let check = try I2CBus(number: VMFixtures.i2cBus)
            #expect(try check.readByte(address: 0x68, register: I2CRegister(0x38, "INT_ENABLE"), force: true) == 0x11)
            var data = [UInt8](repeating: 0, count: 36)
            data[1] = 0x68
            try VMFixtures.poke(0x68, 0x3A, [0])
            try VMFixtures.poke(0x68, 0x74, data)
            try VMFixtures.poke(0x68, 0x72, [0x00, 36])         // three frames
            let out = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 8)
            defer { out.deallocate() }
            var before: UInt64 = 0, after: UInt64 = 0
            for k in 0..<3 {
                before = MonotonicClock.nowNanos()
                VMFixtures.pull(up: true)
                after = MonotonicClock.nowNanos()
                VMFixtures.pull(up: false)
                let r = try source.read(into: out, timeout: .seconds(1))
                if k < 2 { #expect(r == .timeout, "edge \(k + 1) of 3: nothing is read before the watermark") }
                else { #expect(r == .samples(3)) }
            }
            let newest = out[2].timestampNanos
            #expect(newest >= before && newest <= after + 5_000_000, "newest frame not stamped with the third edge")
            #expect(out[2].timestampNanos - out[1].timestampNanos == 20_000_000)   // 50 Hz, the first burst uses the nominal period
            #expect(out[1].timestampNanos - out[0].timestampNanos == 20_000_000)
            #expect((0..<3).allSatisfy { out[$0].flags.contains(.hardwareTimestamp) && out[$0].sequence == UInt64($0) })
        }
    }
}
