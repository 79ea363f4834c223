import Foundation
import Synchronization
import Testing
@testable import Messaging
import TestSupport

// Helpers shared by the MQTT client tests against a real broker.

/// Records every connection state change reported by a client.
final class StateRecorder: Sendable {
    private let states = Mutex<[MQTTConnectionState]>([])
    func record(_ s: MQTTConnectionState) { states.withLock { $0.append(s) } }
    var all: [MQTTConnectionState] { states.withLock { $0 } }
    var failures: [MQTTError] {
        all.compactMap { if case .connectionFailed(let e, _) = $0 { return e } else { return nil } }
    }
    var losses: [MQTTError] {
        all.compactMap { if case .connectionLost(let e, _) = $0 { return e } else { return nil } }
    }
}

/// Polls `condition` every 10 ms until true or `timeout` passes.
func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

func makeClient(_ url: String, id: String, will: MQTTMessage? = nil, protocolVersion: MQTTProtocolVersion = .v311,
                initialDelay: Duration = .milliseconds(100), maxDelay: Duration = .seconds(1),
                recorder: StateRecorder? = nil) throws -> MQTTClient {
    let options = MQTTConnectionOptions(
        address: try MQTTBrokerAddress(url: url), clientID: id, will: will, protocolVersion: protocolVersion,
        reconnect: MQTTReconnectPolicy(initialDelay: initialDelay, maxDelay: maxDelay))
    let client = try MQTTClient(options: options)
    if let recorder { client.onConnectionChange = { recorder.record($0) } }
    return client
}
