import EdgeMotion
import Messaging
import MotionCore

/// Encodes a batch of device-motion states as the `motion` JSON payload (see docs/topics.md).
/// One object per state: attitude (quaternion scalar first + Core Motion roll/pitch/yaw in rad),
/// gravity and user acceleration (g), bias-corrected rotation rate (rad/s), heading (degrees,
/// −1 when unavailable), calibrated magnetic field (µT) with its accuracy, and filter flags.
/// `frame` (`fusion.output_frame`) re-expresses attitude, Euler angles and every device-frame
/// vector in ENU or NED axes (`OutputFrame`); the header then says `"output_frame"`.
package enum MotionBatchEncoder {
    package static func encode(_ motion: Span<DeviceMotion>, sequence: UInt64, interval: Double,
                       clock: WallClockMapping, frame: OutputFrame = .coreMotion, into w: inout JSONWriter) {
        w.reset()
        guard !motion.isEmpty else { return }
        let t0 = motion[0].timestamp
        let t0Nanos = UInt64((t0 * 1e9).rounded())
        w.beginObject()
        w.field("seq", sequence)
        w.field("frame", frameName(motion[0].referenceFrame))
        if frame != .coreMotion { w.field("output_frame", frame.rawValue) }
        w.field("n", motion.count)
        w.field("interval_s", interval, fractionDigits: 9)
        w.field("t0_mono_ns", t0Nanos)
        w.field("t0_utc_us", clock.utcNanos(monotonic: t0Nanos) / 1000)
        w.key("samples")
        w.beginArray()
        for i in motion.indices {
            let m = motion[i]
            // One cursor run per state, its constant structure spelled out as trusted fragments:
            // the same bytes as key/beginArray/endArray calls, without a capacity check and an
            // escaping scan per token.
            w.withCursor(reserving: Self.maximumStateBytes) { c in
                c.beginObject()
                c.fragment("\"dt_us\":")
                c.value(Int64(((m.timestamp - t0) * 1e6).rounded()))
                let q = frame.attitude(m.attitude.quaternion)
                let euler = frame.eulerAngles(q)
                c.fragment(",\"quaternion\":[", depthChange: 1)
                c.value(q.w, fractionDigits: 7); c.value(q.x, fractionDigits: 7)
                c.value(q.y, fractionDigits: 7); c.value(q.z, fractionDigits: 7)
                c.fragment("],\"roll\":", depthChange: -1)
                c.value(euler.roll, fractionDigits: 6)
                c.fragment(",\"pitch\":")
                c.value(euler.pitch, fractionDigits: 6)
                c.fragment(",\"yaw\":")
                c.value(euler.yaw, fractionDigits: 6)
                c.fragment(",\"gravity\":[", depthChange: 1)
                values(&c, frame.vector(m.gravity.vector), 6)
                c.fragment("],\"user_acceleration\":[")
                values(&c, frame.vector(m.userAcceleration.vector), 6)
                c.fragment("],\"rotation_rate\":[")
                values(&c, frame.vector(m.rotationRate.vector), 6)
                c.fragment("],\"heading\":", depthChange: -1)
                c.value(m.heading, fractionDigits: 2)
                c.fragment(",\"magnetic_field\":[", depthChange: 1)
                values(&c, frame.vector(m.magneticField.field.vector), 3)
                switch m.magneticField.accuracy {
                case .uncalibrated: c.fragment("],\"magnetic_accuracy\":\"uncalibrated\"", depthChange: -1)
                case .low: c.fragment("],\"magnetic_accuracy\":\"low\"", depthChange: -1)
                case .medium: c.fragment("],\"magnetic_accuracy\":\"medium\"", depthChange: -1)
                case .high: c.fragment("],\"magnetic_accuracy\":\"high\"", depthChange: -1)
                }
                c.fragment(m.restDetected ? ",\"rest\":true" : ",\"rest\":false")
                c.fragment(m.magneticDisturbance ? ",\"magnetic_disturbance\":true" : ",\"magnetic_disturbance\":false")
                c.fragment(",\"gyro_bias\":[", depthChange: 1)
                values(&c, frame.vector(m.gyroBias), 6)
                c.fragment("]}", endsWithValue: true, depthChange: -2)
            }
        }
        w.endArray()
        w.endObject()
    }

    /// Upper bound of one state's bytes: 30 numbers and about 250 bytes of structure.
    static let maximumStateBytes = 30 * JSONCursor.maximumNumberLength + 512

    @inline(__always)
    private static func values(_ c: inout JSONCursor, _ v: Vector3, _ digits: Int) {
        c.value(v.x, fractionDigits: digits)
        c.value(v.y, fractionDigits: digits)
        c.value(v.z, fractionDigits: digits)
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
