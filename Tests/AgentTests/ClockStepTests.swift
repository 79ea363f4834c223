import Foundation
import Testing
@testable import Agent
import Messaging
import MotionCore

/// Steps of the realtime clock against the monotonic one, through the injected paired reading
/// (the clock seam of `MQTTPublisher.remapClockIfStepped`). Numbers written by hand: the agent
/// started at monotonic 100 s with realtime 1000 s (offset 900 s).
@Suite struct ClockStepTests {
    let s: UInt64 = 1_000_000_000
    let day: UInt64 = 86_400 * 1_000_000_000

    func publisher() throws -> (MQTTPublisher, Outbox) {
        let outbox = try Outbox(settings: OutboxSettings())
        let route = MQTTPublisher.StreamRoute(topic: "t/a", qos: 0, retain: false)
        return (MQTTPublisher(outbox: outbox, routes: [route, route, route, route], clock: WallClockMapping(offsetNanos: 900_000_000_000)), outbox)
    }

    @Test func clocksThatAgreeWithinASecondAreNotAStep() throws {
        let (p, outbox) = try publisher()
        defer { outbox.stop() }
        #expect(p.remapClockIfStepped(realtimeNanos: 1010 * s + 400_000_000, monotonicNanos: 110 * s) == nil)
        #expect(p.currentClock.utcNanos(monotonic: 110 * s) == Int64(1010 * s))
    }

    /// NTP's first sync on a board without an RTC: +30 days. From then on UTC is the right one.
    @Test func aForwardStepRemapsUTCAtOnce() throws {
        let (p, outbox) = try publisher()
        defer { outbox.stop() }
        let step = try #require(p.remapClockIfStepped(realtimeNanos: 1020 * s + 30 * day, monotonicNanos: 120 * s))
        #expect(step.nanos == Int64(30 * day))
        #expect(p.currentClock.utcNanos(monotonic: 121 * s) == Int64(1021 * s + 30 * day))
    }

    /// A backward step of 60 s: UTC holds at the last value until the new clock passes it, so a
    /// sequence of samples stamped across the step never goes back in time.
    @Test func aBackwardStepNeverReordersSamples() throws {
        let (p, outbox) = try publisher()
        defer { outbox.stop() }
        let before = p.currentClock
        let step = try #require(p.remapClockIfStepped(realtimeNanos: 1100 * s - 60 * s, monotonicNanos: 200 * s))
        #expect(step.nanos == -60_000_000_000)
        let after = p.currentClock
        #expect(after.utcNanos(monotonic: 230 * s) == Int64(1100 * s), "held at the last mapped value")
        #expect(after.utcNanos(monotonic: 300 * s) == Int64(1140 * s), "then the new clock: 300 + 900 − 60")
        // Samples 199.9 s … 320 s, the first ones mapped before the step.
        var last = Int64.min
        for tenth in 1999...3200 {
            let mono = UInt64(tenth) * 100_000_000
            let utc = mono < 200 * s ? before.utcNanos(monotonic: mono) : after.utcNanos(monotonic: mono)
            #expect(utc >= last, "sample at \(mono) went back in time")
            last = utc
        }
    }

    @Test func theEventNamesTheStepSize() throws {
        let step = try #require(WallClockMapping(offsetNanos: 0).remapped(realtimeNanos: 1000 * s, monotonicNanos: 1060 * s))
        let text = String(decoding: ClockStepEvent.payload(step: step, sequence: EventSequence(run: "00000000000000aa"), realtimeNanos: 1000 * s), as: UTF8.self)
        #expect(text.hasPrefix(#"{"seq":0,"run":"00000000000000aa","event":"clockStepped""#), "numbered like every event topic: \(text)")
        #expect(text.contains(#""step_s":-60,"#) || text.contains(#""step_s":-60.0"#), "\(text)")
        #expect(text.contains(#""time_utc_us":1000000000"#))
    }
}
