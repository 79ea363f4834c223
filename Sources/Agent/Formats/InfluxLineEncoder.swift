import EdgeMotion
import MotionCore

/// Encodes batches as InfluxDB line protocol, one line per sample (see docs/influx.md):
///
/// ```
/// edgemotion_imu,device=board-7,sensor=accelerometer,unit=g x=0.012,y=-0.174,z=-0.981,sample=8200i 1764491426123456000
/// edgemotion_motion,device=board-7,frame=xArbitraryCorrectedZVertical qw=0.98,qx=0,…,heading=271.3,rest=true 1764491426143456000
/// ```
/// Timestamps are each sample's own (hardware) time mapped to UTC nanoseconds. Values use the
/// same units and precision as the JSON payloads. No allocation in steady state.
enum InfluxLineEncoder {
    /// `edgemotion_imu,device=<id>,sensor=<name>,unit=<unit>` for a raw stream.
    static func sensorPrefix(deviceID: String, stream: SensorStream) -> [UInt8] {
        let (name, unit): (String, String) = switch stream {
        case .accelerometer: ("accelerometer", "g")
        case .gyroscope: ("gyroscope", "rad/s")
        case .magnetometer: ("magnetometer", "uT")
        }
        return Array("edgemotion_imu,device=".utf8) + LineProtocolWriter.escapeTagValue(deviceID)
            + Array(",sensor=\(name),unit=\(unit)".utf8)
    }

    /// `edgemotion_motion,device=<id>` (the frame tag is added per batch).
    static func motionPrefix(deviceID: String) -> [UInt8] {
        Array("edgemotion_motion,device=".utf8) + LineProtocolWriter.escapeTagValue(deviceID)
    }

    static func encode(_ samples: Span<IMUSample>, stream: SensorStream, prefix: [UInt8], clock: WallClockMapping,
                       into w: inout LineProtocolWriter) {
        w.reset()
        let digits = stream == .magnetometer ? 3 : 6
        for i in samples.indices {
            let s = samples[i]
            let v = SensorBatchEncoder.value(of: s, stream: stream)
            w.raw(prefix)
            w.beginFields()
            w.field("x", v.x, fractionDigits: digits)
            w.field("y", v.y, fractionDigits: digits)
            w.field("z", v.z, fractionDigits: digits)
            w.field("sample", Int64(bitPattern: s.sequence))
            w.endLine(timestampNanos: clock.utcNanos(monotonic: s.timestampNanos))
        }
    }

    static func encode(_ motion: Span<DeviceMotion>, prefix: [UInt8], clock: WallClockMapping,
                       frame: OutputFrame = .coreMotion, into w: inout LineProtocolWriter) {
        w.reset()
        for i in motion.indices {
            let m = motion[i]
            w.raw(prefix)
            w.tag("frame", MotionBatchEncoder.frameName(m.referenceFrame))
            switch frame {
            case .coreMotion: break
            case .enu: w.tag("output_frame", "enu")
            case .ned: w.tag("output_frame", "ned")
            }
            w.beginFields()
            let q = frame.attitude(m.attitude.quaternion)
            let e = frame.eulerAngles(q)
            w.field("qw", q.w, fractionDigits: 7); w.field("qx", q.x, fractionDigits: 7)
            w.field("qy", q.y, fractionDigits: 7); w.field("qz", q.z, fractionDigits: 7)
            w.field("roll", e.roll); w.field("pitch", e.pitch); w.field("yaw", e.yaw)
            let g = frame.vector(m.gravity.vector)
            w.field("gravity_x", g.x); w.field("gravity_y", g.y); w.field("gravity_z", g.z)
            let ua = frame.vector(m.userAcceleration.vector)
            w.field("user_acceleration_x", ua.x); w.field("user_acceleration_y", ua.y); w.field("user_acceleration_z", ua.z)
            let r = frame.vector(m.rotationRate.vector)
            w.field("rotation_rate_x", r.x); w.field("rotation_rate_y", r.y); w.field("rotation_rate_z", r.z)
            if m.heading >= 0 { w.field("heading", m.heading, fractionDigits: 2) }
            w.field("rest", m.restDetected)
            w.field("magnetic_disturbance", m.magneticDisturbance)
            w.endLine(timestampNanos: clock.utcNanos(monotonic: UInt64((m.timestamp * 1e9).rounded())))
        }
    }
}
