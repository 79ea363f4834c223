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
        ("   ", "empty"),
        ("http://broker:80", "unsupported scheme 'http://'"),
        ("mqtt://", "has no host"),
        ("mqtt://:1883", "has no host"),
        ("mqtt://[]:1883", "has no host"),
        ("mqtt://broker:", "port after ':' is empty"),
        ("mqtt://broker:abc", "port 'abc' is not valid"),
        ("mqtt://broker:+1883", "port '+1883' is not valid"),
        ("mqtt://broker:0", "use 1…65535 (default 1883)"),
        ("mqtts://broker:70000", "use 1…65535 (default 8883)"),
        ("mqtt://broker:1883/topic", "has a path or query"),
        ("mqtt://broker?x=1", "has a path or query"),
        ("mqtt://user:pw@broker", "credentials in the URL are not supported"),
        ("::1:1883", "IPv6 addresses in brackets"),
        ("[::1", "missing ']'"),
        ("[::1]x", "expected ':port' after ']'"),
        ("[broker]:1883", "only for IPv6"),
        ("mqtt://bro ker", "'bro ker' is not a valid host name"),
        ("mqtt://héllo", "not a valid host name"),
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

    /// The configuration file asks for an explicit scheme; otherwise the grammar is the same.
    @Test func requiringASchemeRefusesOnlyBareHosts() throws {
        for bare in ["localhost", "localhost:1883", "[::1]:1883"] {
            #expect(throws: MQTTBrokerAddress.ParseError.self) { try MQTTBrokerAddress(parsing: bare, requiringScheme: true) }
            #expect((try? MQTTBrokerAddress(parsing: bare)) != nil, "\(bare)")
        }
        do {
            _ = try MQTTBrokerAddress(parsing: "localhost:1883", requiringScheme: true)
        } catch {
            #expect(error.description == "'localhost:1883' has no scheme; write it like mqtt://localhost:1883 or mqtts://broker.example.com:8883")
        }
        for url in ["mqtt://h", "tcp://h:2", "mqtts://h", "ssl://h", "TLS://h:3", "mqtt://[::1]"] {
            #expect(try MQTTBrokerAddress(parsing: url, requiringScheme: true) == MQTTBrokerAddress(parsing: url), "\(url)")
        }
    }

    @Test func everySchemeHasItsMeaningAndDefaultPort() throws {
        let expected: [(String, Bool, Int)] = [("mqtt", false, 1883), ("tcp", false, 1883), ("mqtts", true, 8883), ("ssl", true, 8883), ("tls", true, 8883)]
        #expect(expected.map(\.0) == MQTTBrokerAddress.Scheme.allCases.map(\.rawValue))
        for (scheme, tls, port) in expected {
            let a = try MQTTBrokerAddress(url: "\(scheme)://h")
            #expect(a.useTLS == tls && a.port == port, "\(scheme)")
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
