import CLinuxI2C
import Glibc
import Synchronization
@testable import Sensors

/// An MPU-6050 scripted below the `I2CAdapter` seam: a 256-register file behind the i2c-dev ioctls,
/// with the FIFO's semantics (FIFO_COUNT is the queue length, FIFO_R_W pops a byte per read and does
/// not advance, INT_STATUS clears on read, USER_CTRL's FIFO_RESET empties the queue). The test pushes
/// frames into the FIFO (`push`), or sets an overflow. Everything `I2CBus` sends is recorded.
final class ScriptedMPU6050: I2CAdapter, @unchecked Sendable {
    struct State {
        var registers = [UInt8](repeating: 0, count: 256)
        var fifo: [UInt8] = []
        var writes: [(register: UInt8, value: UInt8)] = []
        /// Bytes asked for by each SMBus I2C-block read of FIFO_R_W, and by each I2C_RDWR read of it.
        var fifoChunks: [Int] = []
        var largestSMBusBlock = 0
        var statusReads = 0
        /// Frames to push before each FIFO_COUNT read (consumed one entry per read), -1 = overflow.
        var script: [Int] = []
        var nextFrame = 0
    }
    let state = Mutex(State())
    let plainI2C: Bool
    let capacity: Int

    init(plainI2C: Bool = false, capacity: Int = 1024) {
        self.plainI2C = plainI2C
        self.capacity = capacity
        state.withLock { $0.registers[0x75] = 0x68 }
    }

    /// Frame `k` of the scripted stream: accel (k, −k, 16384), gyro (131·k mod 32768, 2, −3) raw.
    static func frame(_ k: Int) -> [UInt8] {
        func be(_ v: Int) -> [UInt8] { let u = UInt16(bitPattern: Int16(truncatingIfNeeded: v)); return [UInt8(u >> 8), UInt8(u & 0xFF)] }
        return be(k) + be(-k) + be(16384) + be((131 * k) % 32768) + be(2) + be(-3)
    }

    /// Appends the next `n` frames of the scripted stream to the FIFO (or sets the overflow flag).
    func push(_ n: Int) {
        state.withLock { s in Self.push(n, &s, capacity: capacity) }
    }

    private static func push(_ n: Int, _ s: inout State, capacity: Int) {
        for _ in 0..<n {
            let f = frame(s.nextFrame)
            s.nextFrame += 1
            if s.fifo.count + f.count > capacity {
                // Full: the chip overwrites the oldest bytes (1024 is no multiple of 12, so the
                // data no longer starts on a frame boundary), FIFO_COUNT stays at the capacity.
                s.registers[0x3A] |= 0x10              // FIFO_OFLOW_INT
                s.fifo.removeFirst(s.fifo.count + f.count - capacity)
            }
            s.fifo += f
        }
    }

    func functionality() -> Result<UInt, I2CAdapterErrno> {
        var f = UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA | I2C_FUNC_SMBUS_WRITE_BYTE_DATA | I2C_FUNC_SMBUS_READ_I2C_BLOCK | I2C_FUNC_SMBUS_WRITE_I2C_BLOCK)
        if plainI2C { f |= UInt(I2C_FUNC_I2C) }
        return .success(f)
    }

    func setAddress(_ address: UInt16, force: Bool) -> Int32 { address == 0x68 ? 0 : ENXIO }

    private func readRegister(_ r: UInt8, _ s: inout State) -> UInt8 {
        switch r {
        case 0x3A:
            defer { s.registers[0x3A] = 0 }
            return s.registers[0x3A]
        case 0x72:
            s.statusReads += 1
            if !s.script.isEmpty {
                let n = s.script.removeFirst()
                Self.push(n < 0 ? capacity / 12 + 2 : n, &s, capacity: capacity)
            }
            return UInt8(s.fifo.count >> 8)
        case 0x73: return UInt8(s.fifo.count & 0xFF)
        case 0x74: return s.fifo.isEmpty ? 0 : s.fifo.removeFirst()
        default: return s.registers[Int(r)]
        }
    }

    private func writeRegister(_ r: UInt8, _ v: UInt8, _ s: inout State) {
        s.writes.append((r, v))
        if r == 0x6A, v & 0x04 != 0 { s.fifo.removeAll() }
        s.registers[Int(r)] = r == 0x6A ? v & ~0x04 : v     // FIFO_RESET clears itself
    }

    /// Reads `n` bytes starting at `r` the way the chip does: FIFO_R_W stays put, others advance.
    private func burst(_ r: UInt8, _ n: Int, _ s: inout State) -> [UInt8] {
        if r == 0x74 { s.fifoChunks.append(n) }
        return (0..<n).map { i in readRegister(r == 0x74 ? r : r &+ UInt8(truncatingIfNeeded: i), &s) }
    }

    func smbus(_ args: inout i2c_smbus_ioctl_data) -> Int32 {
        let data = args.data!
        return state.withLock { s -> Int32 in
            switch (Int32(args.read_write), Int32(args.size)) {
            case (I2C_SMBUS_READ, I2C_SMBUS_BYTE_DATA):
                data.pointee.byte = readRegister(args.command, &s)
            case (I2C_SMBUS_WRITE, I2C_SMBUS_BYTE_DATA):
                writeRegister(args.command, data.pointee.byte, &s)
            case (I2C_SMBUS_READ, I2C_SMBUS_I2C_BLOCK_DATA):
                let n = Int(data.pointee.block.0)
                guard n <= 32 else { return EINVAL }
                s.largestSMBusBlock = max(s.largestSMBusBlock, n)
                let bytes = burst(args.command, n, &s)
                withUnsafeMutableBytes(of: &data.pointee.block) { b in for i in 0..<n { b[1 + i] = bytes[i] } }
            case (I2C_SMBUS_WRITE, I2C_SMBUS_I2C_BLOCK_DATA):
                let n = Int(data.pointee.block.0)
                withUnsafeBytes(of: &data.pointee.block) { b in for i in 0..<n { writeRegister(args.command &+ UInt8(i), b[1 + i], &s) } }
            default:
                return EOPNOTSUPP
            }
            return 0
        }
    }

    func readWrite(_ data: inout i2c_rdwr_ioctl_data) -> Int32 {
        guard plainI2C, data.nmsgs == 2, let msgs = data.msgs else { return -EOPNOTSUPP }
        let reg = msgs[0].buf![0]
        let n = Int(msgs[1].len)
        return state.withLock { s in
            let bytes = burst(reg, n, &s)
            for i in 0..<n { msgs[1].buf![i] = bytes[i] }
            return 2
        }
    }

    func close() {}
}
