/// A named register of an I2C chip, so errors can say `register 0x75 (WHO_AM_I)`.
public struct I2CRegister: Sendable, Hashable {
    /// Register address inside the chip.
    public var address: UInt8
    /// Data-sheet name, e.g. `WHO_AM_I`.
    public var name: String

    public init(_ address: UInt8, _ name: String) {
        self.address = address
        self.name = name
    }
}

/// Formats `0x68`-style hex for error texts and the probe listing.
@inlinable
public func hex(_ value: some BinaryInteger, width: Int = 2) -> String {
    let digits = String(value, radix: 16, uppercase: false)
    return "0x" + String(repeating: "0", count: max(0, width - digits.count)) + digits
}
