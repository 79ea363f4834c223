#if canImport(Glibc)
import Glibc
#endif
import CLinuxI2C

/// An open `/dev/i2c-N` character device.
///
/// Burst reads use `I2C_RDWR` (register write + repeated-start read) when the adapter supports plain
/// I2C, else SMBus I2C-block reads of at most 32 bytes each (SMBus-only adapters such as `i2c-stub`).
/// Both are real on a Raspberry Pi. The transfer buffers are allocated once, so register reads on the
/// sampling path do not allocate.
///
/// Not thread-safe: use from one thread (the acquisition thread) at a time.
public final class I2CBus: @unchecked Sendable {
    /// Bus number `N` of `/dev/i2c-N`.
    public let number: Int
    /// Device node path.
    public let path: String
    /// What the adapter supports (`I2C_FUNCS`).
    public let functionality: I2CFunctionality
    /// The primitive used for multi-byte reads.
    public let transferMode: I2CTransferMode

    private let adapter: any I2CAdapter
    private var selectedAddress: UInt16 = 0xFFFF
    private var selectedForce = false
    private let smbusData: UnsafeMutablePointer<i2c_smbus_data>
    private let messages: UnsafeMutablePointer<i2c_msg>
    private let registerByte: UnsafeMutablePointer<UInt8>

    /// Largest chunk of one SMBus I2C-block transfer.
    public static let smbusBlockMax = Int(I2C_SMBUS_BLOCK_MAX)

    /// Opens `/dev/i2c-<number>` (or `path`) and reads the adapter's functionality.
    /// - Parameter preferSMBus: use SMBus block transfers even when plain I2C is available (tests).
    public convenience init(number: Int, path: String? = nil, preferSMBus: Bool = false) throws(SensorError) {
        let devicePath = path ?? "/dev/i2c-\(number)"
        let node: I2CDevNode
        do { node = try I2CDevNode(path: devicePath) } catch { throw I2CError.open(bus: number, path: devicePath, errno: error.code) }
        try self.init(number: number, path: devicePath, adapter: node, preferSMBus: preferSMBus)
    }

    /// A bus over any `I2CAdapter` (tests: a scripted chip below the ioctls).
    public init(number: Int, path: String, adapter: any I2CAdapter, preferSMBus: Bool = false) throws(SensorError) {
        let devicePath = path
        self.number = number
        self.path = devicePath
        let funcs: UInt
        switch adapter.functionality() {
        case .success(let f): funcs = f
        case .failure(let e):
            adapter.close()
            throw SensorError(.unsupported, subject: devicePath, detail: "not an I2C adapter (I2C_FUNCS: \(I2CError.describe(e.code)))")
        }
        let functionality = I2CFunctionality(rawValue: funcs)
        var mode = functionality.transferMode
        if preferSMBus, functionality.contains(.smbusI2CBlockRead) { mode = .smbusBlock }
        guard let mode else {
            adapter.close()
            throw SensorError(.unsupported, subject: devicePath,
                              detail: "adapter supports neither plain I2C nor SMBus I2C-block reads (functionality \(hex(funcs, width: 8)))")
        }
        self.adapter = adapter
        self.functionality = functionality
        self.transferMode = mode
        smbusData = .allocate(capacity: 1)
        smbusData.initialize(to: i2c_smbus_data())
        messages = .allocate(capacity: 2)
        messages.initialize(repeating: i2c_msg(), count: 2)
        registerByte = .allocate(capacity: 1)
        registerByte.initialize(to: 0)
    }

    deinit {
        close()
        smbusData.deallocate()
        messages.deallocate()
        registerByte.deallocate()
    }

    /// Closes the device node. Idempotent.
    public func close() {
        adapter.close()
    }

    /// Points the SMBus ioctls at `address`. `force` uses `I2C_SLAVE_FORCE`, which works even when a
    /// kernel driver owns the address (tests poke registers under a bound driver with it).
    private func select(_ address: UInt16, force: Bool) throws(SensorError) {
        if address == selectedAddress, force == selectedForce { return }
        let e = adapter.setAddress(address, force: force)
        guard e == 0 else {
            throw I2CError.selectAddress(bus: number, address: address, errno: e)
        }
        selectedAddress = address
        selectedForce = force
    }

    /// One SMBus transfer: 0, or the errno.
    private func smbus(_ readWrite: Int32, command: UInt8, size: Int32) -> Int32 {
        var args = i2c_smbus_ioctl_data(read_write: UInt8(readWrite), command: command, size: UInt32(size), data: smbusData)
        return adapter.smbus(&args)
    }

    /// Reads one register with an SMBus "read byte data".
    public func readByte(address: UInt16, register: I2CRegister, force: Bool = false) throws(SensorError) -> UInt8 {
        try select(address, force: force)
        let e = smbus(I2C_SMBUS_READ, command: register.address, size: I2C_SMBUS_BYTE_DATA)
        guard e == 0 else {
            throw I2CError.transfer(bus: number, address: address, register: register, reading: true, errno: e)
        }
        return smbusData.pointee.byte
    }

    /// Writes one register with an SMBus "write byte data".
    public func writeByte(_ value: UInt8, address: UInt16, register: I2CRegister, force: Bool = false) throws(SensorError) {
        try select(address, force: force)
        smbusData.pointee.byte = value
        let e = smbus(I2C_SMBUS_WRITE, command: register.address, size: I2C_SMBUS_BYTE_DATA)
        guard e == 0 else {
            throw I2CError.transfer(bus: number, address: address, register: register, reading: false, errno: e)
        }
    }

    /// Writes consecutive registers starting at `register` (auto-increment), in 32-byte SMBus blocks.
    public func writeBlock(_ bytes: [UInt8], address: UInt16, register: I2CRegister, force: Bool = false) throws(SensorError) {
        try select(address, force: force)
        var offset = 0
        while offset < bytes.count {
            let n = min(I2CBus.smbusBlockMax, bytes.count - offset)
            withUnsafeMutableBytes(of: &smbusData.pointee.block) { block in
                block[0] = UInt8(n)
                for i in 0..<n { block[1 + i] = bytes[offset + i] }
            }
            let reg = I2CRegister(register.address &+ UInt8(offset), register.name)
            let e = smbus(I2C_SMBUS_WRITE, command: reg.address, size: I2C_SMBUS_I2C_BLOCK_DATA)
            guard e == 0 else {
                throw I2CError.transfer(bus: number, address: address, register: reg, reading: false, errno: e)
            }
            offset += n
        }
    }

    /// Burst-reads `buffer.count` consecutive registers starting at `register` into `buffer`.
    /// Allocation-free; a NACK or short read throws an error naming bus, address and register.
    public func read(address: UInt16, register: I2CRegister, into buffer: UnsafeMutableRawBufferPointer, force: Bool = false) throws(SensorError) {
        try read(address: address, register: register, into: buffer, force: force, autoIncrement: true, chunkBytes: I2CBus.smbusBlockMax)
    }

    /// Burst-reads `buffer.count` bytes from a FIFO output register (MPU-6050 `FIFO_R_W`, BMI160
    /// `FIFO_DATA`, LSM6DS3 `FIFO_DATA_OUT_L`, LSM6DSOX `FIFO_DATA_OUT_TAG`): the chip hands out the
    /// next FIFO bytes on every read there (its address stays or wraps back), so each SMBus chunk
    /// starts at the same register instead of advancing. `chunkBytes` (≤ 32) caps the SMBus chunks;
    /// a multiple of the chip's frame or word size keeps every transfer on whole frames. One
    /// `I2C_RDWR` transfer on adapters with plain I2C. Allocation-free.
    public func readFIFO(address: UInt16, register: I2CRegister, into buffer: UnsafeMutableRawBufferPointer,
                         chunkBytes: Int = I2CBus.smbusBlockMax) throws(SensorError) {
        try read(address: address, register: register, into: buffer, force: false, autoIncrement: false,
                 chunkBytes: max(1, min(chunkBytes, I2CBus.smbusBlockMax)))
    }

    private func read(address: UInt16, register: I2CRegister, into buffer: UnsafeMutableRawBufferPointer, force: Bool,
                      autoIncrement: Bool, chunkBytes: Int = I2CBus.smbusBlockMax) throws(SensorError) {
        switch transferMode {
        case .i2cReadWrite where !force:
            registerByte.pointee = register.address
            messages[0] = i2c_msg(addr: address, flags: 0, len: 1, buf: registerByte)
            messages[1] = i2c_msg(addr: address, flags: UInt16(I2C_M_RD), len: UInt16(buffer.count),
                                  buf: buffer.baseAddress?.assumingMemoryBound(to: UInt8.self))
            var data = i2c_rdwr_ioctl_data(msgs: messages, nmsgs: 2)
            let rc = adapter.readWrite(&data)
            guard rc >= 0 else {
                throw I2CError.transfer(bus: number, address: address, register: register, reading: true, errno: -rc)
            }
            guard rc == 2 else {
                throw I2CError.shortRead(bus: number, address: address, register: register, got: 0, wanted: buffer.count)
            }
        default:
            try select(address, force: force)
            var offset = 0
            while offset < buffer.count {
                let n = min(chunkBytes, buffer.count - offset)
                let reg = autoIncrement ? register.address &+ UInt8(truncatingIfNeeded: offset) : register.address
                smbusData.pointee.block.0 = UInt8(n)
                let e = smbus(I2C_SMBUS_READ, command: reg, size: I2C_SMBUS_I2C_BLOCK_DATA)
                guard e == 0 else {
                    throw I2CError.transfer(bus: number, address: address, register: I2CRegister(reg, register.name), reading: true, errno: e)
                }
                let got = Int(smbusData.pointee.block.0)
                guard got >= n else {
                    throw I2CError.shortRead(bus: number, address: address, register: I2CRegister(reg, register.name), got: offset + got, wanted: buffer.count)
                }
                withUnsafeBytes(of: &smbusData.pointee.block) { block in
                    for i in 0..<n { buffer[offset + i] = block[1 + i] }
                }
                offset += n
            }
        }
    }
}
