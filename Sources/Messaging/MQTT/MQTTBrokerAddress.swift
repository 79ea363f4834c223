/// Where the broker is: host, TCP port and whether the connection uses TLS.
///
/// Accepted spellings: `mqtt://host[:port]`, `tcp://host[:port]` (plain, default port 1883),
/// `mqtts://host[:port]`, `ssl://host[:port]`, `tls://host[:port]` (TLS, default port 8883),
/// bare `host[:port]`, and IPv6 literals in brackets, `mqtt://[::1]:1883` or `[fe80::1]`.
/// A trailing `/` is tolerated; any other path, query or user-info is rejected so credentials never
/// end up in a URL (they belong in `username` / a password file).
public struct MQTTBrokerAddress: Sendable, Equatable, CustomStringConvertible {
    /// Host name, IPv4 address, or IPv6 address without brackets.
    public var host: String
    /// TCP port, 1…65535.
    public var port: Int
    /// `true` for `mqtts://` / `ssl://` / `tls://`.
    public var useTLS: Bool

    public init(host: String, port: Int, useTLS: Bool = false) {
        self.host = host
        self.port = port
        self.useTLS = useTLS
    }

    /// Parses a broker URL; errors name the URL and what is wrong with it.
    public init(url: String) throws(MQTTError) {
        func fail(_ what: String) -> MQTTError { MQTTError(.invalidURL, context: "url \"\(url)\"", detail: what) }
        var rest = Substring(url.trimmingSpaces())
        guard !rest.isEmpty else { throw fail("the URL is empty") }

        var tls = false
        if let range = rest.firstRange(of: "://") {
            let scheme = rest[..<range.lowerBound].lowercased()
            switch scheme {
            case "mqtt", "tcp": tls = false
            case "mqtts", "ssl", "tls": tls = true
            default: throw fail("unknown scheme \"\(scheme)\" (expected mqtt, tcp, mqtts, ssl or tls)")
            }
            rest = rest[range.upperBound...]
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("/") || rest.contains("?") { throw fail("paths and queries are not supported") }
        if rest.contains("@") { throw fail("user info in the URL is not supported; use username and a password file") }

        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("IPv6 address is missing its closing \"]\"") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("expected \":port\" after \"]\"") }
                portText = after.dropFirst()
            }
            guard host.contains(":") else { throw fail("brackets are only for IPv6 addresses") }
        } else {
            let colons = rest.filter { $0 == ":" }.count
            if colons > 1 { throw fail("IPv6 addresses must be written in brackets, e.g. [::1]:1883") }
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
            }
        }
        guard !host.isEmpty else { throw fail("the host is empty") }
        if host.contains(where: { $0 == " " || $0 == "\t" }) { throw fail("the host contains spaces") }

        var port = tls ? 8883 : 1883
        if let portText {
            guard !portText.isEmpty else { throw fail("the port after \":\" is empty") }
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let p = Int(portText) else {
                throw fail("port \"\(portText)\" is not a number")
            }
            guard (1...65535).contains(p) else { throw fail("port \(p) is outside 1…65535") }
            port = p
        }
        self.init(host: String(host), port: port, useTLS: tls)
    }

    /// `host:port`, with brackets around IPv6 hosts (used in logs and error context).
    public var hostPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Canonical URL form, e.g. `mqtt://127.0.0.1:1883` or `mqtts://[::1]:8883`.
    public var description: String { (useTLS ? "mqtts://" : "mqtt://") + hostPort }
}

extension String {
    fileprivate func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" { s = s.dropLast() }
        return s
    }
}
