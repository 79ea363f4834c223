import Foundation
internal import EdgeMotion
internal import MotionCore
internal import Sensors

/// The device's orientation relative to the reference frame of the updates it came with.
///
/// Euler angles (radians): `pitch` about the device x axis (top edge up is positive), `roll`
/// about the device y axis (right edge down is positive), `yaw` about the vertical
/// (counter-clockwise seen from above is positive). In `xMagneticNorthZVertical` a device lying
/// flat with its x axis to north has the identity attitude.
///
/// `multiply(byInverseOf:)` mutates the object, as on iOS; the state is behind a lock, so
/// sharing one across threads is safe (hence `@unchecked Sendable`).
open class CMAttitude: NSObject, NSCopying, @unchecked Sendable {
    private let lock = NSLock()
    private var value: Attitude

    init(_ a: Attitude) { value = a; super.init() }
    public override init() { value = Attitude(quaternion: .identity); super.init() }

    private var current: Attitude { lock.lock(); defer { lock.unlock() }; return value }

    open var roll: Double { current.roll }
    open var pitch: Double { current.pitch }
    open var yaw: Double { current.yaw }
    open var rotationMatrix: CMRotationMatrix { CMRotationMatrix(current.rotationMatrix) }
    open var quaternion: CMQuaternion {
        let q = current.quaternion
        return CMQuaternion(x: q.x, y: q.y, z: q.z, w: q.w)
    }

    /// Makes this attitude relative to `attitude` (iOS's way to "zero" on a reference pose).
    open func multiply(byInverseOf attitude: CMAttitude) {
        let reference = attitude.current
        lock.lock()
        value = value.relative(to: reference)
        lock.unlock()
    }

    open func copy(with zone: NSZone? = nil) -> Any { CMAttitude(current) }

    open override var description: String {
        "CMAttitude roll \(roll) pitch \(pitch) yaw \(yaw)"
    }
}
