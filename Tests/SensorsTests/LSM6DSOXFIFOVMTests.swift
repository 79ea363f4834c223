import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// LSM6DSOX FIFO mode against i2c-stub at 0x6b. The stub is a plain register file (no FIFO
    /// semantics): the test writes FIFO_STATUS1/2 (DIFF_FIFO) and four tagged words at
    /// FIFO_DATA_OUT_TAG (0x78…0x93, what a 28-byte SMBus block read from 0x78 returns), and checks
    /// what reaches the chip's FIFO registers and how the real i2c-dev SMBus path reads and decodes
    /// the burst. Nothing is bound to 0x6b.
    @Suite struct LSM6DSOXFIFO {
        static let address: UInt16 = 0x6B
        /// Frame 0: gyro then accel; frame 1: accel then gyro (the driver assigns words by tag).
        static let gyro0: [Int16] = [100, -200, 300], accel0: [Int16] = [0, 0, 8197]
        static let gyro1: [Int16] = [-100, 200, -300], accel1: [Int16] = [4098, 0, 8197]
        static func word(_ tag: UInt8, _ xyz: [Int16]) -> [UInt8] { [tag << 3] + xyz.flatMap(VMFixtures.littleEndian) }
        static var fifoWords: [UInt8] { word(0x01, gyro0) + word(0x02, accel0) + word(0x02, accel1) + word(0x01, gyro1) }

        static func restore() {
            try? VMFixtures.poke(address, 0x3A, [0, 0])
            try? VMFixtures.poke(address, 0x78, [UInt8](repeating: 0, count: 28))
        }

        static func expectDecoded(_ got: [IMUSample], _ config: IMUChipConfiguration) {
            func v(_ a: [Int16], _ scale: Double) -> Vector3 { Vector3(Double(a[0]), Double(a[1]), Double(a[2])) * scale }
            #expect(got[0].rotationRate == v(gyro0, config.gyroScale) && got[0].specificForce == v(accel0, config.accelScale))
            #expect(got[1].rotationRate == v(gyro1, config.gyroScale) && got[1].specificForce == v(accel1, config.accelScale))
            #expect(abs(got[1].specificForce.x - 4098 * 0.122e-3 * standardGravity) < 1e-9)    // ±4 g: 0.122 mg/LSB
        }

        @Test func fifoModeWritesTheFIFORegistersAndDecodesATaggedBurstReadFromFIFO_DATA_OUT_TAG() throws {
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: Self.address, chip: .lsm6dsox, accelRangeG: 4, gyroRangeDPS: 500,
                                      fifo: FIFOOptions(watermark: 2))
            let config = try source.start(requestedRate: 100)
            defer { source.stop(); Self.restore() }
            #expect(config.timing == .fifoBurst && config.rate == 104)
            let check = try I2CBus(number: VMFixtures.i2cBus)
            func reg(_ r: UInt8) throws -> UInt8 { try check.readByte(address: Self.address, register: I2CRegister(r, "stub")) }
            #expect(try reg(0x09) == 0x44)          // FIFO_CTRL3: BDR_GY = BDR_XL = 104 Hz
            #expect(try reg(0x07) == 4)             // FIFO_CTRL1: watermark 2 frames = 4 tagged words
            #expect(try reg(0x0A) == 0x06)          // FIFO_CTRL4: continuous
            #expect(try reg(0x0D) == 0x00)          // INT1_CTRL: no line
            try VMFixtures.poke(Self.address, 0x78, Self.fifoWords)
            try VMFixtures.poke(Self.address, 0x3A, [4, 0])          // DIFF_FIFO = 4 words, no overrun
            let out = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 8)
            defer { out.deallocate() }
            var got: [IMUSample] = []
            for _ in 0..<50 where got.count < 2 {
                if case .samples(let n) = try source.read(into: out, timeout: .milliseconds(500)) { got += (0..<n).map { out[$0] } }
            }
            try #require(got.count >= 2)
            Self.expectDecoded(got, try #require(source.chipConfiguration))
            #expect(got[0].sequence == 0 && got[1].sequence == 1 && got[0].timestampNanos < got[1].timestampNanos)
            #expect(source.fifoOverflows == 0)
        }

        /// The FIFO threshold on INT1 is a level: one edge per burst. With 3 frames in the FIFO and a
        /// watermark of 2, the edge's burst is exactly 2 frames (the one that reached the watermark
        /// is the newest, at the edge's kernel timestamp); the third waits for the next edge.
        @Test func withADataReadyLineOneWatermarkEdgeReadsWatermarkFramesTheNewestAtTheEdge() throws {
            VMFixtures.pull(up: false)
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: Self.address, chip: .lsm6dsox, accelRangeG: 4, gyroRangeDPS: 500,
                                      dataReady: .init(chip: VMFixtures.gpioLabel, line: VMFixtures.gpioLine),
                                      fifo: FIFOOptions(watermark: 2))
            let config = try source.start(requestedRate: 100)
            defer { source.stop(); Self.restore(); VMFixtures.pull(up: false) }
            let check = try I2CBus(number: VMFixtures.i2cBus)
            #expect(try check.readByte(address: Self.address, register: LSM6DSx.Register.int1Control) == 0x08)   // INT1_FIFO_TH
            try VMFixtures.poke(Self.address, 0x78, Self.fifoWords)
            try VMFixtures.poke(Self.address, 0x3A, [6, 0])          // 6 words = 3 frames
            let out = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 8)
            defer { out.deallocate() }
            #expect(try source.read(into: out, timeout: .milliseconds(10)) == .timeout, "no edge, no read")
            let before = MonotonicClock.nowNanos()
            VMFixtures.pull(up: true)
            let after = MonotonicClock.nowNanos()
            let r = try source.read(into: out, timeout: .seconds(1))
            #expect(r == .samples(2))
            Self.expectDecoded([out[0], out[1]], try #require(source.chipConfiguration))
            #expect(out[1].timestampNanos >= before && out[1].timestampNanos <= after + 5_000_000, "newest frame not at the edge")
            #expect(out[1].timestampNanos - out[0].timestampNanos == UInt64((1e9 / config.rate).rounded()))   // first burst: nominal 104 Hz
            #expect(out[0].flags.contains(.hardwareTimestamp) && out[1].flags.contains(.hardwareTimestamp))
        }
    
        /// A threshold level that was already high when the line was opened never rises again: after
        /// three bursts' time without an edge the reader polls and takes every frame waiting.
        @Test func aWatermarkLevelAlreadyHighAtStartIsPolledAfterThreeBurstsOfSilence() throws {
            VMFixtures.pull(up: false)
            try VMFixtures.poke(Self.address, 0x78, Self.fifoWords)
            try VMFixtures.poke(Self.address, 0x3A, [6, 0])          // 3 frames before anyone listens
            let source = I2CIMUSource(bus: VMFixtures.i2cBus, address: Self.address, chip: .lsm6dsox, accelRangeG: 4, gyroRangeDPS: 500,
                                      dataReady: .init(chip: VMFixtures.gpioLabel, line: VMFixtures.gpioLine),
                                      fifo: FIFOOptions(watermark: 2))
            let started = MonotonicClock.nowNanos()
            _ = try source.start(requestedRate: 100)
            defer { source.stop(); Self.restore() }
            let out = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 8)
            defer { out.deallocate() }
            var r = ReadResult.timeout
            for _ in 0..<40 where r == .timeout { r = try source.read(into: out, timeout: .milliseconds(20)) }
            let polled = MonotonicClock.nowNanos()
            #expect(r == .samples(3))
            #expect(polled - started >= 3 * 2 * 9_615_384, "polled before three bursts of silence")
            Self.expectDecoded([out[0], out[1]], try #require(source.chipConfiguration))
            // Timed by the poll, not by an edge: no hardware-timestamp claim.
            #expect((0..<3).allSatisfy { !out[$0].flags.contains(.hardwareTimestamp) })
        }
    }
}
