/// Errors of the sensor layer. Each names the device, bus or file involved and says what to do.
public struct SensorError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: String, Sendable {
        case notFound = "not found"
        case permissionDenied = "permission denied"
        case unsupported = "unsupported"
        case io = "I/O error"
        case invalidData = "invalid data"
        case wrongDevice = "wrong device"
    }

    public var kind: Kind
    /// What failed, e.g. `i2c-1 0x68 register 0x75 (WHO_AM_I)` or `file.csv:12`.
    public var subject: String
    /// What happened and what to do about it.
    public var detail: String

    public init(_ kind: Kind, subject: String, detail: String) {
        self.kind = kind
        self.subject = subject
        self.detail = detail
    }

    public var description: String { "\(subject): \(kind.rawValue): \(detail)" }
}
