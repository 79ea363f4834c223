#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Platform

/// A typed MQTT failure: what went wrong (`kind`, named after libmosquitto's `MOSQ_ERR_*` where it
/// comes from the library), where (`context`: URL, `host:port`, topic), and what to do (`advice`).
public struct MQTTError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The class of failure.
    public enum Kind: Sendable, Equatable {
        // Our own validation.
        /// A broker URL could not be parsed.
        case invalidURL
        /// A topic or subscription pattern is malformed (wildcard in a publish topic, empty level, …).
        case invalidTopic
        /// Connection options are inconsistent (keepalive out of range, QoS outside 0…2, …).
        case invalidOptions
        /// The client is not running (`start()` not called, or already disconnected).
        case notRunning
        /// The broker answered CONNECT with a non-zero CONNACK / reason code.
        case brokerRefused(code: Int32)
        /// The broker refused a CONNECT that carried a user name (CONNACK 4 or 5, MQTT 5 reason
        /// 134 or 135): with credentials configured that means they are wrong.
        case badCredentials(code: Int32)

        // libmosquitto return codes (MOSQ_ERR_*).
        case outOfMemory            // MOSQ_ERR_NOMEM
        case protocolError          // MOSQ_ERR_PROTOCOL
        case invalidArgument        // MOSQ_ERR_INVAL
        case notConnected           // MOSQ_ERR_NO_CONN
        case connectionRefused      // MOSQ_ERR_CONN_REFUSED
        case notFound               // MOSQ_ERR_NOT_FOUND
        case connectionLost         // MOSQ_ERR_CONN_LOST
        case tls                    // MOSQ_ERR_TLS / MOSQ_ERR_TLS_HANDSHAKE
        case payloadTooLarge        // MOSQ_ERR_PAYLOAD_SIZE
        case notSupported           // MOSQ_ERR_NOT_SUPPORTED
        case authentication         // MOSQ_ERR_AUTH
        case accessDenied           // MOSQ_ERR_ACL_DENIED
        /// A system call failed; `errno` is kept (ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH, …).
        case system(errno: Int32)   // MOSQ_ERR_ERRNO
        /// The client's network thread (`em-mqtt`) could not be created (`pthread_create` failed).
        case threadStart(ThreadStartError)
        case hostLookup             // MOSQ_ERR_EAI / MOSQ_ERR_LOOKUP
        case malformedUTF8          // MOSQ_ERR_MALFORMED_UTF8
        case keepalive              // MOSQ_ERR_KEEPALIVE
        case qosNotSupported        // MOSQ_ERR_QOS_NOT_SUPPORTED
        case oversizePacket         // MOSQ_ERR_OVERSIZE_PACKET
        case retainNotSupported     // MOSQ_ERR_RETAIN_NOT_SUPPORTED
        case timeout                // MOSQ_ERR_TIMEOUT (and our own bounded waits)
        /// Any other MOSQ_ERR_* code.
        case library(code: Int32)

        /// Maps a libmosquitto return code (and the `errno` captured right after the call).
        public init(mosquittoCode rc: Int32, errno err: Int32 = 0) {
            switch rc {
            case MOSQ_ERR_NOMEM.rawValue: self = .outOfMemory
            case MOSQ_ERR_PROTOCOL.rawValue, MOSQ_ERR_MALFORMED_PACKET.rawValue: self = .protocolError
            case MOSQ_ERR_INVAL.rawValue: self = .invalidArgument
            case MOSQ_ERR_NO_CONN.rawValue: self = .notConnected
            case MOSQ_ERR_CONN_REFUSED.rawValue: self = .connectionRefused
            case MOSQ_ERR_NOT_FOUND.rawValue: self = .notFound
            case MOSQ_ERR_CONN_LOST.rawValue: self = .connectionLost
            case MOSQ_ERR_TLS.rawValue, MOSQ_ERR_TLS_HANDSHAKE.rawValue, MOSQ_ERR_OCSP.rawValue: self = .tls
            case MOSQ_ERR_PAYLOAD_SIZE.rawValue: self = .payloadTooLarge
            case MOSQ_ERR_NOT_SUPPORTED.rawValue: self = .notSupported
            case MOSQ_ERR_AUTH.rawValue: self = .authentication
            case MOSQ_ERR_ACL_DENIED.rawValue: self = .accessDenied
            case MOSQ_ERR_ERRNO.rawValue: self = .system(errno: err)
            case MOSQ_ERR_EAI.rawValue, MOSQ_ERR_LOOKUP.rawValue: self = .hostLookup
            case MOSQ_ERR_MALFORMED_UTF8.rawValue: self = .malformedUTF8
            case MOSQ_ERR_KEEPALIVE.rawValue: self = .keepalive
            case MOSQ_ERR_QOS_NOT_SUPPORTED.rawValue: self = .qosNotSupported
            case MOSQ_ERR_OVERSIZE_PACKET.rawValue: self = .oversizePacket
            case MOSQ_ERR_RETAIN_NOT_SUPPORTED.rawValue: self = .retainNotSupported
            case MOSQ_ERR_TIMEOUT.rawValue: self = .timeout
            default: self = .library(code: rc)
            }
        }

        /// Short stable name, e.g. `MOSQ_ERR_NO_CONN`, `CONNACK 2`, `invalid URL`.
        public var name: String {
            switch self {
            case .invalidURL: "invalid URL"
            case .invalidTopic: "invalid topic"
            case .invalidOptions: "invalid options"
            case .notRunning: "client not running"
            case .brokerRefused(let code), .badCredentials(let code): "CONNACK \(code)"
            case .outOfMemory: "MOSQ_ERR_NOMEM"
            case .protocolError: "MOSQ_ERR_PROTOCOL"
            case .invalidArgument: "MOSQ_ERR_INVAL"
            case .notConnected: "MOSQ_ERR_NO_CONN"
            case .connectionRefused: "MOSQ_ERR_CONN_REFUSED"
            case .notFound: "MOSQ_ERR_NOT_FOUND"
            case .connectionLost: "MOSQ_ERR_CONN_LOST"
            case .tls: "MOSQ_ERR_TLS"
            case .payloadTooLarge: "MOSQ_ERR_PAYLOAD_SIZE"
            case .notSupported: "MOSQ_ERR_NOT_SUPPORTED"
            case .authentication: "MOSQ_ERR_AUTH"
            case .accessDenied: "MOSQ_ERR_ACL_DENIED"
            case .system(let e): "MOSQ_ERR_ERRNO (\(MQTTError.errnoName(e)))"
            case .threadStart(let t): "thread \(t.thread) not started"
            case .hostLookup: "MOSQ_ERR_EAI"
            case .malformedUTF8: "MOSQ_ERR_MALFORMED_UTF8"
            case .keepalive: "MOSQ_ERR_KEEPALIVE"
            case .qosNotSupported: "MOSQ_ERR_QOS_NOT_SUPPORTED"
            case .oversizePacket: "MOSQ_ERR_OVERSIZE_PACKET"
            case .retainNotSupported: "MOSQ_ERR_RETAIN_NOT_SUPPORTED"
            case .timeout: "timeout"
            case .library(let code): "MOSQ_ERR \(code)"
            }
        }

        /// What to do about it, in one sentence.
        public var advice: String {
            switch self {
            case .invalidURL: "use mqtt://host[:port], mqtts://host[:port], host:port or [ipv6]:port"
            case .invalidTopic: "publish topics must not contain + or # and no level may be empty"
            case .invalidOptions: "fix the mqtt section of the configuration"
            case .notRunning: "call start() first; a disconnected client cannot be reused"
            case .brokerRefused(let code): MQTTError.connackAdvice(code)
            case .badCredentials: "bad user name or password — check mqtt.username and mqtt.password (or password_file) against the broker's password file"
            case .outOfMemory: "the process is out of memory"
            case .protocolError: "the broker sent something unexpected; check the protocol version (3.1.1 vs 5)"
            case .invalidArgument: "a topic, QoS or option was rejected by libmosquitto; check it"
            case .notConnected: "not connected to the broker right now; the client keeps reconnecting"
            case .connectionRefused: "the broker refused the connection; check credentials, client id and keepalive"
            case .notFound: "the broker or resource was not found"
            case .connectionLost: "the connection dropped; the client reconnects with backoff"
            case .tls: "TLS failed: check the CA file, certificate/key paths, hostname and tls version"
            case .payloadTooLarge: "the payload exceeds the MQTT limit of 268435455 bytes"
            case .notSupported: "the feature is not supported by this libmosquitto or protocol version"
            case .authentication: "authentication failed; check username and password"
            case .accessDenied: "the broker's ACL denies this topic for this user"
            case .system(let e): MQTTError.errnoAdvice(e)
            case .threadStart: ThreadStartError.remedy
            case .hostLookup: "the broker host name could not be resolved; check DNS and the URL"
            case .malformedUTF8: "topics must be valid UTF-8"
            case .keepalive: "no answer to PINGREQ within the keepalive interval: the broker is frozen or the network path died (half-open TCP connection); the client reconnects"
            case .qosNotSupported: "the broker's maximum QoS is lower; lower the QoS in the configuration"
            case .oversizePacket: "the message exceeds the broker's maximum packet size; make batches smaller"
            case .retainNotSupported: "the broker has retain_available false; status and discovery need retain"
            case .timeout: "the operation did not complete in time; is the broker reachable and responsive?"
            case .library: "see mosquitto_strerror for this code"
            }
        }
    }

    /// The class of failure.
    public var kind: Kind
    /// Where: the URL, `host:port` and/or topic involved.
    public var context: String
    /// Extra detail (libmosquitto's own message, the offending character, …).
    public var detail: String

    public init(_ kind: Kind, context: String, detail: String = "") {
        self.kind = kind
        self.context = context
        self.detail = detail
    }

    /// Builds an error from a libmosquitto return code; `detail` defaults to `mosquitto_strerror`.
    public init(mosquittoCode rc: Int32, errno err: Int32 = 0, context: String) {
        let kind = Kind(mosquittoCode: rc, errno: err)
        var text = ""
        if case .system(let e) = kind { text = Errno(e).text }
        else if let s = mosquitto_strerror(rc) { text = String(cString: s) }
        if text == "Unknown error." { text = "" }   // libmosquitto 2.0.11 has no text for newer codes
        self.init(kind, context: context, detail: text)
    }

    public var description: String {
        var s = kind.name
        if !context.isEmpty { s += " (" + context + ")" }
        if !detail.isEmpty { s += ": " + detail }
        return s + " — " + kind.advice
    }

    /// Whether the broker was reached and answered CONNECT with a refusal (so it is reachable).
    public var isBrokerRefusal: Bool {
        switch kind {
        case .brokerRefused, .badCredentials: true
        default: false
        }
    }

    /// The error for a CONNACK / reason code `code` (non-zero): `badCredentials` when a user name
    /// was sent and the code is one a broker gives for wrong credentials (4, 5, 134, 135).
    public static func refusal(code: Int32, credentialsSent: Bool, context: String, detail: String) -> MQTTError {
        let credentialCodes: Set<Int32> = [4, 5, 134, 135]
        let kind: Kind = credentialsSent && credentialCodes.contains(code) ? .badCredentials(code: code) : .brokerRefused(code: code)
        return MQTTError(kind, context: context, detail: detail)
    }

    /// An MQTT 5 PUBACK / PUBREC reason code ≥ 0x80 in words, with what to do.
    public static func pubackReason(_ code: Int32) -> String {
        switch code {
        case 0x80: "unspecified error"
        case 0x83: "implementation specific error"
        case 0x87: "not authorised — check the broker's ACL for this topic and user"
        case 0x90: "topic name invalid"
        case 0x91: "packet identifier in use"
        case 0x97: "quota exceeded"
        case 0x99: "payload format invalid"
        default: "reason \(code)"
        }
    }

    /// CONNACK (MQTT 3.1.1) / CONNACK reason code (MQTT 5) explained, with the usual cause.
    public static func connackAdvice(_ code: Int32) -> String {
        switch code {
        case 1: return "unacceptable protocol version — set protocol to 3.1.1 or upgrade the broker"
        case 2: return "identifier rejected — often keepalive 0 or > broker max_keepalive (mosquitto ≥ 2.0.12), or an invalid client id"
        case 3: return "server unavailable — the broker is up but not accepting clients"
        case 4: return "bad user name or password — check the credentials"
        case 5: return "not authorised — anonymous access disabled or ACL forbids this client"
        case 128: return "unspecified error (MQTT 5)"
        case 129: return "malformed packet (MQTT 5)"
        case 130: return "protocol error (MQTT 5)"
        case 132: return "unsupported protocol version (MQTT 5) — try protocol 3.1.1"
        case 133: return "client identifier not valid (MQTT 5) — often keepalive 0 or > broker max_keepalive"
        case 134: return "bad user name or password (MQTT 5)"
        case 135: return "not authorised (MQTT 5)"
        case 136: return "server unavailable (MQTT 5)"
        case 137: return "server busy (MQTT 5)"
        case 138: return "banned (MQTT 5)"
        case 140: return "bad authentication method (MQTT 5)"
        case 149: return "packet too large (MQTT 5)"
        case 151: return "quota exceeded (MQTT 5)"
        case 153: return "payload format invalid (MQTT 5)"
        case 154: return "retain not supported (MQTT 5)"
        case 155: return "QoS not supported (MQTT 5)"
        case 156: return "use another server (MQTT 5)"
        case 157: return "server moved (MQTT 5)"
        case 159: return "connection rate exceeded (MQTT 5) — the broker throttles reconnects"
        default:
            if let s = mosquitto_reason_string(code) { return String(cString: s) }
            return "refused with code \(code)"
        }
    }

    static func errnoName(_ e: Int32) -> String {
        switch e {
        case ECONNREFUSED: "ECONNREFUSED"
        case ETIMEDOUT: "ETIMEDOUT"
        case EHOSTUNREACH: "EHOSTUNREACH"
        case ENETUNREACH: "ENETUNREACH"
        case ECONNRESET: "ECONNRESET"
        case EPIPE: "EPIPE"
        case EPROTO: "EPROTO"
        case EAGAIN: "EAGAIN"
        case EINPROGRESS: "EINPROGRESS"
        default: "errno \(e)"
        }
    }

    static func errnoAdvice(_ e: Int32) -> String {
        switch e {
        case ECONNREFUSED: "nothing listens on that host:port — is the broker running, is the port right?"
        case ETIMEDOUT: "the broker did not answer — check routing and firewalls"
        case EHOSTUNREACH, ENETUNREACH: "no route to the broker — is the network up?"
        case ECONNRESET, EPIPE: "the broker closed the connection — check its log (ACL, duplicate client id, limits)"
        default: "a system call failed; see the errno text"
        }
    }
}
