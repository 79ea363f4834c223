import EdgeMotion
import Messaging
import MotionCore

/// Encodes one batch of raw samples as the `sensor/<name>` JSON payload (see docs/topics.md):
///
/// ```json
/// {"seq":42,"sensor":"accelerometer","unit":"g","frame":"sensor","n":10,"interval_s":0.01,
///  "t0_mono_ns":123456789000,"t0_utc_us":1764491426123456,"first_sample":4200,
///  "dt_us":[0,10000,…],"x":[…],"y":[…],"z":[…]}
/// ```
/// Columns rather than objects keep high-rate batches compact. `dt_us` are the offsets of each
/// sample's own (hardware) timestamp from the first, so timing jitter is preserved exactly.
/// Writes into the caller's preallocated `JSONWriter`: no allocation in steady state.
package enum SensorBatchEncoder {
    package static func encode(_ samples: Span<IMUSample>, stream: SensorStream, sequence: UInt64, interval: Double,
                       clock: WallClockMapping, into w: inout JSONWriter) {
        w.reset()
        guard !samples.isEmpty else { return }
        let first = samples[0]
        w.beginObject()
        w.field("seq", sequence)
        switch stream {
        case .accelerometer:
            w.field("sensor", "accelerometer" as StaticString)
            w.field("unit", "g" as StaticString)
        case .gyroscope:
            w.field("sensor", "gyroscope" as StaticString)
            w.field("unit", "rad/s" as StaticString)
        case .magnetometer:
            w.field("sensor", "magnetometer" as StaticString)
            w.field("unit", "uT" as StaticString)
        }
        w.field("frame", "sensor" as StaticString)
        w.field("n", samples.count)
        w.field("interval_s", interval, fractionDigits: 9)
        w.field("t0_mono_ns", first.timestampNanos)
        w.field("t0_utc_us", clock.utcNanos(monotonic: first.timestampNanos) / 1000)
        w.field("first_sample", first.sequence)
        w.key("dt_us")
        w.beginArray()
        // Each column in one cursor run (one capacity check per column, not per number).
        w.withCursor(reserving: samples.count * JSONCursor.maximumNumberLength) { c in
            for i in samples.indices {
                c.value(Int64((samples[i].timestampNanos &- first.timestampNanos) / 1000))
            }
        }
        w.endArray()
        let digits = stream == .magnetometer ? 3 : 6
        for axis in 0..<3 {
            switch axis {
            case 0: w.key("x")
            case 1: w.key("y")
            default: w.key("z")
            }
            w.beginArray()
            w.withCursor(reserving: samples.count * JSONCursor.maximumNumberLength) { c in
                for i in samples.indices {
                    let v = value(of: samples[i], stream: stream)
                    c.value(axis == 0 ? v.x : axis == 1 ? v.y : v.z, fractionDigits: digits)
                }
            }
            w.endArray()
        }
        w.endObject()
    }

    /// The published value of a sample: Core Motion's units and signs.
    @inline(__always)
    static func value(of s: IMUSample, stream: SensorStream) -> Vector3 {
        switch stream {
        case .accelerometer: Acceleration(specificForce: s.specificForce).vector
        case .gyroscope: s.rotationRate
        case .magnetometer: s.magneticField
        }
    }
}
