import Testing
@testable import Messaging

@Suite struct MQTTBrokerAddressTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let url: String, host: String, port: Int, tls: Bool
        var testDescription: String { url }
    }

    @Test(arguments: [
        Case(url: "mqtt://broker.local", host: "broker.local", port: 1883, tls: false),
        Case(url: "mqtt://broker.local:1884", host: "broker.local", port: 1884, tls: false),
        Case(url: "tcp://10.0.0.5:11883/", host: "10.0.0.5", port: 11883, tls: false),
        Case(url: "mqtts://secure.example.com", host: "secure.example.com", port: 8883, tls: true),
        Case(url: "ssl://secure.example.com:9883", host: "secure.example.com", port: 9883, tls: true),
        Case(url: "tls://h", host: "h", port: 8883, tls: true),
        Case(url: "MQTT://Upper:1", host: "Upper", port: 1, tls: false),
        Case(url: "localhost:1883", host: "localhost", port: 1883, tls: false),
        Case(url: "localhost", host: "localhost", port: 1883, tls: false),
        Case(url: "[::1]:1883", host: "::1", port: 1883, tls: false),
        Case(url: "mqtts://[fe80::1%eth0]", host: "fe80::1%eth0", port: 8883, tls: true),
        Case(url: "  mqtt://spaced:65535  ", host: "spaced", port: 65535, tls: false),
    ])
    func validURLsParse(_ c: Case) throws {
        let a = try MQTTBrokerAddress(url: c.url)
        #expect(a.host == c.host)
        #expect(a.port == c.port)
        #expect(a.useTLS == c.tls)
    }

    @Test(arguments: [
        ("", "empty"),
        ("http://broker:80", "unknown scheme \"http\""),
        ("mqtt://", "host is empty"),
        ("mqtt://:1883", "host is empty"),
        ("mqtt://broker:", "port after \":\" is empty"),
        ("mqtt://broker:abc", "port \"abc\" is not a number"),
        ("mqtt://broker:0", "outside 1…65535"),
        ("mqtt://broker:70000", "outside 1…65535"),
        ("mqtt://broker:1883/topic", "paths"),
        ("mqtt://user:pw@broker", "user info"),
        ("::1:1883", "IPv6 addresses must be written in brackets"),
        ("[::1", "closing \"]\""),
        ("[::1]x", "expected \":port\""),
        ("[broker]:1883", "only for IPv6"),
    ])
    func invalidURLsAreRejectedNamingTheURLAndTheProblem(_ url: String, _ problem: String) {
        do {
            let a = try MQTTBrokerAddress(url: url)
            Issue.record("\(url) parsed as \(a)")
        } catch {
            #expect(error.kind == .invalidURL)
            #expect(error.context.contains("\"\(url)\""), "\(error)")
            #expect(error.description.contains(problem), "\(error)")
        }
    }

    @Test func descriptionIsCanonicalAndReparses() throws {
        for url in ["broker", "mqtts://[::1]", "tcp://h:42"] {
            let a = try MQTTBrokerAddress(url: url)
            #expect(try MQTTBrokerAddress(url: a.description) == a)
        }
        #expect(try MQTTBrokerAddress(url: "[::1]:1").hostPort == "[::1]:1")
        #expect(try MQTTBrokerAddress(url: "ssl://h").description == "mqtts://h:8883")
    }
}
