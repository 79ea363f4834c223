import Dashboard

#if canImport(Glibc)
import Glibc
#endif

/// The dashboard's address as Home Assistant's device page links it (`device.configuration_url`,
/// "Visit"): `home_assistant.configuration_url` when set; else, with `http.enabled`, the
/// `http.listen` address with `https` when a certificate is set. A wildcard listen address
/// (`0.0.0.0`, `[::]`) becomes the host name; a loopback one (`127.0.0.1`, `[::1]`) or port 0 gives
/// no link, because no browser but the board's own could open it.
enum DashboardLink {
    static func url(http: HTTPSettings, configured: String?, hostName: String = DashboardLink.hostName()) -> String? {
        if let configured, !configured.isEmpty { return configured }
        guard http.enabled, let address = try? HTTPListenAddress(parsing: http.listen), address.port != 0 else { return nil }
        let scheme = http.certFile != nil && http.keyFile != nil ? "https" : "http"
        let host: String
        switch address.host {
        case "0.0.0.0", "::": host = hostName
        case "::1": return nil
        case let h where h.hasPrefix("127."): return nil
        case let h where address.isIPv6: host = "[" + h + "]"
        case let h: host = h
        }
        guard !host.isEmpty else { return nil }
        return "\(scheme)://\(host):\(address.port)/"
    }

    /// This machine's host name (`gethostname`), empty when unavailable.
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
