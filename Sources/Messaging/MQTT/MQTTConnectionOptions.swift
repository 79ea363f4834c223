/// MQTT protocol level spoken to the broker.
public enum MQTTProtocolVersion: Sendable, Equatable {
    /// MQTT 3.1.1 (default; every broker speaks it).
    case v311
    /// MQTT 5.0 (message expiry, reason codes, `retain_available` in CONNACK).
    case v5

    /// Value for `MOSQ_OPT_PROTOCOL_VERSION` (`MQTT_PROTOCOL_V311` = 4, `MQTT_PROTOCOL_V5` = 5).
    var mosquittoValue: Int32 {
        switch self {
        case .v311: 4
        case .v5: 5
        }
    }
}

/// Minimum TLS version for the broker connection (`mqtt.tls.version`), as libmosquitto names it.
public enum MQTTTLSVersion: String, Sendable, Equatable, CaseIterable {
    case tlsv1_2 = "tlsv1.2"
    case tlsv1_3 = "tlsv1.3"
}

/// TLS settings passed through to `mosquitto_tls_set`, `mosquitto_tls_opts_set` and
/// `mosquitto_tls_insecure_set` (the agent's `mqtt.tls:` section, read into this type). Paths are
/// files on the device.
public struct MQTTTLSOptions: Sendable, Equatable {
    /// `ca_file`: PEM file with the CA certificate(s) that signed the broker certificate.
    public var caFile: String?
    /// `ca_path`: directory of hashed PEM CA certificates (`c_rehash`); used when `caFile` is nil.
    public var caPath: String?
    /// `cert_file`: client certificate (PEM) for certificate authentication; needs `keyFile`.
    public var certFile: String?
    /// `key_file`: client private key (PEM, unencrypted).
    public var keyFile: String?
    /// `version`: minimum version; nil pins `tlsv1.2` (libmosquitto 2.0.11 would otherwise allow 1.1).
    public var version: MQTTTLSVersion?
    /// `ciphers`: OpenSSL cipher list, nil for the library default.
    public var ciphers: String?
    /// `insecure`: disables broker hostname verification. For tests only; logged at warning level on every connect.
    public var insecure: Bool

    public init(caFile: String? = nil, caPath: String? = nil, certFile: String? = nil, keyFile: String? = nil,
                version: MQTTTLSVersion? = nil, ciphers: String? = nil, insecure: Bool = false) {
        self.caFile = caFile
        self.caPath = caPath
        self.certFile = certFile
        self.keyFile = keyFile
        self.version = version
        self.ciphers = ciphers
        self.insecure = insecure
    }
}

/// Reconnect timing: quick first retries, then a low cap, with jitter.
///
/// The n-th consecutive failed attempt waits a random time in `[c/2, c]` where the ceiling `c`
/// follows the 1-2-5 series from `initialDelay` (default 0.1, 0.2, 0.5, 1, 2 s …) capped at
/// `maxDelay` (default 3 s), so a broker restart of a few seconds costs little more than its own
/// length and the default cap stays well below the outbox's default `max_age_s` (30 s). The
/// sequence restarts after a connection that stayed up for at least `stableAfter`.
public struct MQTTReconnectPolicy: Sendable, Equatable {
    /// First backoff ceiling (default 0.1 s).
    public var initialDelay: Duration
    /// Cap of the backoff ceiling (default 3 s).
    public var maxDelay: Duration
    /// A connection that lasted this long resets the backoff.
    public var stableAfter: Duration
    /// How long a TCP connect + CONNACK may take before the attempt counts as failed.
    public var connectTimeout: Duration

    public init(initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(3),
                stableAfter: Duration = .seconds(10), connectTimeout: Duration = .seconds(10)) {
        self.initialDelay = initialDelay
        self.maxDelay = maxDelay
        self.stableAfter = stableAfter
        self.connectTimeout = connectTimeout
    }
}

/// Everything needed to connect one client.
public struct MQTTConnectionOptions: Sendable, Equatable {
    /// Broker location.
    public var address: MQTTBrokerAddress
    /// Client identifier; stable per device. Must be non-empty when `cleanSession` is false.
    public var clientID: String
    /// Keepalive in seconds, 5…65535; never 0 (mosquitto ≥ 2.0.12 answers CONNACK 2) and not above
    /// the broker's `max_keepalive`.
    public var keepAlive: Int
    /// Start with a clean session (recommended for a publisher).
    public var cleanSession: Bool
    public var username: String?
    public var password: String?
    /// Last will, sent by the broker if the connection dies without a DISCONNECT
    /// (EdgeMotion: `<prefix>/status` = `offline`, QoS 1, retained).
    public var will: MQTTMessage?
    /// TLS settings; required when `address.useTLS` (an empty `MQTTTLSOptions()` uses the CA path
    /// `/etc/ssl/certs`).
    public var tls: MQTTTLSOptions?
    public var protocolVersion: MQTTProtocolVersion
    /// Backoff between connection attempts.
    public var reconnect: MQTTReconnectPolicy

    public init(address: MQTTBrokerAddress, clientID: String, keepAlive: Int = 30, cleanSession: Bool = true,
                username: String? = nil, password: String? = nil, will: MQTTMessage? = nil,
                tls: MQTTTLSOptions? = nil, protocolVersion: MQTTProtocolVersion = .v311,
                reconnect: MQTTReconnectPolicy = MQTTReconnectPolicy()) {
        self.address = address
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.cleanSession = cleanSession
        self.username = username
        self.password = password
        self.will = will
        self.tls = tls
        self.protocolVersion = protocolVersion
        self.reconnect = reconnect
    }

    /// Checks the options that libmosquitto would reject late or the broker would refuse confusingly.
    public func validate() throws(MQTTError) {
        let ctx = address.hostPort
        guard (5...65535).contains(keepAlive) else {
            throw MQTTError(.invalidOptions, context: ctx,
                            detail: "keepAlive \(keepAlive) s must be 5…65535 (0 makes mosquitto ≥ 2.0.12 answer CONNACK 2 \"identifier rejected\")")
        }
        if !cleanSession && clientID.isEmpty {
            throw MQTTError(.invalidOptions, context: ctx, detail: "a persistent session (cleanSession false) needs a non-empty clientID")
        }
        if clientID.utf8.count > 65535 {
            throw MQTTError(.invalidOptions, context: ctx, detail: "clientID is longer than 65535 bytes")
        }
        // MQTT strings are at most 65535 bytes (a 2-byte length); libmosquitto refuses longer ones.
        if let username, username.utf8.count > 65535 {
            throw MQTTError(.invalidOptions, context: ctx, detail: "username is longer than 65535 bytes")
        }
        if let password, password.utf8.count > 65535 {
            throw MQTTError(.invalidOptions, context: ctx, detail: "password is longer than 65535 bytes")
        }
        if password != nil && username == nil {
            throw MQTTError(.invalidOptions, context: ctx, detail: "password given without username")
        }
        if let will {
            try TopicLayout.validatePublishTopic(will.topic)
            guard (0...2).contains(will.qos) else {
                throw MQTTError(.invalidOptions, context: ctx + " will topic \(will.topic)", detail: "will QoS \(will.qos) must be 0, 1 or 2")
            }
        }
        if let tls, (tls.certFile == nil) != (tls.keyFile == nil) {
            throw MQTTError(.invalidOptions, context: ctx, detail: "TLS certFile and keyFile must be given together")
        }
        if tls != nil && !address.useTLS {
            throw MQTTError(.invalidOptions, context: ctx, detail: "TLS options given but the URL is not mqtts:// (use mqtts://host:8883)")
        }
        if reconnect.initialDelay <= .zero || reconnect.maxDelay < reconnect.initialDelay {
            throw MQTTError(.invalidOptions, context: ctx, detail: "reconnect delays must satisfy 0 < initialDelay ≤ maxDelay")
        }
    }
}
