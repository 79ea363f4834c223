import Foundation
import Testing
import Messaging
import Sensors
@testable import Agent

/// Home Assistant's own sensor rules, as data: which units and state classes each device class
/// allows. Transcribed by hand from `homeassistant/components/sensor/const.py` of Home Assistant
/// **2025.4.4** (the wheel `homeassistant-2025.4.4-py3-none-any.whl`: `DEVICE_CLASS_UNITS`,
/// `DEVICE_CLASS_STATE_CLASSES`, `STATE_CLASS_UNITS`, `NON_NUMERIC_DEVICE_CLASSES`; the unit enums
/// `UnitOfLength`, `UnitOfFrequency`, `UnitOfPressure`, `UnitOfTemperature` and `PERCENTAGE`,
/// `LIGHT_LUX`, `DEGREE` from `homeassistant/const.py`), only for the device classes the agent
/// uses. Not derived from our code: if the agent starts using another device class, its entry
/// has to be transcribed here (the test fails until then).
///
/// What Home Assistant does with a breach (`SensorEntity.state` in `sensor/__init__.py`): a unit
/// outside `DEVICE_CLASS_UNITS` or a state class outside `DEVICE_CLASS_STATE_CLASSES` logs a
/// warning per entity ("is using native unit of measurement … which is not a valid unit for the
/// device class") and breaks long-term statistics; a unit on a non-numeric device class or a unit
/// outside `STATE_CLASS_UNITS` raises, and the entity has no state.
enum HomeAssistantSensorRules {
    static let release = "2025.4.4"

    /// `DEVICE_CLASS_UNITS` (sensor/const.py), the entries of the device classes we use.
    static let deviceClassUnits: [String: Set<String?>] = [
        // SensorDeviceClass.DISTANCE: set(UnitOfLength)
        "distance": ["mm", "cm", "m", "km", "in", "ft", "yd", "mi", "nmi"],
        // SensorDeviceClass.FREQUENCY: set(UnitOfFrequency)
        "frequency": ["Hz", "kHz", "MHz", "GHz"],
        // SensorDeviceClass.HUMIDITY: {PERCENTAGE}
        "humidity": ["%"],
        // SensorDeviceClass.ILLUMINANCE: {LIGHT_LUX}
        "illuminance": ["lx"],
        // SensorDeviceClass.PRESSURE: set(UnitOfPressure)
        "pressure": ["Pa", "hPa", "kPa", "bar", "cbar", "mbar", "mmHg", "inHg", "psi"],
        // SensorDeviceClass.TEMPERATURE: set(UnitOfTemperature)
        "temperature": ["°C", "°F", "K"],
    ]

    /// `DEVICE_CLASS_STATE_CLASSES` (sensor/const.py), the entries of the device classes we use.
    static let deviceClassStateClasses: [String: Set<String>] = [
        // SensorDeviceClass.DISTANCE: set(SensorStateClass)
        "distance": ["measurement", "measurement_angle", "total", "total_increasing"],
        // SensorDeviceClass.ENUM: set()
        "enum": [],
        "frequency": ["measurement"],
        "humidity": ["measurement"],
        "illuminance": ["measurement"],
        "pressure": ["measurement"],
        "temperature": ["measurement"],
    ]

    /// `STATE_CLASS_UNITS` (sensor/const.py): `SensorStateClass.MEASUREMENT_ANGLE: {DEGREE}`.
    static let stateClassUnits: [String: Set<String>] = ["measurement_angle": ["°"]]

    /// `NON_NUMERIC_DEVICE_CLASSES` (sensor/const.py): `DATE`, `ENUM`, `TIMESTAMP`.
    static let nonNumericDeviceClasses: Set<String> = ["date", "enum", "timestamp"]

    /// `SensorStateClass` values in 2025.4.
    static let stateClasses: Set<String> = ["measurement", "measurement_angle", "total", "total_increasing"]

    /// Every rule of the above that a sensor's (device class, unit, state class) breaks.
    static func problems(deviceClass: String?, unit: String?, stateClass: String?) -> [String] {
        var p: [String] = []
        if let sc = stateClass, !stateClasses.contains(sc) { p.append("state_class '\(sc)' is no SensorStateClass") }
        if let dc = deviceClass {
            if nonNumericDeviceClasses.contains(dc), unit != nil {
                p.append("unit '\(unit!)' on the non-numeric device class '\(dc)' (HA raises)")
            }
            if let units = deviceClassUnits[dc], !units.contains(unit) {
                p.append("unit \(unit.map { "'\($0)'" } ?? "none") is not one of DEVICE_CLASS_UNITS[\(dc)] \(units.map { $0 ?? "None" }.sorted())")
            }
            if let sc = stateClass, let allowed = deviceClassStateClasses[dc], !allowed.contains(sc) {
                p.append("state_class '\(sc)' is not one of DEVICE_CLASS_STATE_CLASSES[\(dc)] \(allowed.sorted())")
            }
            if deviceClassUnits[dc] == nil && deviceClassStateClasses[dc] == nil {
                p.append("device class '\(dc)' is not transcribed from HA \(release)'s sensor/const.py here")
            }
        }
        if let sc = stateClass, let units = stateClassUnits[sc], !units.contains(unit ?? "") {
            p.append("unit \(unit.map { "'\($0)'" } ?? "none") is not one of STATE_CLASS_UNITS[\(sc)] \(units.sorted()) (HA raises)")
        }
        return p
    }
}

@Suite("Home Assistant sensor rules (2025.4)")
struct HomeAssistantSensorRulesTests {
    /// Everything on: heading, events with the spectrum and orientation, a threshold, control, and
    /// every auxiliary kind (pressure adds the relative altitude) — every sensor the agent can announce.
    func everything() throws -> HomeAssistantDiscovery {
        var d = HomeAssistantDiscovery(settings: HomeAssistantSettings(enabled: true), deviceID: "board-7",
                                       topics: try TopicLayout(prefix: "edgemotion/board-7"), model: "bmi160",
                                       hasHeading: true, hasEvents: true)
        d.hasSpectrum = true
        d.hasOrientation = true
        d.hasControl = true
        d.thresholds = [ThresholdEntity(name: "lid", deviceClass: "opening")]
        d.auxiliaryKinds = AuxiliaryKind.allCases
        return d
    }

    /// (object_id, device_class, unit_of_measurement, state_class) of every announced sensor,
    /// read back from its serialized discovery document (abbreviations expanded as HA does).
    func sensors() throws -> [(id: String, deviceClass: String?, unit: String?, stateClass: String?)] {
        try everything().entities.filter { $0.component == "sensor" }.map { e in
            let raw = try #require(try JSONSerialization.jsonObject(with: Data(e.config.serialized.utf8)) as? [String: Any])
            let c = HomeAssistantSchema.expand(raw)
            return (e.objectID, c["device_class"] as? String, c["unit_of_measurement"] as? String, c["state_class"] as? String)
        }
    }

    @Test("every announced sensor's device class / unit / state class is allowed by HA 2025.4's DEVICE_CLASS_UNITS and DEVICE_CLASS_STATE_CLASSES")
    func everySensorFollowsHomeAssistantsRules() throws {
        let all = try sensors()
        // The sensors of docs/home-assistant.md with everything on, so a sensor cannot drop out unseen.
        #expect(Set(all.map(\.id)).isSuperset(of: ["activity", "heading", "roll", "pitch", "steps", "cadence", "distance", "pace", "tilt", "vibration_rms",
                                                   "vibration_peak_frequency", "pressure", "temperature", "light", "humidity",
                                                   "relative_altitude", "sample_rate", "dropped_samples", "mqtt_reconnects"]), "\(all.map(\.id))")
        for s in all {
            let problems = HomeAssistantSensorRules.problems(deviceClass: s.deviceClass, unit: s.unit, stateClass: s.stateClass)
            #expect(problems.isEmpty, "sensor \(s.id) (device_class \(s.deviceClass ?? "none"), unit \(s.unit ?? "none"), state_class \(s.stateClass ?? "none")): \(problems)")
        }
        // Every device class we use is one of the transcribed entries (or the check above says so).
        let used = Set(all.compactMap(\.deviceClass))
        #expect(used.isSubset(of: Set(HomeAssistantSensorRules.deviceClassStateClasses.keys)), "\(used)")
    }

    /// The rules can fail: a unit HA does not allow for the class, a state class the class does
    /// not allow, a unit on an enum, an angle not in degrees.
    @Test func theRulesRejectWhatHomeAssistantRejects() {
        #expect(!HomeAssistantSensorRules.problems(deviceClass: "pressure", unit: "kpa", stateClass: "measurement").isEmpty)
        #expect(!HomeAssistantSensorRules.problems(deviceClass: "frequency", unit: "mHz", stateClass: "measurement").isEmpty)
        #expect(!HomeAssistantSensorRules.problems(deviceClass: "temperature", unit: "°C", stateClass: "total_increasing").isEmpty)
        #expect(!HomeAssistantSensorRules.problems(deviceClass: "humidity", unit: nil, stateClass: "measurement").isEmpty)
        #expect(!HomeAssistantSensorRules.problems(deviceClass: "enum", unit: "g", stateClass: nil).isEmpty)
        #expect(!HomeAssistantSensorRules.problems(deviceClass: "enum", unit: nil, stateClass: "measurement").isEmpty)
        #expect(!HomeAssistantSensorRules.problems(deviceClass: nil, unit: "rad", stateClass: "measurement_angle").isEmpty)
        #expect(!HomeAssistantSensorRules.problems(deviceClass: "speed", unit: "m/s", stateClass: "measurement").isEmpty)
        #expect(HomeAssistantSensorRules.problems(deviceClass: nil, unit: "°", stateClass: "measurement_angle").isEmpty)
        #expect(HomeAssistantSensorRules.problems(deviceClass: "distance", unit: "m", stateClass: "measurement").isEmpty)
    }
}
