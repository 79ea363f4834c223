import Logging
import Messaging
import Platform

extension AgentRunner {
    /// When a thread could not be created, for the one error line that says so.
    enum ThreadStartMoment {
        /// Building or starting the agent (the outbox's pump, the MQTT client, the pipeline): exit status 1.
        case startUp
        /// A reload's new pipeline: the previous configuration restarts.
        case reload
        /// The previous pipeline, restarted after a failed reload: the agent stops (exit status 1).
        case previousPipeline
        /// A client replacing a retired one (failover, a reload's new broker): the agent stops (exit status 1).
        case replacementClient

        var event: String {
            switch self {
            case .startUp: "cannot start a thread; not starting (exit status 1)"
            case .reload: "cannot start a pipeline thread for the new configuration; restarting the previous one"
            case .previousPipeline: "the previous pipeline does not start either; stopping (exit status 1)"
            case .replacementClient: "cannot start the network thread of the new MQTT client; stopping (exit status 1)"
            }
        }
    }

    /// The `ThreadStartError` behind `error`, if a thread that could not be created is why it
    /// failed: thrown directly (the pipeline's threads), inside a part's start failure, or as an
    /// `MQTTError` (`.threadStart`, the client's network thread).
    static func threadStartFailure(in error: any Error) -> ThreadStartError? {
        let root = (error as? PartStartFailure)?.rootCause ?? error
        if let t = root as? ThreadStartError { return t }
        if let m = root as? MQTTError, case .threadStart(let t) = m.kind { return t }
        if let o = root as? OutboxStartError, case .thread(let t) = o { return t }
        return nil
    }

    /// The one error line of a thread that could not be created, whichever thread: which thread,
    /// the `pthread_create` error and what to do (`ThreadStartError.remedy`).
    static func logThreadStartFailure(_ t: ThreadStartError, _ moment: ThreadStartMoment, log: Logger) {
        log.error(moment.event, ["thread": t.thread, "errno": "\(t.errno)", "hint": ThreadStartError.remedy])
    }
}
