import Foundation
import Testing
import MotionCore
import Sensors
import Messaging
@testable import Agent

/// The `auxiliary:` section and the `sensor/<kind>` and `altitude` payloads.
@Suite("Auxiliary sensors")
struct AuxiliarySensorsTests {
    typealias S = ConfigTestSupport

    @Test("off by default; the section reads devices, uri, rates, qos and retain")
    func configuration() throws {
        #expect(AgentConfiguration.default.auxiliary.enabled == false)
        let c = try ConfigurationLoader.parse(yaml: """
            auxiliary:
              devices: [bmp280, bh1750]
              uri: "ip:10.0.0.2"
              rate: 2
              publish_rate: 0.5
              qos: 1
              retain: true
            """, fileName: "a.yaml")
        #expect(c.auxiliary == AuxiliarySettings(uri: "ip:10.0.0.2", devices: ["bmp280", "bh1750"], rate: 2, publishRate: 0.5, qos: 1, retain: true))
        #expect(c.auxiliary.enabled)
    }

    @Test("bad values name their key: publish_rate above rate, a rate above 10 Hz, an unknown key")
    func badValues() {
        #expect(S.problems("auxiliary:\n  devices: [bmp280]\n  rate: 1\n  publish_rate: 2\n").contains { $0.contains("auxiliary.publish_rate") })
        #expect(S.problems("auxiliary:\n  rate: 50\n").contains { $0.contains("auxiliary.rate") })
        #expect(S.problems("auxiliary:\n  device: bmp280\n").contains { $0.contains("auxiliary") && $0.contains("device") })
    }

    static func object(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test("sensor/pressure carries the mean, min, max and count of the reads, in kPa, with the device")
    func sensorPayload() throws {
        var w = AuxiliaryWindow(device: "bmp280")
        for v in [100.650, 100.656, 100.653] { w.add(AuxiliaryReading(kind: .pressure, device: "bmp280", value: v, timestampNanos: 2_000_000_000)) }
        let o = try Self.object(AuxiliaryStreams.payload(.pressure, w, WallClockMapping(offsetNanos: 1_000_000_000_000), seq: 4))
        #expect(o["seq"] as? Int == 4)
        #expect(o["sensor"] as? String == "pressure")
        #expect(o["unit"] as? String == "kPa")
        #expect(o["device"] as? String == "bmp280")
        #expect(o["n"] as? Int == 3)
        #expect(abs((o["value"] as? Double ?? 0) - 100.653) < 1e-9)
        #expect(o["min"] as? Double == 100.65)
        #expect(o["max"] as? Double == 100.656)
        #expect(o["t_utc_us"] as? Int == 1_002_000_000)
    }

    @Test("altitude: 101.325 kPa at start, 100.129 kPa now is about +100 m (U.S. Standard Atmosphere 1976)")
    func altitudePayload() throws {
        var w = AuxiliaryWindow(device: "bmp280")
        w.add(AuxiliaryReading(kind: .pressure, device: "bmp280", value: 100.129, timestampNanos: 1))
        let o = try Self.object(AuxiliaryStreams.altitudePayload(pressure: 100.129, reference: 101.325, w, WallClockMapping(offsetNanos: 0), seq: 0))
        let h = try #require(o["relative_altitude_m"] as? Double)
        #expect(abs(h - 100) < 0.5)
        #expect(o["pressure_kpa"] as? Double == 100.129)
        #expect(o["reference_kpa"] as? Double == 101.325)
    }
}

@Suite("Home Assistant auxiliary entities")
struct HomeAssistantAuxiliaryTests {
    func discovery(_ kinds: [AuxiliaryKind]) throws -> HomeAssistantDiscovery {
        var d = HomeAssistantDiscovery(settings: HomeAssistantSettings(enabled: true), deviceID: "board-7",
                                       topics: try TopicLayout(prefix: "edgemotion/board-7"), model: "iio", hasHeading: false)
        d.auxiliaryKinds = kinds
        return d
    }

    @Test("each kind is a sensor with HA's device class and unit: pressure kPa, temperature °C, illuminance lx, humidity %; pressure adds relative altitude in m")
    func entities() throws {
        let d = try discovery(AuxiliaryKind.allCases)
        let extra = d.entities.filter { ["pressure", "temperature", "light", "humidity", "relative_altitude"].contains($0.objectID) }
        #expect(extra.count == 5)
        let expected: [String: (String, String, String)] = [
            "pressure": ("pressure", "kPa", "edgemotion/board-7/sensor/pressure"),
            "temperature": ("temperature", "°C", "edgemotion/board-7/sensor/temperature"),
            "light": ("illuminance", "lx", "edgemotion/board-7/sensor/light"),
            "humidity": ("humidity", "%", "edgemotion/board-7/sensor/humidity"),
            "relative_altitude": ("distance", "m", "edgemotion/board-7/altitude"),
        ]
        for e in extra {
            let problems = HomeAssistantSchema.problems(topic: e.configTopic, payload: Array(e.config.serialized.utf8),
                                                        statusTopic: "edgemotion/board-7/status")
            #expect(problems.isEmpty, "\(e.configTopic): \(problems)")
            let o = try #require(JSONSerialization.jsonObject(with: Data(e.config.serialized.utf8)) as? [String: Any])
            let (dc, unit, topic) = try #require(expected[e.objectID])
            #expect(o["device_class"] as? String == dc)
            #expect(o["unit_of_measurement"] as? String == unit)
            #expect(o["state_topic"] as? String == topic)
        }
    }

    @Test("no auxiliary kinds, no extra entities; only light, no altitude")
    func onlyWhatIsThere() throws {
        #expect(try discovery([]).entities.count == 13)   // the 14 base entities less heading
        let ids = try discovery([.light]).entities.map(\.objectID)
        #expect(ids.contains("light") && !ids.contains("relative_altitude") && !ids.contains("pressure"))
    }

    @Test("the schema rejects a pressure sensor in the wrong unit")
    func schemaCanFail() {
        let bad = #"{"uniq_id":"u","stat_t":"a/b","dev_cla":"pressure","unit_of_meas":"kpa","avty_t":"a/status"}"#
        #expect(HomeAssistantSchema.problems(topic: "homeassistant/sensor/n/x/config", payload: Array(bad.utf8), statusTopic: "a/status")
            .contains { $0.contains("pressure unit 'kpa' not accepted") })
    }
}
