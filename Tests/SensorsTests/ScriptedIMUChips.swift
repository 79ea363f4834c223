import Synchronization
@testable import Sensors

/// An MPU-6050 scripted below the `I2CAdapter` seam (`ScriptedFIFOChip`): FIFO_COUNT is the queue
/// length, FIFO_R_W pops a byte per read and does not advance, INT_STATUS (with FIFO_OFLOW_INT)
/// clears on read, USER_CTRL's FIFO_RESET empties the queue and clears itself. A full FIFO drops its
/// oldest bytes (1024 is no multiple of 12, so the data no longer starts on a frame boundary).
final class ScriptedMPU6050: ScriptedFIFOChip, @unchecked Sendable {
    init(plainI2C: Bool = false, capacity: Int = 1024) {
        super.init(address: 0x68, identity: (0x75, 0x68), plainI2C: plainI2C, capacity: capacity)
    }

    /// Frame `k`: accel then gyro, big-endian (FIFO_EN order).
    static func frame(_ k: Int) -> [UInt8] {
        let v = values(k)
        return (v.accel + v.gyro).flatMap(bigEndian)
    }

    override func encode(_ k: Int) -> [UInt8] { Self.frame(k) }
    override func isFIFOData(_ r: UInt8) -> Bool { r == 0x74 }
    override func next(after r: UInt8) -> UInt8 { r == 0x74 ? r : r &+ 1 }
    override var levelRegister: UInt8 { 0x72 }

    override func readSpecial(_ r: UInt8, _ s: inout State) -> UInt8? {
        switch r {
        case 0x3A:                                         // INT_STATUS, cleared by the read
            defer { s.overflowed = false; s.registers[0x3A] = 0 }
            return s.registers[0x3A] | (s.overflowed ? 0x10 : 0)
        case 0x72: return UInt8(s.fifo.count >> 8)
        case 0x73: return UInt8(s.fifo.count & 0xFF)
        default: return nil
        }
    }

    override func didWrite(_ r: UInt8, _ v: UInt8, _ s: inout State) {
        if r == 0x6A, v & 0x04 != 0 {                      // FIFO_RESET (clears itself; INT_STATUS stays)
            let flag = s.overflowed
            clearFIFO(&s)
            s.overflowed = flag
            s.registers[0x6A] = v & ~0x04
        }
    }
}

/// A BMI160 scripted below the `I2CAdapter` seam: FIFO_LENGTH_0/1 hold the byte count, FIFO_DATA
/// pops a byte per read and does not advance, CMD fifo_flush (0xB0) empties the FIFO. Headerless
/// accel+gyro frames (gyro then accel, little-endian); a full FIFO drops its oldest frame.
final class ScriptedBMI160: ScriptedFIFOChip, @unchecked Sendable {
    init(plainI2C: Bool = false, address: UInt16 = 0x69) {
        super.init(address: address, identity: (0x00, 0xD1), plainI2C: plainI2C, capacity: 1024)
    }

    override func encode(_ k: Int) -> [UInt8] {
        let v = Self.values(k)
        return (v.gyro + v.accel).flatMap(Self.littleEndian)
    }
    override var dropUnit: Int { 12 }
    override func isFIFOData(_ r: UInt8) -> Bool { r == 0x24 }
    override func next(after r: UInt8) -> UInt8 { r == 0x24 ? r : r &+ 1 }
    override var levelRegister: UInt8 { 0x22 }

    override func readSpecial(_ r: UInt8, _ s: inout State) -> UInt8? {
        switch r {
        case 0x22: return UInt8(s.fifo.count & 0xFF)
        case 0x23: return UInt8(s.fifo.count >> 8)
        default: return nil
        }
    }

    override func didWrite(_ r: UInt8, _ v: UInt8, _ s: inout State) {
        if r == 0x7E, v == 0xB0 { clearFIFO(&s) }
    }
}

/// An LSM6DS3 or LSM6DSOX scripted below the `I2CAdapter` seam: FIFO_STATUS1/2 hold the unread
/// words (DIFF_FIFO) and the overrun flag(s), FIFO_MODE = bypass (FIFO_CTRL5/FIFO_CTRL4 bits 2:0 = 0)
/// empties the FIFO. LSM6DS3: 16-bit words Gx Gy Gz Ax Ay Az from FIFO_DATA_OUT_L/H (the address
/// wraps from 0x3F to 0x3E), FIFO_STATUS3 = the pattern index of the next word. LSM6DSOX: 7-byte
/// tagged words (gyro tag 0x01, then accel tag 0x02) from 0x78…0x7E (wrapping to 0x78); a full FIFO
/// drops its oldest word.
final class ScriptedLSM6DSx: ScriptedFIFOChip, @unchecked Sendable {
    let tagged: Bool
    /// Put accel before gyro in each LSM6DSOX frame (the driver assigns words by tag).
    var accelFirst = false

    init(model: IMUChipModel = .lsm6dsox, plainI2C: Bool = false, address: UInt16 = 0x6B) {
        tagged = model == .lsm6dsox
        super.init(address: address, identity: (0x0F, model.whoAmI.value), plainI2C: plainI2C,
                   capacity: model == .lsm6dsox ? 512 * 7 : 8192)
    }

    var wordBytes: Int { tagged ? 7 : 2 }

    /// One LSM6DSOX tagged word: TAG_SENSOR << 3 | TAG_CNT << 1 | parity, then x, y, z.
    static func taggedWord(tag: UInt8, count: Int, _ xyz: [Int]) -> [UInt8] {
        let t = tag << 3 | UInt8(count & 3) << 1
        return [t | UInt8(t.nonzeroBitCount & 1)] + xyz.flatMap(littleEndian)
    }

    override func encode(_ k: Int) -> [UInt8] {
        let v = Self.values(k)
        guard tagged else { return (v.gyro + v.accel).flatMap(Self.littleEndian) }
        let g = Self.taggedWord(tag: 0x01, count: k, v.gyro), a = Self.taggedWord(tag: 0x02, count: k, v.accel)
        return accelFirst ? a + g : g + a
    }
    override var dropUnit: Int { wordBytes }
    override func isFIFOData(_ r: UInt8) -> Bool { tagged ? (0x78...0x7E).contains(r) : r == 0x3E || r == 0x3F }
    override func next(after r: UInt8) -> UInt8 {
        switch r {
        case 0x3F where !tagged: 0x3E
        case 0x7E where tagged: 0x78
        default: r &+ 1
        }
    }
    override var levelRegister: UInt8 { 0x3A }

    override func readSpecial(_ r: UInt8, _ s: inout State) -> UInt8? {
        let words = s.fifo.count / wordBytes
        switch r {
        case 0x3A: return UInt8(words & 0xFF)
        case 0x3B:
            if tagged { return UInt8(words >> 8) & 0x03 | (s.overflowed ? 0x48 : 0) }   // FIFO_OVR_IA | FIFO_OVR_LATCHED
            return UInt8(words >> 8) & 0x0F | (s.overflowed ? 0x40 : 0) | (words == 0 ? 0x10 : 0)
        case 0x3C where !tagged: return UInt8((s.popped / 2) % 6)   // FIFO_PATTERN of the next word
        case 0x3D where !tagged: return 0
        default: return nil
        }
    }

    override func didWrite(_ r: UInt8, _ v: UInt8, _ s: inout State) {
        if r == 0x0A, v & 0x07 == 0 { clearFIFO(&s) }     // bypass mode empties the FIFO
    }
}
