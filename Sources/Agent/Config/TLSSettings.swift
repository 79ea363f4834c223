/// `mqtt.tls:` — TLS for the broker connection (passed to `mosquitto_tls_set` and friends).
public struct TLSSettings: Sendable, Equatable {
    /// Values `version` accepts.
    public static let versions = ["tlsv1.2", "tlsv1.3"]

    /// `ca_file`: PEM file of trusted CA certificates.
    public var caFile: String?
    /// `ca_path`: directory of hashed CA certificates.
    public var caPath: String?
    /// `cert_file`: client certificate (PEM), needs `key_file`.
    public var certFile: String?
    /// `key_file`: client private key (PEM), needs `cert_file`.
    public var keyFile: String?
    /// `version`: minimum TLS version (`tlsv1.2`, `tlsv1.3`); `nil` = library default.
    public var version: String?
    /// `ciphers`: OpenSSL cipher list; `nil` = library default.
    public var ciphers: String?
    /// `insecure`: skip the server host-name check (testing only).
    public var insecure: Bool

    public init(caFile: String? = nil, caPath: String? = nil, certFile: String? = nil, keyFile: String? = nil, version: String? = nil, ciphers: String? = nil, insecure: Bool = false) {
        self.caFile = caFile
        self.caPath = caPath
        self.certFile = certFile
        self.keyFile = keyFile
        self.version = version
        self.ciphers = ciphers
        self.insecure = insecure
    }
}
