import Foundation
import Glibc
import Platform
import Synchronization
import Testing
@testable import Messaging
import TestSupport

/// The outbox's pump thread and the MQTT client's network thread start through the injected
/// `ThreadStarter`; a failed `pthread_create` is a `ThreadStartError` naming the thread, passed on
/// to the caller (never a crash, never an outbox or client without its thread).
@Suite("Messaging: a thread that cannot start", .ownThread)
struct MessagingThreadStartTests {
    /// Fails for `failing` the way `PlatformThread.start` does when `pthread_create` returns
    /// `EAGAIN` (pthread_create(3): out of threads or memory); every other name starts for real.
    /// `calls` counts the names it was asked for.
    static func starter(failing: String, calls: Calls) -> ThreadStarter {
        { name, body throws(ThreadStartError) in
            calls.names.withLock { $0.append(name) }
            if name == failing { throw ThreadStartError(thread: name, errno: Errno(EAGAIN)) }
            return try PlatformThread.start(name: name, body)
        }
    }

    /// The thread names a starter was asked for.
    final class Calls: Sendable {
        let names = Mutex<[String]>([])
        var value: [String] { names.withLock { $0 } }
    }

    @Test func anOutboxWhosePumpThreadCannotStartIsNotCreated() throws {
        let calls = Calls()
        let spool = NSTemporaryDirectory() + "edgemotion-nopump-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).spool"
        defer { unlink(spool) }
        // With a spool too: the spool opens first, then the thread fails; no outbox either way.
        for path in [nil, spool] {
            let error = try #require(throws: OutboxStartError.self) {
                _ = try Outbox(settings: OutboxSettings(spoolPath: path), threadStarter: Self.starter(failing: "em-outbox", calls: calls))
            }
            guard case .thread(let t) = error else { Issue.record("not a thread error: \(error)"); continue }
            // The thread's name, EAGAIN (11 on Linux) and the remedy.
            #expect(t.thread == "em-outbox")
            #expect(t.errno == Errno(EAGAIN))
            #expect(error.description.contains("em-outbox") && error.description.contains("ulimit -u")
                    && error.description.contains("TasksMax"))
        }
        // The outbox asked the injected starter, once per outbox, for its one thread.
        #expect(calls.value == ["em-outbox", "em-outbox"])
        // A starter that works gives an outbox whose pump runs.
        let ok = try Outbox(settings: OutboxSettings(), threadStarter: Self.starter(failing: "none", calls: calls))
        ok.stop(timeout: .seconds(2))
        #expect(calls.value.count == 3)
    }

    @Test func aClientWhoseNetworkThreadCannotStartThrowsAThreadStartError() throws {
        let calls = Calls()
        // Port 1: nothing listens; the client never needs a broker here.
        let options = MQTTConnectionOptions(address: try MQTTBrokerAddress(url: "mqtt://127.0.0.1:1"), clientID: "no-thread")
        let client = try MQTTClient(options: options, threadStarter: Self.starter(failing: "em-mqtt", calls: calls))
        let error = try #require(throws: MQTTError.self) { try client.start() }
        guard case .threadStart(let t) = error.kind else { Issue.record("not a thread error: \(error)"); return }
        #expect(t.thread == "em-mqtt")
        #expect(t.errno == Errno(EAGAIN))
        // glibc's strerror(EAGAIN) is "Resource temporarily unavailable"; the advice names the limits.
        #expect(error.description.contains("em-mqtt") && error.description.contains("Resource temporarily unavailable")
                && error.description.contains("ulimit -u"))
        #expect(calls.value == ["em-mqtt"])
        #expect(!client.isConnected)
        // Nothing runs: disconnect returns at once and frees the handle (no thread to join).
        client.disconnect(timeout: .milliseconds(200))
    }
}
