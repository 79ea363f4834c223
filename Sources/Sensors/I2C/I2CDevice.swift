/// One chip at `address` on an `I2CBus`: the handle drivers use.
public struct I2CDevice: Sendable {
    public let bus: I2CBus
    /// 7-bit address.
    public let address: UInt16

    public init(bus: I2CBus, address: UInt16) {
        self.bus = bus
        self.address = address
    }

    public func read(_ register: I2CRegister) throws(SensorError) -> UInt8 {
        try bus.readByte(address: address, register: register)
    }

    public func write(_ register: I2CRegister, _ value: UInt8) throws(SensorError) {
        try bus.writeByte(value, address: address, register: register)
    }

    /// Burst read of `buffer.count` registers from `register`.
    public func read(_ register: I2CRegister, into buffer: UnsafeMutableRawBufferPointer) throws(SensorError) {
        try bus.read(address: address, register: register, into: buffer)
    }

    /// Throws `.wrongDevice` unless `register` holds `expected`.
    public func expectIdentity(_ register: I2CRegister, _ expected: UInt8, model: IMUChipModel) throws(SensorError) {
        let found = try read(register)
        guard found == expected else {
            let known = IMUChipModel.knownIdentity(found, register: register.address).map { " (looks like \($0))" } ?? ""
            throw SensorError(.wrongDevice, subject: I2CError.subject(bus: bus.number, address: address, register: register),
                              detail: "expected \(hex(expected)) for \(model.rawValue), found \(hex(found))\(known); check source.i2c.chip and source.i2c.address")
        }
    }
}
