import Foundation
import Testing
@testable import Messaging
import TestSupport

/// TLS through libmosquitto against a real mosquitto TLS listener, with certificates made by openssl.
@Suite(.serialized, .ownThread) struct MQTTClientTLSTests {
    let pki: TestCertificates

    init() throws { pki = try TestCertificates.generate() }

    func tlsClient(_ broker: MosquittoBroker, id: String, tls: MQTTTLSOptions, host: String = "127.0.0.1",
                   recorder: StateRecorder? = nil) throws -> MQTTClient {
        let options = MQTTConnectionOptions(
            address: try MQTTBrokerAddress(url: "mqtts://\(host):\(broker.port)"), clientID: id, tls: tls,
            reconnect: MQTTReconnectPolicy(initialDelay: .milliseconds(100), maxDelay: .milliseconds(300)))
        let client = try MQTTClient(options: options)
        if let recorder { client.onConnectionChange = { recorder.record($0) } }
        return client
    }

    @Test func verifiedTLSConnectionPublishes() throws {
        let broker = try MosquittoBroker.start(extraConfig: pki.listenerConfig())
        let client = try tlsClient(broker, id: "tls-ok", tls: MQTTTLSOptions(caFile: pki.caFile))
        try client.start()
        #expect(client.waitUntilConnected(timeout: .seconds(5)), "broker log:\n\(broker.log())")
        let mid = try client.publish(topic: "tls/hello", string: "secret", qos: 1)
        #expect(mid > 0)
        #expect(eventually { client.statistics.acknowledged >= 1 })
        client.disconnect(timeout: .seconds(1))
    }

    @Test func serverSignedByAnotherCAIsRejectedAsATLSErrorAndRetried() throws {
        let broker = try MosquittoBroker.start(extraConfig: pki.listenerConfig())
        let recorder = StateRecorder()
        let client = try tlsClient(broker, id: "tls-wrong-ca", tls: MQTTTLSOptions(caFile: pki.otherCAFile), recorder: recorder)
        try client.start()
        #expect(eventually { recorder.failures.count >= 2 }, "states: \(recorder.all)")
        client.disconnect(timeout: .seconds(1))
        #expect(!client.isConnected)
        let failure = try #require(recorder.failures.first)
        #expect(failure.kind == .tls, "got \(failure)")
        // OpenSSL's own reason, captured from libmosquitto's log callback.
        #expect(failure.detail.contains("certificate verify failed"), "got \(failure)")
    }

    @Test func hostnameMismatchFailsUnlessInsecureIsSet() throws {
        let broker = try MosquittoBroker.start(extraConfig: pki.listenerConfig(wrongName: true))
        let recorder = StateRecorder()
        let strict = try tlsClient(broker, id: "tls-strict", tls: MQTTTLSOptions(caFile: pki.caFile), recorder: recorder)
        try strict.start()
        #expect(eventually { !recorder.failures.isEmpty })
        #expect(!strict.isConnected)
        strict.disconnect(timeout: .seconds(1))
        #expect(recorder.failures.first?.kind == .tls, "got \(recorder.all)")

        let lax = try tlsClient(broker, id: "tls-insecure", tls: MQTTTLSOptions(caFile: pki.caFile, insecure: true))
        try lax.start()
        #expect(lax.waitUntilConnected(timeout: .seconds(5)))
        lax.disconnect(timeout: .seconds(1))
    }

    @Test func clientCertificateIsPresentedWhenTheBrokerRequiresOne() throws {
        let broker = try MosquittoBroker.start(extraConfig: pki.listenerConfig(requireClientCertificate: true))
        let recorder = StateRecorder()
        let anonymous = try tlsClient(broker, id: "tls-nocert", tls: MQTTTLSOptions(caFile: pki.caFile), recorder: recorder)
        try anonymous.start()
        #expect(eventually { !recorder.failures.isEmpty })
        #expect(!anonymous.isConnected)
        anonymous.disconnect(timeout: .seconds(1))
        // TLS 1.3 reports the missing certificate after the client's handshake: the client sees
        // the broker's "certificate required" alert, or — when the socket closes first — EPROTO.
        // Either way the broker says why.
        let clientSaw = recorder.failures.first?.detail ?? ""
        #expect(clientSaw.contains("certificate required") || broker.log().contains("did not return a certificate"),
                "client: \(recorder.all)\nbroker log:\n\(broker.log())")

        let withCert = try tlsClient(broker, id: "tls-cert", tls: MQTTTLSOptions(
            caFile: pki.caFile, certFile: pki.clientCertFile, keyFile: pki.clientKeyFile))
        try withCert.start()
        #expect(withCert.waitUntilConnected(timeout: .seconds(5)), "broker log:\n\(broker.log())")
        withCert.disconnect(timeout: .seconds(1))
    }
}
