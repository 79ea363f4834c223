import Messaging
import MotionCore

/// JSON for one motion event (`events/motion` and `edgemotion events` lines):
///
/// ```json
/// {"type":"free_fall","t_s":12.351,"onset_s":12.001,"duration_s":0.35,"drop_height_m":0.601}
/// {"type":"tilt_threshold","t_s":40.2,"onset_s":39.2,"name":"door","state":"open","on":true,"tilt_deg":88.1}
/// {"type":"orientation","t_s":7.5,"onset_s":7.0,"face":"portrait","previous":"face_up"}
/// ```
/// Only the fields that apply to the type are written (docs/topics.md lists them per type). The
/// agent adds `seq` and `timestamp_utc`.
enum MotionEventPayload {
    /// Writes the fields of `e` (no braces) into an open object.
    static func writeFields(_ e: MotionEvent, thresholds: [TiltThreshold], into w: inout JSONWriter) {
        w.field("type", e.type.name)
        w.field("t_s", e.time, fractionDigits: 3)
        w.field("onset_s", e.onset, fractionDigits: 3)
        switch e.type {
        case .shock:
            w.field("peak_g", e.peak, fractionDigits: 3)
            w.field("duration_s", e.duration, fractionDigits: 4)
        case .freeFall:
            w.field("duration_s", e.duration, fractionDigits: 4)
            w.field("drop_height_m", e.dropHeight, fractionDigits: 3)
        case .tap:
            if !e.peak.isNaN { w.field("peak_g", e.peak, fractionDigits: 3) }       // a chip tap has no peak
        case .doubleTap:
            if !e.peak.isNaN { w.field("peak_g", e.peak, fractionDigits: 3) }
            if !e.duration.isNaN { w.field("gap_s", e.duration, fractionDigits: 3) }
        case .stationary:
            w.field("still_s", e.duration, fractionDigits: 3)
        case .motion, .significantMotion:
            break
        case .tiltThreshold:
            if e.index < thresholds.count {
                let t = thresholds[e.index]
                w.field("name", t.name)
                w.field("state", e.state ? t.onName : t.offName)
            }
            w.field("on", e.state)
            w.field("tilt_deg", e.angle, fractionDigits: 2)
        case .tamper:
            w.field("tilt_deg", e.angle, fractionDigits: 2)
        case .fall:
            w.field("peak_g", e.peak, fractionDigits: 3)
            w.field("tilt_deg", e.angle, fractionDigits: 2)
        case .vibrationStart, .vibrationStop:
            w.field("rms_ms2", e.peak, fractionDigits: 4)
        case .vibrationChanged:
            w.field("rms_ms2", e.peak, fractionDigits: 4)
            w.field("ratio", e.ratio, fractionDigits: 3)
        case .orientation:
            w.field("face", e.face.name)
            w.field("previous", e.previousFace.name)
        }
        if e.fromChip { w.field("source", "chip") }         // the chip's own engine decided (motion, free_fall, tap, double_tap)
    }

    /// The retained `state/vibration` payload:
    /// `{"rms_ms2":0.35,"peak_ms2":0.5,"dominant_hz":25.0,"running":true,"bands":[{"name":"drum","rms_ms2":0.35}]}`.
    static func writeVibration(_ r: VibrationReading, bands: [VibrationBand], into w: inout JSONWriter) {
        w.beginObject()
        w.field("rms_ms2", r.rms, fractionDigits: 4)
        w.field("peak_ms2", r.peak, fractionDigits: 4)
        w.field("dominant_hz", r.dominantFrequency, fractionDigits: 2)
        w.field("running", r.running)
        if r.bandCount > 0 {
            w.key("bands")
            w.beginArray()
            for i in 0..<Swift.min(r.bandCount, bands.count) {
                w.beginObject()
                w.field("name", bands[i].name)
                w.field("rms_ms2", r.bands[i], fractionDigits: 4)
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
    }

    /// The `vibration/spectrum` payload: `{"timestamp_utc":…,"rate_hz":100.0,"length":256,
    /// "resolution_hz":0.391,"edges_hz":[2.0,…,50.0],"rms_ms2":[…],"peak_hz":25.0,"total_rms_ms2":1.4}`
    /// (`rms_ms2[i]` is the bin from `edges_hz[i]` to `edges_hz[i+1]`).
    static func writeSpectrum(_ s: VibrationSpectrum, utcOffset: Double, into w: inout JSONWriter) {
        w.beginObject()
        w.field("timestamp_utc", s.time + utcOffset, fractionDigits: 3)
        w.field("rate_hz", s.sampleRate, fractionDigits: 3)
        w.field("length", s.length)
        w.field("resolution_hz", s.resolution, fractionDigits: 4)
        w.key("edges_hz")
        w.beginArray()
        for e in s.edges { w.value(e, fractionDigits: 3) }
        w.endArray()
        w.key("rms_ms2")
        w.beginArray()
        for r in s.rms { w.value(r, fractionDigits: 5) }
        w.endArray()
        w.field("peak_hz", s.peakFrequency, fractionDigits: 3)
        w.field("total_rms_ms2", s.totalRMS, fractionDigits: 5)
        w.endObject()
    }
}
