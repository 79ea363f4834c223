import Foundation
internal import EdgeMotion

/// The domain of every `NSError` this module hands to a handler.
public let CMErrorDomain: String = "CMErrorDomain"

/// Core Motion's error codes (the `code` of an `NSError` in `CMErrorDomain`).
public struct CMError: RawRepresentable, Equatable, Hashable, Sendable {
    public var rawValue: UInt32
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// No error.
public var CMErrorNULL: CMError { CMError(100) }
/// A north frame has no heading yet: move the device (figure-eight) so the field is observable.
public var CMErrorDeviceRequiresMovement: CMError { CMError(101) }
/// `xTrueNorthZVertical` without a known location: attitude is referenced to magnetic north.
public var CMErrorTrueNorthNotAvailable: CMError { CMError(102) }
public var CMErrorUnknown: CMError { CMError(103) }
public var CMErrorMotionActivityNotAvailable: CMError { CMError(104) }
/// Never raised on Linux (no authorization prompt).
public var CMErrorMotionActivityNotAuthorized: CMError { CMError(105) }
/// Never raised on Linux (no entitlements).
public var CMErrorMotionActivityNotEntitled: CMError { CMError(106) }
public var CMErrorInvalidParameter: CMError { CMError(107) }
public var CMErrorInvalidAction: CMError { CMError(108) }
public var CMErrorNotAvailable: CMError { CMError(109) }
/// Never raised on Linux.
public var CMErrorNotEntitled: CMError { CMError(110) }
/// Never raised on Linux.
public var CMErrorNotAuthorized: CMError { CMError(111) }
public var CMErrorNilData: CMError { CMError(112) }
public var CMErrorSize: CMError { CMError(113) }

/// The `userInfo` key holding EdgeMotion's own code when it has no Core Motion equivalent
/// (200: the source could not start, reported as `CMErrorNotAvailable`; 201: the running source
/// failed and is retried, reported as `CMErrorUnknown`).
public let EdgeMotionErrorCodeKey: String = "EdgeMotionErrorCode"

extension MotionError {
    /// The `NSError` a Core Motion handler receives: `CMErrorDomain`, the `CMError` code, and the
    /// detail (what happened, what to do) as the localized description.
    var nsError: NSError {
        var info: [String: Any] = [:]
        if !detail.isEmpty { info[NSLocalizedDescriptionKey] = detail }
        let code: Int
        switch self.code {
        case .sourceStartFailed:
            code = Int(CMErrorNotAvailable.rawValue)
            info[EdgeMotionErrorCodeKey] = self.code.rawValue
        case .sourceFailed:
            code = Int(CMErrorUnknown.rawValue)
            info[EdgeMotionErrorCodeKey] = self.code.rawValue
        default:
            code = self.code.rawValue
        }
        return NSError(domain: CMErrorDomain, code: code, userInfo: info)
    }
}
