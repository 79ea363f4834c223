import Foundation
import Testing
import TestSupport
@testable import Agent

/// Settings that load and run but that the source's rate makes ineffective are named, as advice
/// (never an error), by `check-config` and in the agent's log. The rates are the documented ones:
/// the software tap detector needs 100 Hz (docs/events.md), the LSM6DSOX's output data rates are
/// 12.5, 26, 52, 104, 208, 416, 833 … Hz (datasheet DS13092, CTRL1_XL) and ST recommends 416 Hz
/// or more for its tap engine (AN5272), the vibration bands stop at 0.45 × the rate, the activity
/// detector needs 8 Hz (docs/activity.md).
@Suite("Configuration advice", .ownThread)
struct ConfigurationAdviceTests {
    static func advice(_ yaml: String) throws -> [ConfigurationAdvice.Warning] {
        ConfigurationAdvice.warnings(for: try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml"))
    }

    static func simulator(rate: Double, events: Bool = true, activity: Bool = true, extra: String = "") -> String {
        """
        source:
          type: simulator
          rate: \(rate)
        events:
          enabled: \(events)
        \(extra)
        activity:
          enabled: \(activity)
        streams:
          accelerometer: { publish_rate: 1 }
          gyroscope: { publish_rate: 1 }
          magnetometer: { publish_rate: 1 }
          motion: { publish_rate: 1 }
        """
    }

    /// The VM's LSM6DSOX with free_fall and tap handed to the chip (config/i2c-vm-lsm6dsox-freefall-tap.yaml) at `rate`;
    /// `engines: nil` leaves `chip_motion` at auto with no `chip_engines` list.
    static func lsm6dsox(rate: Double, engines: String? = "[free_fall, tap]") -> String {
        """
        source:
          type: i2c
          rate: \(rate)
          i2c: { bus: 0, address: 0x6b, chip: lsm6dsox }
          data_ready: { chip: edgemotion-sim, line: imu-drdy }
        events:
          enabled: true
        """ + (engines.map { "\n  chip_motion: on\n  chip_engines: \($0)" } ?? "")
    }

    @Test func aConfigurationAtUsualRatesGetsNoAdvice() throws {
        #expect(try Self.advice(Self.simulator(rate: 200)) == [])
        #expect(try Self.advice(Self.simulator(rate: 100)) == [])
        // Events off: tap is not asked for, whatever the rate.
        #expect(try Self.advice(Self.simulator(rate: 25, events: false)) == [])
    }

    @Test func belowOneHundredHertzTheSoftwareTapDetectorIsOffAndANoteSaysSo() throws {
        let a = try Self.advice(Self.simulator(rate: 50))
        #expect(a.count == 1)
        #expect(a.first?.severity == .note && a.first?.keyPath == "events.enabled")
        #expect(a.first?.message.contains("source.rate is 50 Hz") == true)
        #expect(a.first?.message.contains("needs ≥ 100 Hz") == true)
    }

    /// chip_motion auto without a chip_engines list keeps tap in software at 208 Hz ODR: a note
    /// says so and how to hand it over; at 416 Hz (the chip takes it) and at 50 Hz (the chip takes
    /// it, the software cannot run: only the 100 Hz note about software tap is absent) there is none.
    @Test func autoKeepingTapInSoftwareIsANote() throws {
        func auto(_ rate: Double) throws -> [ConfigurationAdvice.Warning] {
            try Self.advice(Self.lsm6dsox(rate: rate, engines: nil)).filter { $0.keyPath == "events.chip_motion" }
        }
        let at200 = try auto(200)
        #expect(at200.count == 1 && at200.first?.severity == .note, "\(at200)")
        #expect(at200.first?.message.contains("ODR would be 208 Hz") == true && at200.first?.message.contains("events.chip_engines") == true, "\(at200)")
        #expect(try auto(416).isEmpty)
        #expect(try auto(50).isEmpty)
    }

    @Test func theLSM6DSOXTapEngineBelowItsFourHundredSixteenHertzODRIsAWarning() throws {
        // rate 10 → ODR 12.5 Hz; 200 → 208 Hz; 300 and 416 → 416 Hz (the table's next rate not below).
        for (rate, odr) in [(10.0, "12.5"), (200, "208")] {
            let a = try Self.advice(Self.lsm6dsox(rate: rate)).filter { $0.keyPath == "events.chip_engines" }
            #expect(a.count == 1, "rate \(rate)")
            #expect(a.first?.severity == .warning)
            #expect(a.first?.message.contains("ODR of \(odr) Hz") == true, "\(a)")
        }
        for rate in [300.0, 416, 833] {
            #expect(try Self.advice(Self.lsm6dsox(rate: rate)) == [], "rate \(rate)")
        }
        // Tap left to the software detector (not in chip_engines): no chip warning; at 10 Hz the
        // note that software tap is off instead.
        let software = try Self.advice(Self.lsm6dsox(rate: 10, engines: "[free_fall]"))
        #expect(software.map(\.keyPath) == ["events.enabled"] && software.first?.severity == .note)
    }

    @Test func aVibrationBandAboveNinetyPercentOfNyquistIsCutOrEmpty() throws {
        let bands = "  vibration:\n    bands: {drum: [15, 40], motor: [60, 90]}"
        // 200 Hz: the top is 90 Hz, both bands fit.
        #expect(try Self.advice(Self.simulator(rate: 200, extra: bands)) == [])
        // 100 Hz: the top is 45 Hz; drum fits, motor [60, 90] is entirely above it.
        let at100 = try Self.advice(Self.simulator(rate: 100, extra: bands))
        #expect(at100.map(\.keyPath) == ["events.vibration.bands.motor"])
        #expect(at100.first?.message.contains("empty") == true)
        #expect(at100.first?.message.contains("more than 200 Hz") == true, "90 / 0.45 = 200")
        // 80 Hz: the top is 36 Hz; drum [15, 40] is cut there (tap is off too: a note).
        let at80 = try Self.advice(Self.simulator(rate: 80, extra: bands)).filter { $0.keyPath.hasPrefix("events.vibration") }
        #expect(at80.map(\.keyPath) == ["events.vibration.bands.drum", "events.vibration.bands.motor"])
        #expect(at80.first?.message.contains("cut at 36 Hz") == true, "\(at80)")
    }

    @Test func activityBelowEightHertzIsAWarningNamingTheKeyThatSilencesIt() throws {
        let a = try Self.advice(Self.simulator(rate: 5, events: false))
        #expect(a.map(\.keyPath) == ["activity.enabled"])
        #expect(a.first?.message.contains("needs ≥ 8 Hz") == true)
        #expect(try Self.advice(Self.simulator(rate: 5, events: false, activity: false)) == [])
        #expect(try Self.advice(Self.simulator(rate: 10, events: false)) == [])
    }

    @Test func checkConfigPrintsTheAdviceAfterOKWithExitStatusZero() throws {
        let path = try ConfigTestSupport.temporaryFile(Self.simulator(rate: 5, events: false))
        defer { ConfigTestSupport.removeTemporaryFile(path) }
        let p = try AgentProcess(["check-config", path])
        let status = p.waitForExit(timeout: 20)
        let out = p.log
        #expect(status == 0)
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(out)")
        #expect(lines.first?.hasPrefix("\(path): OK") == true)
        #expect(lines.last?.hasPrefix("\(path): warning: activity.enabled: activity and steps will be withheld") == true, "\(out)")
    }

    @Test func runLogsTheAdviceAtStartUpOneStructuredLineEach() throws {
        // No broker: `run` stops at the broker check (exit 2), after the advice is logged.
        let path = try ConfigTestSupport.temporaryFile(Self.simulator(rate: 50, extra: "  vibration:\n    bands: {motor: [60, 90]}"))
        defer { ConfigTestSupport.removeTemporaryFile(path) }
        let p = try AgentProcess(["run", "--config", path])
        #expect(p.waitForExit(timeout: 20) == 2)
        let lines = p.log.split(separator: "\n")
        #expect(lines.filter { $0.contains(" notice ") && $0.contains("event=\"tap detection off at this rate\"") }.count == 1, "\(p.log)")
        #expect(lines.filter { $0.contains(" warning ") && $0.contains("key=events.vibration.bands.motor") }.count == 1, "\(p.log)")
    }
}
