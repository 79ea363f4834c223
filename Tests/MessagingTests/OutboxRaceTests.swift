import Synchronization
import Testing
import TestSupport
@testable import Messaging

/// The outbox's acknowledgement races and connection changes, driven deterministically through a
/// scripted transport and a manual clock: no broker, no pump thread, no sleeps. Each test puts
/// the outbox in one of the interleavings the real network thread can produce and checks the
/// accounting identity `produced == acknowledged + dropped + queued` per topic.
@Suite(.hangLimit) struct OutboxRaceTests {
    let lost = MQTTConnectionState.connectionLost(MQTTError(.connectionLost, context: "test"), retryIn: .seconds(1))

    func makeOutbox(_ settings: OutboxSettings = OutboxSettings(), clock: ManualClock = ManualClock()) throws -> Outbox {
        try Outbox(settings: settings, clock: clock.clock, runsPump: false)
    }

    func enqueueStream(_ outbox: Outbox, _ handle: Int, qos: Int, bytes: Int = 10) {
        let payload = [UInt8](repeating: 7, count: bytes)
        payload.withUnsafeBytes { outbox.enqueue(stream: handle, payload: $0, qos: qos, retain: false, wake: false) }
    }

    @Test func anAcknowledgementThatOvertakesThePublishIsCountedOnce() throws {
        let outbox = try makeOutbox()
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        let accel = outbox.registerStream(topic: "d/accelerometer", name: "accelerometer")
        // libmosquitto reports a QoS 0 packet written on the publishing thread before publish returns.
        transport.duringPublish { mid in transport.acknowledge(mid) }
        enqueueStream(outbox, accel, qos: 0)
        outbox.wake()

        let s = outbox.statistics
        #expect(transport.published.count == 1)
        #expect(s.topics["accelerometer"] == counts(produced: 1, published: 1, acknowledged: 1))
        #expect(s.inflight == 0)
        outbox.stop()
    }

    @Test func aRefusalThatOvertakesThePublishDropsTheEventAsRefused() throws {
        let outbox = try makeOutbox()
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        transport.duringPublish { mid in transport.refuse(mid, reason: 135) }
        outbox.enqueueEvent(topic: "d/events/shock", payload: [1])
        outbox.pumpOnce()

        let s = outbox.statistics
        #expect(s.topics["events/shock"]?.dropped == [.refused: 1])
        #expect(s.topics["events/shock"]?.acknowledged == 0)
        #expect(s.unacknowledgedEvents == 0 && s.inflight == 0)
        #expect(s.lastError?.contains("MQTT 5 reason 135") == true, "\(s.lastError ?? "nil")")
        outbox.stop()
    }

    @Test func aQoS0BatchPublishedAsTheConnectionDropsIsCountedAsLost() throws {
        let outbox = try makeOutbox()
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        let motion = outbox.registerStream(topic: "d/motion", name: "motion")
        transport.duringPublish { [lost] _ in transport.change(lost) }
        enqueueStream(outbox, motion, qos: 0)
        outbox.wake()

        let s = outbox.statistics
        #expect(s.topics["motion"] == counts(produced: 1, published: 1, dropped: [.connectionLost: 1]))
        #expect(s.inflight == 0 && s.retransmitted == 0)
        outbox.stop()
    }

    @Test func aQoS1BatchPublishedAsTheConnectionDropsStaysInFlightAsARetransmission() throws {
        let outbox = try makeOutbox()
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        let motion = outbox.registerStream(topic: "d/motion", name: "motion")
        transport.duringPublish { [lost] _ in transport.change(lost) }
        enqueueStream(outbox, motion, qos: 1)
        outbox.wake()
        #expect(outbox.statistics.inflight == 1)
        #expect(outbox.statistics.retransmitted == 1)

        // libmosquitto resends it after the reconnect; its PUBACK settles it exactly once.
        transport.duringPublish(nil)
        transport.change(.connected)
        transport.acknowledge(1)
        #expect(outbox.statistics.topics["motion"] == counts(produced: 1, published: 1, acknowledged: 1))
        #expect(outbox.statistics.inflight == 0)
        outbox.stop()
    }

    /// The outbox follows its transport's connection with nobody forwarding changes: a loss
    /// reported by the transport alone stops sending (the event waits, not published), drops the
    /// unwritten QoS 0 batch as `connection_lost`, and the reconnection resumes sending.
    @Test func aConnectionLossReachesTheOutboxWithNoForwarding() throws {
        let outbox = try makeOutbox()
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        let motion = outbox.registerStream(topic: "d/motion", name: "motion")
        enqueueStream(outbox, motion, qos: 0)
        outbox.wake()
        #expect(outbox.statistics.inflight == 1)          // published, its write not yet reported

        transport.change(lost)
        #expect(outbox.statistics.topics["motion"] == counts(produced: 1, published: 1, dropped: [.connectionLost: 1]))
        outbox.enqueueEvent(topic: "d/events/tap", payload: [1])
        outbox.pumpOnce()
        #expect(transport.published.map(\.topic) == ["d/motion"], "nothing is sent while the connection is down")

        transport.change(.connected)
        outbox.pumpOnce()
        #expect(transport.published.map(\.topic) == ["d/motion", "d/events/tap"])
        outbox.stop()
    }

    /// `MQTTClient` tells its owner's `onConnectionChange` and then the attached outbox, whichever
    /// was set last (the client is not started: its network thread's `emit` is called by hand).
    @Test func theClientTellsItsOwnerAndTheAttachedOutbox() throws {
        let outbox = try makeOutbox()
        let client = try makeClient("mqtt://127.0.0.1:1", id: "observers")
        outbox.attach(client)
        let seen = Mutex<[String]>([])
        client.onConnectionChange = { state in seen.withLock { $0.append("\(state)") } }   // set after attach
        let outboxConnected = { outbox.state.withLock { ($0.connected, $0.connectionEpoch) } }
        #expect(outboxConnected() == (false, 0))
        client.emit(.connected)
        #expect(outboxConnected() == (true, 0))
        client.emit(lost)
        #expect(outboxConnected() == (false, 1))
        #expect(seen.withLock { $0.count } == 2, "the owner still hears every change")
        outbox.stop()
    }

    /// After a new transport is attached, the old one's connection changes are not the outbox's.
    @Test func aReplacedTransportsConnectionLossIsIgnored() throws {
        let outbox = try makeOutbox()
        let old = ScriptedTransport()
        let new = ScriptedTransport()
        outbox.attach(transport: old)
        outbox.attach(transport: new)
        old.change(lost)
        outbox.enqueueEvent(topic: "d/events/tap", payload: [1])
        outbox.pumpOnce()
        #expect(new.published.map(\.topic) == ["d/events/tap"])
        outbox.stop()
    }

    @Test func anEventInHandWhenANewClientIsAttachedIsSentAgainOnTheNewOne() throws {
        let outbox = try makeOutbox()
        let old = ScriptedTransport()
        let new = ScriptedTransport()
        outbox.attach(transport: old)
        // A reload attaches a new client while the pump is inside `publish` on the old one.
        old.duringPublish { _ in outbox.attach(transport: new) }
        outbox.enqueueEvent(topic: "d/events/fall", payload: [1])
        outbox.pumpOnce()
        // Put back, then sent again on the new client in the same round.
        #expect(old.published.count == 1)
        #expect(new.published.map(\.topic) == ["d/events/fall"])
        #expect(outbox.statistics.unacknowledgedEvents == 1)
        // The old client's late acknowledgement is not the new one's.
        old.acknowledge(1)
        #expect(outbox.statistics.unacknowledgedEvents == 1)
        new.acknowledge(new.published[0].mid)
        let s = outbox.statistics
        #expect(s.unacknowledgedEvents == 0 && s.inflight == 0)
        #expect(s.topics["events/fall"] == counts(produced: 1, published: 2, acknowledged: 1))
        outbox.stop()
    }

    @Test func inFlightMessagesOfAReplacedClientAreTakenBack() throws {
        let outbox = try makeOutbox()
        let old = ScriptedTransport()
        outbox.attach(transport: old)
        let motion = outbox.registerStream(topic: "d/motion", name: "motion")
        outbox.enqueueEvent(topic: "d/events/tap", payload: [1])
        outbox.enqueueState(topic: "d/health", payload: [2])
        enqueueStream(outbox, motion, qos: 1)
        outbox.pumpOnce()
        #expect(outbox.statistics.inflight == 3)

        let new = ScriptedTransport()
        outbox.attach(transport: new)
        let s = outbox.statistics
        // The event and the state go again on the new client; the stream batch is lost.
        #expect(s.topics["motion"]?.dropped == [.connectionLost: 1])
        #expect(s.inflight == 0 && s.unacknowledgedEvents == 1)
        outbox.pumpOnce()
        #expect(new.published.map(\.topic) == ["d/events/tap", "d/health"])
        outbox.stop()
    }

    @Test func aTransientFailurePausesSendingFor200MillisecondsOfTheClock() throws {
        let time = ManualClock()
        let outbox = try makeOutbox(clock: time)
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        transport.failNextPublish(with: MQTTError(.notConnected, context: "test"))
        outbox.enqueueEvent(topic: "d/events/shock", payload: [1])
        outbox.pumpOnce()
        #expect(transport.published.isEmpty)
        #expect(outbox.statistics.unacknowledgedEvents == 1)

        time.advance(milliseconds: 199)
        outbox.pumpOnce()
        #expect(transport.published.isEmpty)
        time.advance(milliseconds: 1)
        outbox.pumpOnce()
        #expect(transport.published.count == 1)
        outbox.stop()
    }

    @Test func aMessageThatCanNeverBeSentIsDroppedNotRetried() throws {
        let outbox = try makeOutbox()
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        transport.failNextPublish(with: MQTTError(.invalidTopic, context: "test"))
        outbox.enqueueEvent(topic: "d/events/bad", payload: [1])
        outbox.enqueueEvent(topic: "d/events/good", payload: [2])
        outbox.pumpOnce()
        let s = outbox.statistics
        #expect(s.topics["events/bad"]?.dropped == [.refused: 1])
        #expect(transport.published.map(\.topic) == ["d/events/good"])
        outbox.stop()
    }

    @Test func streamBatchesOlderThanTheMaximumAgeExpireByTheClock() throws {
        let time = ManualClock()
        let outbox = try makeOutbox(OutboxSettings(maximumStreamAgeMilliseconds: 500), clock: time)
        let transport = ScriptedTransport(connected: false)
        outbox.attach(transport: transport)
        let accel = outbox.registerStream(topic: "d/accelerometer", name: "accelerometer")
        enqueueStream(outbox, accel, qos: 0)
        time.advance(milliseconds: 500)
        outbox.pumpOnce()
        #expect(outbox.statistics.queuedStreamMessages == 1)     // exactly the maximum age: kept
        time.advance(milliseconds: 1)
        outbox.pumpOnce()
        #expect(outbox.statistics.topics["accelerometer"] == counts(produced: 1, dropped: [.expired: 1]))
        #expect(transport.published.isEmpty)
        outbox.stop()
    }

    @Test func theInFlightWindowHoldsBackPublishesUntilAnAcknowledgement() throws {
        let outbox = try makeOutbox(OutboxSettings(inflightWindow: 2))
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        let motion = outbox.registerStream(topic: "d/motion", name: "motion")
        for _ in 0..<4 { enqueueStream(outbox, motion, qos: 1) }
        outbox.wake()
        #expect(transport.published.count == 2)
        transport.acknowledge(1)
        outbox.wake()
        #expect(transport.published.count == 3)
        #expect(outbox.statistics.queuedStreamMessages == 1)
        outbox.stop()
        #expect(outbox.statistics.topics["motion"] == counts(produced: 4, published: 3, acknowledged: 1, dropped: [.shutdown: 3]))
    }

    @Test func aFullStreamBufferDropsTheOldestBatches() throws {
        let outbox = try makeOutbox(OutboxSettings(maximumStreamBytes: 100))
        let transport = ScriptedTransport(connected: false)
        outbox.attach(transport: transport)
        let h = outbox.registerStream(topic: "d/m", name: "m")      // 3 topic bytes + 40 payload = 43 per batch
        for _ in 0..<3 { enqueueStream(outbox, h, qos: 0, bytes: 40) }
        let s = outbox.statistics
        #expect(s.queuedStreamMessages == 2)
        #expect(s.topics["m"] == counts(produced: 3, dropped: [.full: 1]))
        outbox.stop()
    }

    @Test func afterATransientPublishFailureSendingPausesThenResumesOnTheClock() throws {
        // The pause after a transient failure (out of memory here) is read off the outbox's
        // clock; with no pause set the clock is not consulted. The event must not be retried at
        // once nor 100 ms later (a retry per wake-up would spin), and must go out once the clock
        // has moved on by a second, far beyond "shortly".
        let clock = ManualClock()
        let outbox = try makeOutbox(clock: clock)
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        transport.failNextPublish(with: MQTTError(.outOfMemory, context: "test"))
        outbox.enqueueEvent(topic: "d/events/shock", payload: [1])
        outbox.pumpOnce()
        #expect(transport.published.isEmpty)
        outbox.pumpOnce()
        #expect(transport.published.isEmpty, "retried with no time passed")
        clock.advance(milliseconds: 100)
        outbox.pumpOnce()
        #expect(transport.published.isEmpty, "retried 100 ms after the failure")
        clock.advance(milliseconds: 900)
        outbox.pumpOnce()
        #expect(transport.published.map(\.topic) == ["d/events/shock"])
        outbox.stop()
    }

    /// The pump sleeps until something on the clock is due, not every 100 ms: idle, a second (the
    /// bound on a missed notification); after a transient failure, the 200 ms pause that is left;
    /// with a stream batch queued while disconnected, until it is 30 s old and expires.
    @Test func thePumpSleepsUntilSomethingIsDue() throws {
        let clock = ManualClock()
        let outbox = try makeOutbox(clock: clock)
        #expect(outbox.idleWaitNanos() == 1_000_000_000)
        let transport = ScriptedTransport()
        outbox.attach(transport: transport)
        transport.failNextPublish(with: MQTTError(.outOfMemory, context: "test"))
        outbox.enqueueEvent(topic: "d/events/shock", payload: [1])
        outbox.pumpOnce()
        #expect(outbox.idleWaitNanos() == 200_000_000)
        clock.advance(milliseconds: 150)
        #expect(outbox.idleWaitNanos() == 50_000_000)
        clock.advance(milliseconds: 50)
        outbox.pumpOnce()
        #expect(transport.published.map(\.topic) == ["d/events/shock"])
        #expect(outbox.idleWaitNanos() == 1_000_000_000)
        outbox.stop()

        let offline = try makeOutbox(clock: clock)
        offline.attach(transport: ScriptedTransport(connected: false))
        let h = offline.registerStream(topic: "d/m", name: "m")
        enqueueStream(offline, h, qos: 0)
        #expect(offline.idleWaitNanos() == 1_000_000_000)          // 30 s to go: capped
        clock.advance(milliseconds: 29_600)
        #expect(offline.idleWaitNanos() == 400_000_000)
        clock.advance(milliseconds: 500)
        #expect(offline.idleWaitNanos() == 1_000_000)              // overdue: look at once (1 ms floor)
        offline.pumpOnce()
        #expect(offline.statistics.topics["m"] == counts(produced: 1, dropped: [.expired: 1]))
        #expect(offline.idleWaitNanos() == 1_000_000_000)
        offline.stop()
    }

    private func counts(produced: Int = 0, published: Int = 0, acknowledged: Int = 0, dropped: [OutboxDropReason: Int] = [:]) -> OutboxTopicCounts {
        var c = OutboxTopicCounts()
        c.produced = produced
        c.published = published
        c.acknowledged = acknowledged
        c.dropped = dropped
        return c
    }
}
