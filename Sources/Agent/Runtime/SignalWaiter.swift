#if canImport(Glibc)
import Glibc
#endif

/// Termination and reload signals, received synchronously on the main thread.
///
/// `blockSignals()` must run before any other thread starts, so every thread inherits the mask
/// and the signals queue until `wait` takes them — no async-signal-safety concerns, no handler.
public enum SignalWaiter {
    public enum Received: Sendable, Equatable {
        case terminate(Int32)
        case reload
    }

    private static var handled: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGHUP)
        return set
    }

    /// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (and threads it creates later),
    /// and ignores SIGPIPE (a dropped broker socket must not kill the process).
    public static func blockSignals() {
        var set = handled
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
    }

    /// Waits up to `timeout` seconds for one of the blocked signals.
    public static func wait(timeout: Double) -> Received? {
        var set = handled
        var ts = timespec(tv_sec: Int(timeout), tv_nsec: Int((timeout - Double(Int(timeout))) * 1e9))
        let signo = sigtimedwait(&set, nil, &ts)
        switch signo {
        case SIGHUP: return .reload
        case SIGINT, SIGTERM: return .terminate(signo)
        default: return nil
        }
    }
}
