import Platform

/// Why an `Outbox` could not be created: its spool did not open, or its pump thread
/// (`em-outbox`) could not be started. Either way there is no outbox (never one that queues
/// without a thread to send).
public enum OutboxStartError: Error, Sendable, CustomStringConvertible {
    /// The spool file could not be opened (`settings.spoolPath`).
    case spool(SpoolError)
    /// `pthread_create` failed for the pump thread.
    case thread(ThreadStartError)

    public var description: String {
        switch self {
        case .spool(let e): e.description
        case .thread(let e): e.description
        }
    }
}
