import Logging
import MotionCore
import Synchronization

/// Logging for what requesters send over MQTT, bounded so a flood of bad requests cannot flood
/// the log: refused requests at most one line per `interval` (with how many were not logged),
/// and refused reply topics once per topic (at most `maximumRemembered` remembered).
/// Thread-safe: shared by the query responders, whatever queue they answer on.
final class RequestLog: Sendable {
    /// Seconds between two "refused" lines.
    static let interval: Double = 10
    /// Refused reply topics remembered (each logged once); later ones are not logged.
    static let maximumRemembered = 256

    private struct State {
        var lastLine: UInt64 = 0
        var suppressed = 0
        var loggedTopics: Set<String> = []
        var saidFull = false
    }
    private let state = Mutex(State())
    private let log: Logger

    init(label: String = "query") { log = Logger(label: label) }

    /// A refused request (bad field, too large): logged at info at most once per `interval`,
    /// with the number of refusals not logged since the previous line.
    func refused(_ event: String, topic: String, field: String, error: String, nowNanos: UInt64 = MonotonicClock.nowNanos()) {
        let suppressed: Int? = state.withLock { s in
            guard s.lastLine == 0 || nowNanos &- s.lastLine >= UInt64(Self.interval * 1e9) else {
                s.suppressed += 1
                return nil
            }
            s.lastLine = nowNanos == 0 ? 1 : nowNanos
            defer { s.suppressed = 0 }
            return s.suppressed
        }
        guard let suppressed else { return }
        log.info(event, ["topic": topic, "field": field, "error": String(error.prefix(300)),
                         "not_logged_since_last": "\(suppressed)", "note": "at most one line per \(Int(Self.interval)) s"])
    }

    /// A refused reply topic: logged (warning) the first time this topic is seen. Returns whether
    /// it was logged.
    @discardableResult
    func refusedReplyTopic(_ topic: String, requestTopic: String, reason: String) -> Bool {
        let key = String(decoding: topic.utf8.prefix(128), as: UTF8.self)
        let first: Bool? = state.withLock { s in
            if s.loggedTopics.contains(key) { return false }
            guard s.loggedTopics.count < Self.maximumRemembered else {
                if s.saidFull { return false }
                s.saidFull = true
                return nil
            }
            s.loggedTopics.insert(key)
            return true
        }
        switch first {
        case true?:
            log.warning("request not answered: reply topic refused", ["request_topic": requestTopic, "reply_topic": key, "reason": reason,
                                                                      "note": "logged once per reply topic"])
            return true
        case nil:
            log.warning("request not answered: reply topic refused; further refused reply topics are not logged",
                        ["remembered": "\(Self.maximumRemembered)"])
            return true
        default:
            return false
        }
    }
}
