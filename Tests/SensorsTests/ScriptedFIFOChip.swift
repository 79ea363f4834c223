import CLinuxI2C
import Glibc
import Synchronization
@testable import Sensors

/// An IMU chip scripted below the `I2CAdapter` seam: a 256-register file behind the i2c-dev ioctls
/// and a FIFO byte queue. Reads of the FIFO output registers pop bytes; bursts advance through
/// registers the way the chip does (`next(after:)`: stay, advance or wrap). Subclasses give the frame
/// layout, the FIFO level and status registers, and what reset and overflow look like. The test
/// pushes frames (`push`), or scripts how many arrive before each level read. Everything `I2CBus`
/// sends is recorded.
class ScriptedFIFOChip: I2CAdapter, @unchecked Sendable {
    struct State {
        var registers = [UInt8](repeating: 0, count: 256)
        var fifo: [UInt8] = []
        var writes: [(register: UInt8, value: UInt8)] = []
        /// Bytes asked for by each SMBus I2C-block read, and each I2C_RDWR read, of a FIFO output register.
        var fifoChunks: [Int] = []
        var largestSMBusBlock = 0
        var statusReads = 0
        /// Frames to push before each FIFO level read (consumed one entry per read), -1 = overflow.
        var script: [Int] = []
        var nextFrame = 0
        /// Set by an overflow, cleared by a FIFO reset (chips show it their own way).
        var overflowed = false
        /// FIFO bytes popped since the last reset.
        var popped = 0
        /// Every transfer is not acknowledged (ENXIO), like a chip that lost power.
        var nack = false
    }
    let state = Mutex(State())
    let address: UInt16
    let plainI2C: Bool
    /// FIFO size, bytes.
    let capacity: Int

    init(address: UInt16, identity: (register: UInt8, value: UInt8), plainI2C: Bool, capacity: Int) {
        self.address = address
        self.plainI2C = plainI2C
        self.capacity = capacity
        state.withLock { $0.registers[Int(identity.register)] = identity.value }
    }

    /// Raw values of frame `k` of the scripted stream: accel (k, −k, 16384), gyro (131·k mod 32768, 2, −3).
    static func values(_ k: Int) -> (accel: [Int], gyro: [Int]) {
        ([k, -k, 16384], [(131 * k) % 32768, 2, -3])
    }

    static func bigEndian(_ v: Int) -> [UInt8] {
        let u = UInt16(bitPattern: Int16(truncatingIfNeeded: v)); return [UInt8(u >> 8), UInt8(u & 0xFF)]
    }

    static func littleEndian(_ v: Int) -> [UInt8] {
        let u = UInt16(bitPattern: Int16(truncatingIfNeeded: v)); return [UInt8(u & 0xFF), UInt8(u >> 8)]
    }

    // MARK: Chip specifics (subclasses override)

    /// FIFO bytes of frame `k`.
    func encode(_ k: Int) -> [UInt8] { fatalError("override") }
    /// Bytes a full FIFO drops at once to make room (a byte, a word, a frame).
    var dropUnit: Int { 1 }
    /// Whether `r` is a FIFO output register (each read pops a byte).
    func isFIFOData(_ r: UInt8) -> Bool { false }
    /// The register after `r` in a burst.
    func next(after r: UInt8) -> UInt8 { r &+ 1 }
    /// The register whose read starts a FIFO level read (one script entry is pushed first).
    var levelRegister: UInt8 { fatalError("override") }
    /// A chip register with behaviour (level, status); nil: the plain register file.
    func readSpecial(_ r: UInt8, _ s: inout State) -> UInt8? { nil }
    /// Effects of a write (FIFO reset…), after it was recorded and stored.
    func didWrite(_ r: UInt8, _ v: UInt8, _ s: inout State) {}

    var frameBytes: Int { encode(0).count }

    // MARK: FIFO

    /// Appends the next `n` frames of the scripted stream to the FIFO (overflowing when full).
    func push(_ n: Int) {
        state.withLock { s in push(n, &s) }
    }

    /// Appends raw bytes (e.g. part of a frame still being written).
    func append(_ bytes: [UInt8]) {
        state.withLock { $0.fifo += bytes }
    }

    func push(_ n: Int, _ s: inout State) {
        for _ in 0..<n {
            let f = encode(s.nextFrame)
            s.nextFrame += 1
            if s.fifo.count + f.count > capacity {
                s.overflowed = true
                let excess = s.fifo.count + f.count - capacity
                let drop = (excess + dropUnit - 1) / dropUnit * dropUnit
                s.fifo.removeFirst(min(drop, s.fifo.count))
            }
            s.fifo += f
        }
    }

    /// Empties the FIFO and clears the overflow (what the chip's FIFO reset does).
    func clearFIFO(_ s: inout State) {
        s.fifo.removeAll()
        s.overflowed = false
        s.popped = 0
    }

    // MARK: Registers

    private func readRegister(_ r: UInt8, _ s: inout State) -> UInt8 {
        if r == levelRegister {
            s.statusReads += 1
            if !s.script.isEmpty {
                let n = s.script.removeFirst()
                push(n < 0 ? capacity / frameBytes + 2 : n, &s)
            }
        }
        if isFIFOData(r) {
            guard !s.fifo.isEmpty else { return 0 }
            s.popped += 1
            return s.fifo.removeFirst()
        }
        return readSpecial(r, &s) ?? s.registers[Int(r)]
    }

    private func writeRegister(_ r: UInt8, _ v: UInt8, _ s: inout State) {
        s.writes.append((r, v))
        s.registers[Int(r)] = v
        didWrite(r, v, &s)
    }

    /// Reads `n` bytes from `r` on, as the chip's register pointer moves.
    private func burst(_ r: UInt8, _ n: Int, _ s: inout State) -> [UInt8] {
        if isFIFOData(r) { s.fifoChunks.append(n) }
        var reg = r
        var out: [UInt8] = []
        for _ in 0..<n {
            out.append(readRegister(reg, &s))
            reg = next(after: reg)
        }
        return out
    }

    // MARK: I2CAdapter

    func functionality() -> Result<UInt, I2CAdapterErrno> {
        var f = UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA | I2C_FUNC_SMBUS_WRITE_BYTE_DATA | I2C_FUNC_SMBUS_READ_I2C_BLOCK | I2C_FUNC_SMBUS_WRITE_I2C_BLOCK)
        if plainI2C { f |= UInt(I2C_FUNC_I2C) }
        return .success(f)
    }

    func setAddress(_ address: UInt16, force: Bool) -> Int32 { address == self.address ? 0 : ENXIO }

    func smbus(_ args: inout i2c_smbus_ioctl_data) -> Int32 {
        let data = args.data!
        return state.withLock { s -> Int32 in
            if s.nack { return ENXIO }
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
            if s.nack { return -ENXIO }
            let bytes = burst(reg, n, &s)
            for i in 0..<n { msgs[1].buf![i] = bytes[i] }
            return 2
        }
    }

    func close() {}
}
