import Foundation
import Testing
import MotionCore
@testable import Agent

/// The `events:` section: named tilt thresholds written as a person would say them, bands, and
/// mistakes reported at their line.
@Suite("Event config")
struct EventConfigTests {
    typealias S = ConfigTestSupport

    @Test func aDoorThresholdReadsAsWritten() throws {
        let yaml = """
        events:
          enabled: true
          thresholds:
            door: {above_deg: 60, below_deg: 20, dwell_s: 1, on: open, off: closed, device_class: garage_door}
            lid: {above_deg: 10}
          vibration:
            bands: {drum: [10, 25]}
        """
        let c = try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml")
        #expect(c.events.enabled)
        let t = c.events.detectors.tiltThresholds
        #expect(t == [TiltThreshold(name: "door", onAbove: 60, offBelow: 20, onDwell: 1, offDwell: 1, onName: "open", offName: "closed"),
                      TiltThreshold(name: "lid", onAbove: 10, offBelow: 10, onDwell: 1, offDwell: 1)])
        #expect(c.events.deviceClasses == ["garage_door", nil])
        #expect(c.events.detectors.vibration.bands == [VibrationBand(name: "drum", low: 10, high: 25)])
    }

    @Test func offLevelAboveTheOnLevelIsRefusedAtItsLine() {
        let problems = S.problems("events:\n  thresholds:\n    door: {above_deg: 20, below_deg: 60}\n")
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("t.yaml:3:") == true && problems.first?.contains("events.thresholds.door.below_deg") == true,
                "\(problems)")
    }

    @Test func aThresholdWithoutAnAngleAndABadBandAreNamed() {
        let problems = S.problems("events:\n  thresholds:\n    door: {dwell_s: 1}\n  vibration:\n    bands: {hum: [50, 40]}\n")
        #expect(problems.contains { $0.contains("events.thresholds.door") && $0.contains("above_deg is required") }, "\(problems)")
        #expect(problems.contains { $0.contains("events.vibration.bands.hum") }, "\(problems)")
    }

    /// No source runs above 10 000 Hz, so no band edge above 5 000 Hz can hold a frequency: such a
    /// band (and a non-number such as 1e309, which YAML reads as infinity) is refused at its line,
    /// while 5 000 Hz itself loads.
    @Test func aBandAboveHalfTheHighestSourceRateIsRefused() throws {
        let problems = S.problems("events:\n  vibration:\n    bands:\n      ultra: [100, 5001]\n      inf: [1, 1e309]\n")
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("t.yaml:4:") && $0.contains("events.vibration.bands.ultra") && $0.contains("5000") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("t.yaml:5:") && $0.contains("events.vibration.bands.inf") }, "\(problems)")
        let c = try ConfigurationLoader.parse(yaml: "events:\n  vibration:\n    bands: {top: [4000, 5000]}\n", fileName: "t.yaml")
        #expect(c.events.detectors.vibration.bands == [VibrationBand(name: "top", low: 4000, high: 5000)])
    }

    @Test func theSpectrumIsOffByDefaultAndReadsAsWritten() throws {
        #expect(try ConfigurationLoader.parse(yaml: "events: {enabled: true}\n", fileName: "t.yaml").events.detectors.vibration.spectrum.enabled == false)
        let yaml = "events:\n  vibration:\n    spectrum: {enabled: true, interval_s: 30, length: 1024, bins: 24, min_hz: 5}\n"
        let s = try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml").events.detectors.vibration.spectrum
        #expect(s.enabled && s.interval == 30 && s.length == 1024 && s.bins == 24 && s.lowestFrequency == 5)
    }

    @Test func spectrumMistakesAreNamedAtTheirLine() {
        let problems = S.problems("events:\n  vibration:\n    spectrum:\n      length: 300\n      interval_s: 0.1\n      bins: 0\n      colour: red\n")
        #expect(problems.contains { $0.hasPrefix("t.yaml:4:") && $0.contains("events.vibration.spectrum.length") && $0.contains("4096") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("t.yaml:5:") && $0.contains("events.vibration.spectrum.interval_s") }, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("t.yaml:6:") && $0.contains("events.vibration.spectrum.bins") }, "\(problems)")
        #expect(problems.contains { $0.contains("events.vibration.spectrum.colour") && $0.contains("unknown key") }, "\(problems)")
    }

    @Test func theReferenceFileEnablesNothingByDefault() throws {
        let c = try ConfigurationLoader.load(path: S.packageRoot.appendingPathComponent("config/edgemotion.yaml").path)
        #expect(!c.events.enabled)
        #expect(c.events.detectors.tiltThresholds.isEmpty)
        #expect(!c.events.detectors.enabled.contains(.fall))
        #expect(!c.events.detectors.vibration.spectrum.enabled)
    }
}
