import EdgeMotion
import Messaging
import MotionCore

/// JSON for an activity (the retained `activity` topic and history query items):
///
/// ```json
/// {"activity":"automotive","stationary":true,"walking":false,"running":false,"cycling":false,
///  "automotive":true,"unknown":false,"confidence":"high","start_utc":1764491426.5,
///  "previous_duration_s":312.0}
/// ```
/// `activity` is the single primary class (automotive wins over stationary, as the mode of
/// transport); the six flags are Core Motion's and may overlap.
enum ActivityPayload {
    static func write(_ a: MotionActivity, startUTC: Double, into w: inout JSONWriter) {
        w.beginObject()
        w.field("activity", a.primary.name)
        w.field("stationary", a.stationary)
        w.field("walking", a.walking)
        w.field("running", a.running)
        w.field("cycling", a.cycling)
        w.field("automotive", a.automotive)
        w.field("unknown", a.unknown)
        w.field("confidence", a.confidence.name)
        w.field("start_utc", startUTC, fractionDigits: 3)
        w.field("previous_duration_s", a.previousDuration, fractionDigits: 3)
        w.endObject()
    }

    static func write(_ p: PedometerRecord, into w: inout JSONWriter) {
        w.beginObject()
        w.field("start_utc", p.start, fractionDigits: 3)
        w.field("end_utc", p.end, fractionDigits: 3)
        w.field("steps", p.steps)
        w.field("distance_m", p.distance, fractionDigits: 2)
        if let up = p.floorsAscended { w.field("floors_ascended", up) }
        if let down = p.floorsDescended { w.field("floors_descended", down) }
        w.endObject()
    }
}
