/// A parsed `mqtt.broker` URL: `mqtt://host[:port]`, `mqtts://host[:port]` or `tcp://host[:port]`.
public struct BrokerAddress: Sendable, Equatable, CustomStringConvertible {
    /// URL schemes accepted in `mqtt.broker`.
    public enum Scheme: String, Sendable, CaseIterable {
        /// Plain MQTT over TCP, default port 1883.
        case mqtt
        /// MQTT over TLS, default port 8883.
        case mqtts
        /// Same as `mqtt` (the spelling Paho and others use).
        case tcp

        /// Port used when the URL has none.
        public var defaultPort: Int { self == .mqtts ? 8883 : 1883 }
    }

    /// Why a broker URL was rejected; `description` says what to write instead.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    public var scheme: Scheme
    /// Host name or IP address (IPv6 without brackets).
    public var host: String
    /// TCP port, 1…65535.
    public var port: Int

    /// Whether the connection must use TLS (`mqtts://`).
    public var usesTLS: Bool { scheme == .mqtts }

    public init(scheme: Scheme = .mqtt, host: String, port: Int? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port ?? scheme.defaultPort
    }

    /// `mqtt://host:port` (IPv6 hosts in brackets).
    public var description: String {
        let h = host.contains(":") ? "[" + host + "]" : host
        return "\(scheme.rawValue)://\(h):\(port)"
    }

    /// Parses a broker URL.
    public init(parsing url: String) throws(ParseError) {
        let example = "write it like mqtt://localhost:1883 or mqtts://broker.example.com:8883"
        guard let range = url.firstRange(of: "://") else {
            throw ParseError(description: "'\(url)' has no scheme; \(example)")
        }
        let schemeText = url[..<range.lowerBound].lowercased()
        guard let scheme = Scheme(rawValue: schemeText) else {
            throw ParseError(description: "unsupported scheme '\(schemeText)://'; use mqtt://, mqtts:// (TLS) or tcp://")
        }
        var rest = Substring(url[range.upperBound...])
        if rest.last == "/" { rest = rest.dropLast() }
        if rest.contains("@") {
            throw ParseError(description: "credentials in the URL are not supported; set mqtt.username and mqtt.password_file instead")
        }
        if rest.contains("/") || rest.contains("?") {
            throw ParseError(description: "'\(url)' has a path or query; the broker URL is only scheme://host:port")
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw ParseError(description: "'\(url)': missing ']' after the IPv6 address")
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { throw ParseError(description: "'\(url)': expected ':port' after ']'") }
                portText = after.dropFirst()
            }
        } else {
            let colons = rest.filter { $0 == ":" }.count
            if colons > 1 {
                throw ParseError(description: "'\(url)': write IPv6 addresses in brackets, e.g. mqtt://[::1]:1883")
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
            guard valid else { throw ParseError(description: "'\(host)' is not a valid host name; \(example)") }
        }
        guard !host.isEmpty else { throw ParseError(description: "'\(url)' has no host; \(example)") }
        var port: Int?
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else {
                throw ParseError(description: "port '\(portText)' is not valid; use 1…65535 (default \(scheme.defaultPort))")
            }
            port = p
        }
        self.init(scheme: scheme, host: String(host), port: port)
    }
}

extension MQTTSettings {
    /// `broker` parsed; `nil` when no broker is configured (or the URL is invalid, which the
    /// loader reports).
    public var brokerAddress: BrokerAddress? {
        guard let broker else { return nil }
        return try? BrokerAddress(parsing: broker)
    }

    /// Whether the connection uses TLS: a `tls` section is present or the URL is `mqtts://`.
    public var usesTLS: Bool { tls != nil || (brokerAddress?.usesTLS ?? false) }
}
