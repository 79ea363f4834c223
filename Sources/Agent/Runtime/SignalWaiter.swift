#if canImport(Glibc)
import Glibc
#endif

/// Every signal the agent expects, received synchronously on the main thread.
///
/// `blockSignals()` must run before any other thread starts, so every thread inherits the mask
/// and the signals queue until `wait` takes them — no async-signal-safety concerns, no handler.
///
/// What each signal does (docs/reliability.md, "Signals"):
/// - SIGTERM, SIGINT: graceful stop within `process.stop_timeout_s`.
/// - SIGHUP: reload the configuration (an invalid one is rejected, the old one keeps running).
/// - SIGUSR1: publish `stats` and `health` now and log a status line.
/// - SIGRTMIN (`wakeSignal`): sent by the agent to its own main thread (`MainLoopWaker`) when a
///   command arrives or a stop, reload or health change is asked for; it only ends a wait early.
/// - SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO (SIGPOLL), SIGPWR, SIGSTKFLT: taken and
///   ignored, logged once each — their default action would end the process silently.
/// - SIGPIPE, SIGXFSZ: ignored (`SIG_IGN`): a dropped broker socket or a file over the size
///   limit fails the write (`EPIPE`, `EFBIG`) that caused it instead of killing the process.
/// Signals sent by the kernel for a fault in the process itself (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
/// SIGABRT) keep their default action: the process cannot continue after them. SIGKILL and
/// SIGSTOP cannot be caught.
public enum SignalWaiter {
    public enum Received: Sendable, Equatable {
        case terminate(Int32)
        case reload
        /// SIGUSR1: report statistics now.
        case statistics
        /// A signal taken only so that it does not end the process.
        case ignored(Int32)
        /// `wakeSignal`: another thread of the agent has work for the main loop (`MainLoopWaker`).
        case wake
    }

    /// The real-time signal the agent sends its own main thread to end a wait early
    /// (`MainLoopWaker`): SIGRTMIN, which glibc leaves to applications.
    public static var wakeSignal: Int32 { __libc_current_sigrtmin() }

    /// Taken and ignored: their default action is to terminate.
    public static let ignoredSignals: [Int32] = [SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT]

    private static var handled: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in [SIGINT, SIGTERM, SIGHUP, SIGUSR1, wakeSignal] + ignoredSignals { sigaddset(&set, s) }
        return set
    }

    /// Blocks every signal `wait` takes in the calling thread (and threads it creates later),
    /// and ignores SIGPIPE and SIGXFSZ.
    public static func blockSignals() {
        var set = handled
        pthread_sigmask(SIG_BLOCK, &set, nil)
        signal(SIGPIPE, SIG_IGN)
        signal(SIGXFSZ, SIG_IGN)
    }

    /// Waits up to `timeout` seconds for one of the blocked signals.
    public static func wait(timeout: Double) -> Received? {
        var set = handled
        var ts = timespec(tv_sec: Int(timeout), tv_nsec: Int((timeout - Double(Int(timeout))) * 1e9))
        let signo = sigtimedwait(&set, nil, &ts)
        switch signo {
        case wakeSignal: return .wake
        case SIGHUP: return .reload
        case SIGINT, SIGTERM: return .terminate(signo)
        case SIGUSR1: return .statistics
        case _ where signo > 0: return .ignored(signo)
        default: return nil
        }
    }

    /// Whether the calling thread blocks `wakeSignal` (so a wake queues for `wait` instead of
    /// taking the signal's default action, which ends the process).
    public static var callingThreadBlocksWake: Bool {
        var current = sigset_t()
        guard pthread_sigmask(SIG_BLOCK, nil, &current) == 0 else { return false }
        return sigismember(&current, wakeSignal) == 1
    }

    /// The signal's name (`SIGUSR2`), for logs.
    public static func name(_ signo: Int32) -> String {
        switch signo {
        case SIGUSR1: "SIGUSR1"
        case SIGUSR2: "SIGUSR2"
        case SIGALRM: "SIGALRM"
        case SIGVTALRM: "SIGVTALRM"
        case SIGPROF: "SIGPROF"
        case SIGIO: "SIGIO"
        case SIGPWR: "SIGPWR"
        case SIGSTKFLT: "SIGSTKFLT"
        default: "signal \(signo)"
        }
    }
}
