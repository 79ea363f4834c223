import Messaging
import MotionCore

/// The `clockStepped` event on `<prefix>/events/status` (docs/topics.md): the realtime clock
/// moved against the monotonic one by `step_s` seconds, and UTC in payloads follows the new
/// clock from `time_utc_us` on (after a backward step it holds until the new clock catches up,
/// so no sample goes back in time).
enum ClockStepEvent {
    static func payload(step: WallClockMapping.Step, sequence: EventSequence,
                        realtimeNanos: UInt64 = MonotonicClock.realtimeNanos()) -> [UInt8] {
        var w = JSONWriter(capacity: 320)
        sequence.beginEvent(&w)
        w.field("event", "clockStepped")
        w.field("step_s", Double(step.nanos) / 1e9, fractionDigits: 3)
        w.field("time_utc_us", Int64(bitPattern: realtimeNanos / 1000))
        w.field("reason", step.nanos > 0
            ? "the wall clock jumped forward (e.g. NTP's first sync); UTC in payloads follows it from now on"
            : "the wall clock went back; UTC in payloads holds until the new clock passes the last value, so samples never go back in time")
        w.endObject()
        return w.buffer
    }
}
