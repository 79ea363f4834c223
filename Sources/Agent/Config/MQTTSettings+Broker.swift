import Messaging

extension MQTTSettings {
    /// `broker` parsed (by `MQTTBrokerAddress`, the same parser the connection uses); `nil` when
    /// no broker is configured (or the URL is invalid, which the loader reports).
    public var brokerAddress: MQTTBrokerAddress? {
        guard let broker else { return nil }
        return try? MQTTBrokerAddress(parsing: broker, requiringScheme: true)
    }

    /// Whether the connection uses TLS: a `tls` section is present or the URL is `mqtts://`
    /// (or `ssl://`, `tls://`).
    public var usesTLS: Bool { tls != nil || (brokerAddress?.useTLS ?? false) }

    /// Why `url` is not a usable `mqtt.broker` (a scheme is required there), or `nil`.
    static func problem(withBroker url: String) -> String? {
        do throws(MQTTBrokerAddress.ParseError) {
            _ = try MQTTBrokerAddress(parsing: url, requiringScheme: true)
            return nil
        } catch {
            return error.description
        }
    }
}
