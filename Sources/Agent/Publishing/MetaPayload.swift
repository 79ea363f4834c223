import EdgeMotion
import Messaging
import MotionCore
import Sensors

/// The retained `meta` document: what this agent is and what it actually runs — the effective
/// rates after capping to the hardware (Core Motion's update-interval caps), units and frames,
/// the output frame (`fusion.output_frame`) and the applied chip-to-board rotations (`mount`:
/// row-major `v_board = R · v_chip` matrices and where they come from: `config`, `learned`,
/// `identity`; republished when `cmd/mount` changes them).
enum MetaPayload {
    static func encode(deviceID: String, report: PipelineStartReport, configuration: AgentConfiguration,
                       availableFrames: [AttitudeReferenceFrame], calibration: String = "none",
                       mount: IMUMount = .identity, mountOrigin: MountSettings.Origin = .identity) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.field("schema", 1)
        w.field("agent", "edgemotion")
        w.field("version", CommandLineTool.version)
        w.field("device_id", deviceID)
        w.key("source")
        w.beginObject()
        w.field("name", report.source.name)
        w.field("type", configuration.source.kind.rawValue)
        w.field("timing", report.sourceConfiguration.timing.rawValue)
        w.field("requested_rate_hz", configuration.source.rate, fractionDigits: 3)
        w.field("rate_hz", report.sourceConfiguration.rate, fractionDigits: 3)
        w.field("max_rate_hz", report.source.maximumRate, fractionDigits: 3)
        w.key("sensors")
        w.beginArray()
        if report.source.sensors.contains(.accelerometer) { w.string("accelerometer" as StaticString) }
        if report.source.sensors.contains(.gyroscope) { w.string("gyroscope" as StaticString) }
        if report.source.sensors.contains(.magnetometer) { w.string("magnetometer" as StaticString) }
        w.endArray()
        w.endObject()
        w.key("streams")
        w.beginObject()
        for stream in SensorStream.allCases {
            let requested = configuration.streams.settings(for: stream)
            w.key(key(for: stream))
            schedule(&w, report.streams[stream] ?? EffectiveSchedule(.disabled, sourceRate: 0), requested: requested)
        }
        w.key("motion")
        schedule(&w, report.motion, requested: configuration.streams.motion)
        w.endObject()
        w.key("units")
        w.beginObject()
        w.field("acceleration", "g (Core Motion sign: -1 on z lying face up)" as StaticString)
        w.field("rotation_rate", "rad/s" as StaticString)
        w.field("magnetic_field", "uT" as StaticString)
        w.field("angles", "rad" as StaticString)
        w.field("heading", "deg" as StaticString)
        w.endObject()
        w.field("reference_frame", configuration.fusion.referenceFrame.rawValue)
        w.field("output_frame", configuration.fusion.outputFrame.rawValue)
        w.key("mount")
        w.beginObject()
        w.key("accel_gyro"); MountControl.Reply.write(mount.inertial.matrix, into: &w)
        w.key("magnetometer"); MountControl.Reply.write(mount.magnetometer.matrix, into: &w)
        w.field("source", mountOrigin.rawValue)
        w.endObject()
        w.field("true_north_available", availableFrames.contains(.xTrueNorthZVertical))
        if let d = FusionSetup.declination(configuration.fusion) { w.field("declination_deg", d.degrees, fractionDigits: 3) }
        w.field("calibration", calibration)
        w.key("available_reference_frames")
        w.beginArray()
        for f in availableFrames { w.string(f.rawValue) }
        w.endArray()
        w.endObject()
        return w.buffer
    }

    private static func key(for stream: SensorStream) -> StaticString {
        switch stream {
        case .accelerometer: "accelerometer"
        case .gyroscope: "gyroscope"
        case .magnetometer: "magnetometer"
        }
    }

    private static func schedule(_ w: inout JSONWriter, _ s: EffectiveSchedule, requested: StreamSettings) {
        w.beginObject()
        w.field("enabled", s.enabled)
        w.field("requested_rate_hz", requested.rate, fractionDigits: 3)
        w.field("rate_hz", s.rate, fractionDigits: 3)
        w.field("capped", s.capped)
        w.field("batch_size", s.batchSize)
        w.field("qos", requested.qos)
        w.field("retain", requested.retain)
        w.endObject()
    }
}

extension StreamSettingsSet {
    func settings(for stream: SensorStream) -> StreamSettings {
        switch stream {
        case .accelerometer: accelerometer
        case .gyroscope: gyroscope
        case .magnetometer: magnetometer
        }
    }
}
