import Logging
import MotionCore
import Sensors

/// Warnings about a configuration that loads and runs but will not do what it appears to ask:
/// secrets other users can read (`SecretFileCheck`), and settings the source's rate makes
/// ineffective. Never an error (the agent starts as configured); `check-config` prints them
/// (`FILE: warning: KEY: …` or `FILE: note: …`, exit status unchanged), `run` and every SIGHUP
/// reload log each once (at `warning` or `notice`). One home for this advice, so `check-config`
/// and `run` say the same. A warning can be silenced by changing the key it names; a note says
/// what the rate leaves off where there is no key to change (tap below 100 Hz).
public enum ConfigurationAdvice {
    /// One warning: the key it is about (empty for a file) and what to do.
    public struct Warning: Sendable, Equatable, CustomStringConvertible {
        /// `warning`: a key the user set does not do what it says; `note`: what the rate leaves off.
        public enum Severity: String, Sendable { case warning, note }
        public var severity: Severity = .warning
        /// The log line's event (`secret readable by other users`, `setting ineffective at this rate`).
        public var event: String
        public var keyPath: String
        public var message: String
        public var description: String { keyPath.isEmpty ? message : keyPath + ": " + message }
    }

    static let ineffective = "setting ineffective at this rate"

    /// Every warning for `c` (empty when there is nothing to say).
    public static func warnings(for c: AgentConfiguration) -> [Warning] {
        var out = SecretFileCheck.warnings(for: c).map { Warning(event: "secret readable by other users", keyPath: "", message: $0) }
        // A replay's rate is the recording's, not source.rate: nothing to say about it here.
        guard c.source.kind != .replay else { return out }
        let rate = c.source.rate
        let rateText = "source.rate is \(hz(rate)) Hz"
        let d = c.events.detectors
        if c.events.enabled {
            let wantsTap = d.enabled.contains(.tap) || d.enabled.contains(.doubleTap)
            if wantsTap, !d.chipTap, rate < d.tap.minimumSampleRate {
                out.append(Warning(severity: .note, event: "tap detection off at this rate", keyPath: "events.enabled",
                                   message: "tap and double_tap are not detected: \(rateText) and the software tap detector needs ≥ \(hz(d.tap.minimumSampleRate)) Hz (raise source.rate for them)"))
            }
            // The ODR the driver programs: the table's rate nearest not below source.rate.
            let odr = RegisterDecoding.pickRate(LSM6DSx.rates, atLeast: rate).rate
            if wantsTap, c.autoKeepsTapInSoftware {
                out.append(Warning(severity: .note, event: "tap left to the software detector", keyPath: "events.chip_motion",
                                   message: "auto keeps tap with the software detector: the lsm6dsox's ODR would be \(hz(odr)) Hz (\(rateText)), below the \(hz(LSM6DSx.tapMinimumODR)) Hz ST recommends for its tap engine; list tap in events.chip_engines to hand it over anyway, or raise source.rate to \(hz(LSM6DSx.tapMinimumODR)) Hz"))
            }
            if wantsTap, d.chipTap, IMUChipModel(rawValue: c.source.i2c.chip) == .lsm6dsox, odr < LSM6DSx.tapMinimumODR {
                out.append(Warning(event: ineffective, keyPath: "events.chip_engines",
                                   message: "tap is handed to the lsm6dsox's engine at an ODR of \(hz(odr)) Hz (\(rateText)); ST recommends its 416 Hz ODR or more for tap (AN5272), and below that it misses taps and reports landings and knocks as taps; raise source.rate or leave tap out of events.chip_engines"))
            }
            if d.enabled.contains(.vibrationStart) || d.enabled.contains(.vibrationStop) {
                // VibrationAnalyzer cuts every band at bandLimitFraction (0.45) × the sample rate.
                let fraction = VibrationAnalyzer.bandLimitFraction
                let top = fraction * rate
                for b in d.vibration.bands where b.high > top {
                    let empty = b.low >= top
                    out.append(Warning(event: ineffective, keyPath: "events.vibration.bands." + b.name,
                                       message: "[\(hz(b.low)), \(hz(b.high))] Hz reaches above \(FixedPoint.string(fraction, digits: 2)) × the sample rate (\(hz(top)) Hz with source.rate \(hz(rate)) Hz): "
                                           + (empty ? "the band is empty and its RMS always 0" : "it is cut at \(hz(top)) Hz")
                                           + "; raise source.rate to more than \(FixedPoint.string(b.high / fraction, digits: 0)) Hz or lower the band"))
                }
            }
        }
        let activityMinimum = c.activity.detectorConfiguration.minimumInputRate
        if c.activity.enabled, rate < activityMinimum {
            out.append(Warning(event: ineffective, keyPath: "activity.enabled",
                               message: "activity and steps will be withheld: \(rateText) and the activity detector needs ≥ \(hz(activityMinimum)) Hz; raise source.rate or set activity.enabled: false"))
        }
        return out
    }

    /// `26`, `12.5`: a rate in Hz without a needless decimal.
    static func hz(_ v: Double) -> String { FixedPoint.string(v, digits: abs(v - v.rounded()) < 0.05 ? 0 : 1) }

    /// Logs every warning once, at `warning` or `notice` (start-up and each reload).
    static func log(_ c: AgentConfiguration, to log: Logger) {
        for w in warnings(for: c) {
            let level: LogLevel = w.severity == .note ? .notice : .warning
            if w.keyPath.isEmpty {
                log.log(level, w.event, ["problem": w.message])
            } else {
                log.log(level, w.event, ["key": w.keyPath, "problem": w.message])
            }
        }
    }
}
