#if canImport(Glibc)
import Glibc
#endif

/// Warns about secrets that other users of the board can read: a configuration file holding
/// `mqtt.password` that is world-readable, a world-readable `password_file` or TLS key.
enum SecretFileCheck {
    /// One warning per exposed file (empty when everything is private).
    static func warnings(for c: AgentConfiguration) -> [String] {
        var out: [String] = []
        if c.mqtt.password != nil, let file = c.sourceFile, isWorldReadable(file) {
            out.append("\(file) contains mqtt.password and is readable by every user; run `chmod o-r \(file)` or move the password to mqtt.password_file (e.g. a systemd credential)")
        }
        if let file = c.mqtt.passwordFile, isWorldReadable(file) {
            out.append("mqtt.password_file \(file) is readable by every user; run `chmod o-r \(file)`")
        }
        if let key = c.mqtt.tls?.keyFile, isWorldReadable(key) {
            out.append("mqtt.tls.key_file \(key) is readable by every user; run `chmod o-r \(key)`")
        }
        return out
    }

    static func isWorldReadable(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return false }
        return st.st_mode & S_IROTH != 0
    }
}
