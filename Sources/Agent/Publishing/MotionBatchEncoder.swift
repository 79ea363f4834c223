import EdgeMotion
import Messaging
import MotionCore

/// Encodes a batch of device-motion states as the `motion` JSON payload (see docs/topics.md).
/// One object per state: attitude (quaternion scalar first + Core Motion roll/pitch/yaw in rad),
/// gravity and user acceleration (g), bias-corrected rotation rate (rad/s), heading (degrees,
/// −1 when unavailable), calibrated magnetic field (µT) with its accuracy, and filter flags.
package enum MotionBatchEncoder {
    package static func encode(_ motion: Span<DeviceMotion>, sequence: UInt64, interval: Double,
                       clock: WallClockMapping, into w: inout JSONWriter) {
        w.reset()
        guard !motion.isEmpty else { return }
        let t0 = motion[0].timestamp
        let t0Nanos = UInt64((t0 * 1e9).rounded())
        w.beginObject()
        w.field("seq", sequence)
        w.field("frame", frameName(motion[0].referenceFrame))
        w.field("n", motion.count)
        w.field("interval_s", interval, fractionDigits: 9)
        w.field("t0_mono_ns", t0Nanos)
        w.field("t0_utc_us", clock.utcNanos(monotonic: t0Nanos) / 1000)
        w.key("samples")
        w.beginArray()
        for i in motion.indices {
            let m = motion[i]
            w.beginObject()
            w.field("dt_us", Int64(((m.timestamp - t0) * 1e6).rounded()))
            let q = m.attitude.quaternion
            w.key("quaternion")
            w.beginArray()
            w.value(q.w, fractionDigits: 7); w.value(q.x, fractionDigits: 7)
            w.value(q.y, fractionDigits: 7); w.value(q.z, fractionDigits: 7)
            w.endArray()
            w.field("roll", m.attitude.roll, fractionDigits: 6)
            w.field("pitch", m.attitude.pitch, fractionDigits: 6)
            w.field("yaw", m.attitude.yaw, fractionDigits: 6)
            vector(&w, "gravity", m.gravity.vector, 6)
            vector(&w, "user_acceleration", m.userAcceleration.vector, 6)
            vector(&w, "rotation_rate", m.rotationRate.vector, 6)
            w.field("heading", m.heading, fractionDigits: 2)
            vector(&w, "magnetic_field", m.magneticField.field.vector, 3)
            w.field("magnetic_accuracy", accuracyName(m.magneticField.accuracy))
            w.field("rest", m.restDetected)
            w.field("magnetic_disturbance", m.magneticDisturbance)
            vector(&w, "gyro_bias", m.gyroBias, 6)
            w.endObject()
        }
        w.endArray()
        w.endObject()
    }

    @inline(__always)
    private static func vector(_ w: inout JSONWriter, _ key: StaticString, _ v: Vector3, _ digits: Int) {
        w.key(key)
        w.beginArray()
        w.value(v.x, fractionDigits: digits)
        w.value(v.y, fractionDigits: digits)
        w.value(v.z, fractionDigits: digits)
        w.endArray()
    }

    static func frameName(_ f: AttitudeReferenceFrame) -> StaticString {
        switch f {
        case .xArbitraryZVertical: "xArbitraryZVertical"
        case .xArbitraryCorrectedZVertical: "xArbitraryCorrectedZVertical"
        case .xMagneticNorthZVertical: "xMagneticNorthZVertical"
        case .xTrueNorthZVertical: "xTrueNorthZVertical"
        }
    }

    static func accuracyName(_ a: MagneticFieldCalibrationAccuracy) -> StaticString {
        switch a {
        case .uncalibrated: "uncalibrated"
        case .low: "low"
        case .medium: "medium"
        case .high: "high"
        }
    }
}
