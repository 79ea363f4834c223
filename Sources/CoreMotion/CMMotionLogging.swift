import Foundation
internal import EdgeMotion

/// EdgeMotion addition (no Core Motion equivalent): the library's log lines on standard error.
/// `EDGEMOTION_LOG_LEVEL` sets it from the environment: `off`, or the least severe level logged
/// (`trace`, `debug`, `info`, `notice`, `warning` (the default here), `error`, `critical`).
public enum CMMotionLogging {
    /// Whether anything is logged. Set to `false` to keep standard error quiet.
    public static var isEnabled: Bool {
        get { MotionLogging.isEnabled }
        set { MotionLogging.isEnabled = newValue }
    }

    static func applyEnvironment(_ env: [String: String]) {
        let level = env["EDGEMOTION_LOG_LEVEL"] ?? "warning"
        if level == "off" {
            MotionLogging.isEnabled = false
        } else if !MotionLogging.setMinimumLevel(level) {
            MotionLogging.setMinimumLevel("warning")
        }
    }
}
