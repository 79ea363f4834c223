import CLinuxI2C

/// What an I2C adapter can do, from the `I2C_FUNCS` ioctl (`<linux/i2c.h>` `I2C_FUNC_*` bits).
public struct I2CFunctionality: OptionSet, Sendable, Hashable {
    public var rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// Plain I2C messages (`I2C_RDWR`): any length, repeated start. Real controllers (Pi's BCM2835/RP1).
    public static let plainI2C = I2CFunctionality(rawValue: UInt(I2C_FUNC_I2C))
    /// SMBus "read/write byte data" (one register).
    public static let smbusByteData = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_READ_BYTE_DATA | I2C_FUNC_SMBUS_WRITE_BYTE_DATA))
    /// SMBus-style I2C block read: register + up to 32 bytes (what SMBus-only adapters such as i2c-stub offer).
    public static let smbusI2CBlockRead = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_READ_I2C_BLOCK))
    /// SMBus-style I2C block write of up to 32 bytes.
    public static let smbusI2CBlockWrite = I2CFunctionality(rawValue: UInt(I2C_FUNC_SMBUS_WRITE_I2C_BLOCK))

    /// How multi-byte register reads will be done on this adapter.
    public var transferMode: I2CTransferMode? {
        if contains(.plainI2C) { return .i2cReadWrite }
        if contains(.smbusI2CBlockRead) { return .smbusBlock }
        return nil
    }
}

/// The transfer primitive an `I2CBus` uses for burst reads.
public enum I2CTransferMode: String, Sendable {
    /// `ioctl(I2C_RDWR)`: one write message (register) + one read message, any length.
    case i2cReadWrite = "i2c-rdwr"
    /// `ioctl(I2C_SMBUS, I2C_SMBUS_I2C_BLOCK_DATA)`: chunks of at most 32 bytes.
    case smbusBlock = "smbus-i2c-block"
}
