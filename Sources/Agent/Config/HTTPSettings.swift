/// `http:` — the agent's own web page (`/`), live stream (`/events`) and Prometheus metrics
/// (`/metrics`); see docs/dashboard.md. Off by default.
public struct HTTPSettings: Sendable, Equatable {
    /// `enabled`: serve the dashboard and `/metrics`.
    public var enabled = false
    /// `listen`: `host:port` (`127.0.0.1:8080`, `0.0.0.0:8080`, `[::1]:8080`; port 0 = any free).
    public var listen = "127.0.0.1:8080"
    /// `username`: basic auth user; with `password_file`, every request needs them.
    public var username: String?
    /// `password_file`: file holding the basic-auth password (first line).
    public var passwordFile: String?
    /// `cert_file`, `key_file`: PEM certificate chain and key; both set = HTTPS.
    public var certFile: String?
    public var keyFile: String?
    /// `live_rate`: updates per second on the live stream shared by every open page, Hz.
    public var liveRate = 10.0
    /// `max_clients`: live pages open at once; more get 503.
    public var maxClients = 32

    public init() {}
}
