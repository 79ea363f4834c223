import EdgeMotion
import Messaging
import MotionCore

/// JSON for `query/recordings` answers: a recording file's summary (`mode: files`) and one
/// recorded sample (`mode: samples`).
///
/// ```json
/// {"name":"rec-20261130T093113Z-232011.emr","start_utc":1764495073.037,"end_utc":1764496273.032,
///  "duration_s":1199.995,"samples":240000,"rate_hz":200,"measured_rate_hz":200.0,"bytes":10491368,
///  "sensors":["accelerometer","gyroscope","magnetometer"],"source":"iio:mpu9250",
///  "being_written":false,"torn_tail":false,
///  "damaged_blocks":0,"unreadable":false}
/// {"t_utc_us":1764495073037000,"t_mono_ns":5261538227000,"seq":8200,
///  "acceleration":[0.012,-0.174,-0.981],"rotation_rate":[0.001,0,-0.002],"magnetic_field":[21.5,-3.25,-40.125]}
/// ```
/// Samples use the MQTT topics' units (docs/topics.md): acceleration in g with Core Motion's sign
/// (`CMRecordedAccelerometerData.acceleration`), raw rotation rate rad/s, raw magnetic field µT,
/// sensor frame; a sensor the sample lacks is left out. 6 decimals for g and rad/s, 3 for µT.
enum RecordingPayload {
    static func write(_ f: RecordingFileInfo, into w: inout JSONWriter) {
        w.beginObject()
        w.field("name", f.name)
        optionalSeconds(&w, "start_utc", f.firstUTCNanos)
        optionalSeconds(&w, "end_utc", f.lastUTCNanos)
        if let a = f.firstUTCNanos, let b = f.lastUTCNanos { w.field("duration_s", Double(b - a) * 1e-9, fractionDigits: 3) }
        w.field("samples", f.samples)
        w.key("rate_hz")
        if let r = f.rateHz { w.value(r, fractionDigits: 3) } else { w.null() }
        w.key("measured_rate_hz")
        if let r = f.measuredRateHz { w.value(r, fractionDigits: 3) } else { w.null() }
        w.field("bytes", f.bytes)
        w.key("sensors")
        w.beginArray()
        for s in f.sensors { w.string(s) }
        w.endArray()
        if let s = f.source { w.field("source", s) }
        w.field("being_written", f.isBeingWritten)
        // The block being written may look torn to a concurrent reader; that is not damage.
        w.field("torn_tail", f.tornTail && !f.isBeingWritten)
        // Blocks inside the file that failed their checks and were skipped; an unreadable file
        // (damaged header, not a recording) has no samples.
        w.field("damaged_blocks", f.damagedBlocks)
        w.field("unreadable", f.unreadable)
        w.endObject()
    }

    /// The `units` and `frame` fields of a samples answer.
    static func writeUnits(into w: inout JSONWriter) {
        w.key("units")
        w.beginObject()
        w.field("acceleration", "g (Core Motion sign: z = -1 lying face up at rest)")
        w.field("rotation_rate", "rad/s (raw, not bias-corrected)")
        w.field("magnetic_field", "uT (raw, uncalibrated)")
        w.field("t_utc_us", "microseconds since 1970-01-01 UTC")
        w.field("t_mono_ns", "CLOCK_MONOTONIC nanoseconds of the recording device")
        w.endObject()
        w.field("frame", "sensor")
    }

    static func write(_ r: RecordedSample, into w: inout JSONWriter) {
        let s = r.sample
        w.beginObject()
        w.field("t_utc_us", r.utcNanos / 1000)
        w.field("t_mono_ns", s.timestampNanos)
        w.field("seq", s.sequence)
        if s.contents.contains(.accelerometer) {
            vector(&w, "acceleration", Acceleration(specificForce: s.specificForce).vector, digits: 6)
        }
        if s.contents.contains(.gyroscope) { vector(&w, "rotation_rate", s.rotationRate, digits: 6) }
        if s.contents.contains(.magnetometer) { vector(&w, "magnetic_field", s.magneticField, digits: 3) }
        w.endObject()
    }

    private static func vector(_ w: inout JSONWriter, _ key: StaticString, _ v: Vector3, digits: Int) {
        w.key(key)
        w.beginArray()
        w.value(v.x, fractionDigits: digits)
        w.value(v.y, fractionDigits: digits)
        w.value(v.z, fractionDigits: digits)
        w.endArray()
    }

    private static func optionalSeconds(_ w: inout JSONWriter, _ key: StaticString, _ nanos: Int64?) {
        w.key(key)
        if let n = nanos { w.value(Double(n) * 1e-9, fractionDigits: 6) } else { w.null() }
    }
}
