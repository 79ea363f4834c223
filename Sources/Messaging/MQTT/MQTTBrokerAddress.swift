/// Where the broker is: host, TCP port and whether the connection uses TLS. The one parser of
/// broker URLs: the configuration loader validates `mqtt.broker` with it and the runtime connects
/// with what it returns, so the two can never disagree.
///
/// Accepted spellings: `mqtt://host[:port]`, `tcp://host[:port]` (plain, default port 1883),
/// `mqtts://host[:port]`, `ssl://host[:port]`, `tls://host[:port]` (TLS, default port 8883),
/// bare `host[:port]` (unless a scheme is required), and IPv6 literals in brackets,
/// `mqtt://[::1]:1883` or `[fe80::1%eth0]`. Scheme letters may be upper case; surrounding white
/// space is ignored. A trailing `/` is tolerated; any other path, query or user-info is rejected
/// so credentials never end up in a URL (they belong in `username` / a password file).
public struct MQTTBrokerAddress: Sendable, Equatable, CustomStringConvertible {
    /// URL schemes, by what they mean.
    public enum Scheme: String, Sendable, CaseIterable {
        /// Plain MQTT over TCP, default port 1883.
        case mqtt
        /// Same as `mqtt` (the spelling Paho and others use).
        case tcp
        /// MQTT over TLS, default port 8883.
        case mqtts
        /// Same as `mqtts`.
        case ssl
        /// Same as `mqtts`.
        case tls

        /// Whether the connection uses TLS.
        public var usesTLS: Bool { self == .mqtts || self == .ssl || self == .tls }
        /// Port used when the URL has none: 8883 with TLS, else 1883.
        public var defaultPort: Int { usesTLS ? 8883 : 1883 }
    }

    /// Why a broker URL was rejected; `description` quotes the URL and says what to write instead.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

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

    /// Parses a broker URL; errors (`.invalidURL`) name the URL and what is wrong with it.
    public init(url: String) throws(MQTTError) {
        do throws(ParseError) {
            self = try MQTTBrokerAddress(parsing: url)
        } catch {
            throw MQTTError(.invalidURL, context: "url \"\(url)\"", detail: error.description)
        }
    }

    /// Parses a broker URL. With `requiringScheme` a bare `host[:port]` is refused (the
    /// configuration file asks for an explicit `mqtt://` or `mqtts://`).
    public init(parsing url: String, requiringScheme: Bool = false) throws(ParseError) {
        let example = "write it like mqtt://localhost:1883 or mqtts://broker.example.com:8883"
        func fail(_ what: String) -> ParseError { ParseError(description: what) }
        var rest = url.trimmingSpaces()
        guard !rest.isEmpty else { throw fail("the broker URL is empty; \(example)") }

        var scheme = Scheme.mqtt
        if let range = rest.firstRange(of: "://") {
            let text = rest[..<range.lowerBound].lowercased()
            guard let s = Scheme(rawValue: text) else {
                throw fail("unsupported scheme '\(text)://'; use mqtt:// or tcp:// (plain), mqtts://, ssl:// or tls:// (TLS)")
            }
            scheme = s
            rest = rest[range.upperBound...]
        } else if requiringScheme {
            throw fail("'\(url)' has no scheme; \(example)")
        }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        if rest.contains("@") {
            throw fail("credentials in the URL are not supported; set the user name and a password file instead (mqtt.username, mqtt.password_file)")
        }
        if rest.contains("/") || rest.contains("?") {
            throw fail("'\(url)' has a path or query; the broker URL is only scheme://host:port")
        }

        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw fail("'\(url)': missing ']' after the IPv6 address") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw fail("'\(url)': expected ':port' after ']'") }
                portText = after.dropFirst()
            }
            guard host.isEmpty || host.contains(":") else { throw fail("'\(url)': brackets are only for IPv6 addresses") }
        } else {
            if rest.filter({ $0 == ":" }).count > 1 {
                throw fail("'\(url)': write IPv6 addresses in brackets, e.g. mqtt://[::1]:1883")
            }
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                host = rest
            }
            let valid = host.unicodeScalars.allSatisfy { s in
                switch s {
                case "a"..."z", "A"..."Z", "0"..."9", ".", "-", "_": true
                default: false
                }
            }
            guard valid else { throw fail("'\(host)' is not a valid host name (letters, digits, '.', '-', '_'); \(example)") }
        }
        guard !host.isEmpty else { throw fail("'\(url)' has no host; \(example)") }

        var port = scheme.defaultPort
        if let portText {
            let allowed = "use 1…65535 (default \(scheme.defaultPort))"
            guard !portText.isEmpty else { throw fail("'\(url)': the port after ':' is empty; \(allowed)") }
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let p = Int(portText), (1...65535).contains(p) else {
                throw fail("port '\(portText)' is not valid; \(allowed)")
            }
            port = p
        }
        self.init(host: String(host), port: port, useTLS: scheme.usesTLS)
    }

    /// `host:port`, with brackets around IPv6 hosts (used in logs and error context).
    public var hostPort: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Canonical URL form, e.g. `mqtt://127.0.0.1:1883` or `mqtts://[::1]:8883`.
    public var description: String { (useTLS ? "mqtts://" : "mqtt://") + hostPort }
}

extension String {
    fileprivate func trimmingSpaces() -> Substring {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" || f == "\r" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" || l == "\r" { s = s.dropLast() }
        return s
    }
}
