import Dashboard

extension HTTPSettings {
    static let keys = ["enabled", "listen", "username", "password_file", "cert_file", "key_file", "live_rate", "max_clients"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        enabled = reader.bool(section, "enabled", default: enabled)
        listen = reader.string(section, "listen", default: listen) { text in
            do throws(HTTPListenAddress.ParseError) { _ = try HTTPListenAddress(parsing: text); return nil } catch { return error.description }
        }
        username = reader.optionalString(section, "username")
        passwordFile = reader.optionalString(section, "password_file")
        certFile = reader.optionalString(section, "cert_file")
        keyFile = reader.optionalString(section, "key_file")
        liveRate = reader.double(section, "live_rate", default: liveRate, unit: "Hz", allowed: "0.5 ≤ live_rate ≤ 30") { $0 >= 0.5 && $0 <= 30 }
        maxClients = reader.integer(section, "max_clients", default: maxClients, unit: "",
                                    allowed: "1 ≤ max_clients ≤ 256") { (1...256).contains($0) }
        if (username == nil) != (passwordFile == nil) {
            reader.report(section?.path(username == nil ? "password_file" : "username") ?? "http",
                          "basic auth needs both http.username and http.password_file; set the other one or remove this one")
        }
        if (certFile == nil) != (keyFile == nil) {
            reader.report(section?.path(certFile == nil ? "key_file" : "cert_file") ?? "http",
                          "HTTPS needs both http.cert_file and http.key_file (PEM); set the other one or remove this one")
        }
    }
}
