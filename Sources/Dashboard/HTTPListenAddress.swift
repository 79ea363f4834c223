#if canImport(Glibc)
import Glibc
#endif

/// Where the HTTP server listens: `host:port` (`127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`,
/// `localhost:8080`). A literal IPv4 or IPv6 address, or `localhost`; port 0 asks the kernel
/// for a free one (tests).
public struct HTTPListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case missingPort(String)
        case badPort(String)
        case badHost(String)

        public var description: String {
            switch self {
            case .missingPort(let s): "'\(s)' has no port; write host:port, e.g. 127.0.0.1:8080"
            case .badPort(let s): "'\(s)': the port must be a number 0…65535"
            case .badHost(let s): "'\(s)': the host must be an IPv4 or IPv6 address ([::1]) or localhost"
            }
        }
    }

    public init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`.
    public init(parsing text: String) throws(ParseError) {
        var hostPart: Substring
        var portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw .badHost(text) }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            guard rest.hasPrefix(":") else { throw .missingPort(text) }
            portPart = rest.dropFirst()
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw .missingPort(text) }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
            if hostPart.contains(":") { throw .badHost(text) }
        }
        guard !portPart.isEmpty, portPart.allSatisfy({ $0.isASCII && $0.isNumber }), let p = UInt16(portPart) else { throw .badPort(text) }
        if hostPart == "localhost" { hostPart = "127.0.0.1" }
        host = String(hostPart)
        port = p
        guard isIPv6 || isIPv4 else { throw .badHost(text) }
    }

    public var isIPv6: Bool {
        var a = in6_addr()
        return host.withCString { inet_pton(AF_INET6, $0, &a) } == 1
    }

    public var isIPv4: Bool {
        var a = in_addr()
        return host.withCString { inet_pton(AF_INET, $0, &a) } == 1
    }

    /// Whether only this machine can reach it.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
