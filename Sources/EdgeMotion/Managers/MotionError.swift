/// Core Motion's `CMError`, with the same codes and meanings, plus EdgeMotion's own source
/// failures. Delivered to handlers once per condition, never per sample.
///
/// Compare by code: `error == .deviceRequiresMovement`.
public struct MotionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `CMErrorNULL` … `CMErrorSize` keep Core Motion's raw values (100 …); EdgeMotion's own
    /// codes start at 200.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// No error (`CMErrorNULL`).
        case null = 100
        /// The magnetometer cannot give a heading yet: move the device (figure-eight) so the
        /// field becomes observable (`CMErrorDeviceRequiresMovement`).
        case deviceRequiresMovement = 101
        /// `xTrueNorthZVertical` needs the magnetic declination at a known location: set
        /// `fusion.latitude`/`longitude` (or `PipelineConfiguration.declination`)
        /// (`CMErrorTrueNorthNotAvailable`). Attitude falls back to magnetic north.
        case trueNorthNotAvailable = 102
        /// Anything else (`CMErrorUnknown`).
        case unknown = 103
        /// No activity detector on this build or source (`CMErrorMotionActivityNotAvailable`).
        case motionActivityNotAvailable = 104
        /// `CMErrorMotionActivityNotAuthorized`; never raised on Linux (no authorization prompt).
        case motionActivityNotAuthorized = 105
        /// `CMErrorMotionActivityNotEntitled`; never raised on Linux (no entitlements).
        case motionActivityNotEntitled = 106
        /// A parameter was out of range (`CMErrorInvalidParameter`).
        case invalidParameter = 107
        /// The call is not valid now (`CMErrorInvalidAction`).
        case invalidAction = 108
        /// The sensor or feature is not present on this source (`CMErrorNotAvailable`).
        case notAvailable = 109
        /// `CMErrorNotEntitled`; never raised on Linux.
        case notEntitled = 110
        /// `CMErrorNotAuthorized`; never raised on Linux.
        case notAuthorized = 111
        /// No data for the request (`CMErrorNilData`).
        case nilData = 112
        /// The request was too large (`CMErrorSize`).
        case size = 113
        /// The source could not be started (device missing, permission, bad file).
        case sourceStartFailed = 200
        /// The running source failed; the pipeline retries with backoff (non-fatal: updates
        /// resume when it recovers).
        case sourceFailed = 201
    }

    public var code: Code
    /// What happened and what to do, naming the source, file or setting involved.
    public var detail: String

    public init(_ code: Code, detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? "MotionError.\(code)" : "MotionError.\(code): \(detail)" }

    /// The domain `error as NSError` gets: `"CMErrorDomain"` (Core Motion's `CMErrorDomain`)
    /// for the `CMError` codes 100–113, `"EdgeMotion.MotionError"` for EdgeMotion's own (200…).
    public var _domain: String { code.rawValue < 200 ? "CMErrorDomain" : "EdgeMotion.MotionError" }
    /// The code `error as NSError` gets: the `CMError` raw value (`deviceRequiresMovement` 101,
    /// `trueNorthNotAvailable` 102, …), never Swift's default of 1.
    public var _code: Int { code.rawValue }

    public static func == (a: MotionError, b: MotionError) -> Bool { a.code == b.code }
    public func hash(into h: inout Hasher) { h.combine(code) }

    public static let deviceRequiresMovement = MotionError(.deviceRequiresMovement)
    public static let trueNorthNotAvailable = MotionError(.trueNorthNotAvailable)
    public static let unknown = MotionError(.unknown)
    public static let motionActivityNotAvailable = MotionError(.motionActivityNotAvailable)
    public static let invalidParameter = MotionError(.invalidParameter)
    public static let invalidAction = MotionError(.invalidAction)
    public static let notAvailable = MotionError(.notAvailable)
    public static let nilData = MotionError(.nilData)
    public static let sourceStartFailed = MotionError(.sourceStartFailed)
    public static let sourceFailed = MotionError(.sourceFailed)
}
