#if canImport(Glibc)
import Glibc
#endif

/// systemd's `sd_notify` datagram protocol, written directly (no libsystemd): newline-separated
/// `KEY=value` assignments in one `AF_UNIX` `SOCK_DGRAM` datagram to the socket named by
/// `$NOTIFY_SOCKET` (a path, or `@name` for the abstract namespace).
///
/// Used for `Type=notify` units: `READY=1` once the agent samples and the broker is connected,
/// `WATCHDOG=1` while samples flow (`WatchdogSec=`), `STATUS=` one-line summary, `STOPPING=1`,
/// `RELOADING=1`. Without `$NOTIFY_SOCKET` (not under systemd) every call does nothing.
final class SystemdNotifier {
    private let fd: Int32
    private var address = sockaddr_un()
    private var addressLength: socklen_t = 0
    /// Interval at which systemd expects `WATCHDOG=1`, from `$WATCHDOG_USEC`; nil when the unit has
    /// no `WatchdogSec=` (or `$WATCHDOG_PID` names another process).
    let watchdogIntervalNanos: UInt64?

    /// Whether a notify socket is configured.
    var isEnabled: Bool { fd >= 0 }

    init(environment: [String: String] = SystemdNotifier.processEnvironment()) {
        var interval: UInt64?
        if let usec = environment["WATCHDOG_USEC"].flatMap(UInt64.init), usec > 0 {
            let pidMatches = environment["WATCHDOG_PID"].flatMap(Int32.init).map { $0 == getpid() } ?? true
            if pidMatches { interval = usec * 1000 }
        }
        watchdogIntervalNanos = interval
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty,
              path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            fd = -1
            return
        }
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { p in
            for (i, b) in bytes.enumerated() { p[i] = b }
        }
        addressLength = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Sends `message` (e.g. `"READY=1\nSTATUS=running"`). Returns whether it was sent.
    @discardableResult
    func notify(_ message: String) -> Bool {
        guard fd >= 0 else { return false }
        var bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { a in
            a.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeMutableBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, addressLength) }
            }
        }
        return sent == bytes.count
    }

    static func processEnvironment() -> [String: String] {
        var env: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let v = getenv(key) { env[key] = String(cString: v) }
        }
        return env
    }
}
