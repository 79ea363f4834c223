#if canImport(Glibc)
import Glibc
#endif
import CMosquitto

/// Process-wide libmosquitto set-up.
///
/// `mosquitto_lib_init` is the one libmosquitto call that is not thread-safe, so it runs exactly once,
/// guarded by a `static let` (Swift initialises globals and static stored properties once, atomically).
/// Every `MQTTClient` calls `MosquittoLibrary.ensureInitialized()` before `mosquitto_new`.
/// `mosquitto_lib_cleanup` is deliberately never called: clients may live until process exit.
public enum MosquittoLibrary {
    private static let initialized: Bool = {
        // Ignore SIGPIPE ourselves. Writing to a socket whose peer has gone (broker restart, cable pull)
        // raises SIGPIPE, whose default action kills the whole agent. libmosquitto 2.0.11 happens to
        // install SIG_IGN inside mosquitto_new, but 2.0.15 switched to MSG_NOSIGNAL and stopped doing
        // that, so relying on the library would silently change behaviour with a package upgrade.
        // We only ever want EPIPE from write(), never the signal.
        _ = signal(SIGPIPE, SIG_IGN)
        return mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue
    }()

    /// Initialises libmosquitto once per process; cheap after the first call.
    /// - Returns: `false` if `mosquitto_lib_init` failed (it cannot on Linux; kept for honesty).
    /// The corresponding C function is `mosquitto_lib_init`.
    @discardableResult
    public static func ensureInitialized() -> Bool { initialized }

    /// Runtime library version as `major.minor.revision`, e.g. `2.0.11`.
    /// The corresponding C function is `mosquitto_lib_version`.
    public static var version: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        _ = mosquitto_lib_version(&major, &minor, &revision)
        return "\(major).\(minor).\(revision)"
    }
}
