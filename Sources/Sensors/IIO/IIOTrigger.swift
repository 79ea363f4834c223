#if canImport(Glibc)
import Glibc
#endif
import Platform

/// Which trigger drives an IIO device's buffer (config `source.iio.trigger`).
public enum IIOTrigger: Sendable, Hashable {
    /// The device's own trigger (its data-ready interrupt; needs the IRQ wired in the device tree).
    case own
    /// A software hrtimer trigger with this name, created through configfs if missing.
    case hrtimer(name: String)
    /// An existing trigger by name (e.g. `sysfstrig7`).
    case named(String)
    /// No buffer: poll the `_raw` attributes at the rate on a timer.
    case none

    /// Parses `own`, `none`, `hrtimer`, `hrtimer:<name>` or a trigger name.
    public init(_ text: String) {
        switch text {
        case "own", "": self = .own
        case "none": self = .none
        case "hrtimer": self = .hrtimer(name: "edgemotion")
        default:
            if text.hasPrefix("hrtimer:") { self = .hrtimer(name: String(text.dropFirst(8))) } else { self = .named(text) }
        }
    }

    /// Creates the hrtimer trigger through configfs when it does not exist yet (needs
    /// industrialio-configfs + iio-trig-hrtimer, configfs mounted, and write access).
    static func ensureHrtimer(named name: String) throws(SensorError) {
        let dir = "/sys/kernel/config/iio/triggers/hrtimer"
        if mkdir(dir + "/" + name, 0o755) == 0 || errno == EEXIST { return }
        let e = errno
        throw SensorError(e == EACCES || e == EPERM ? .permissionDenied : .notFound, subject: dir + "/" + name,
                          detail: "cannot create the hrtimer trigger (\(Errno(e))); run 'modprobe industrialio-configfs iio-trig-hrtimer', mount configfs on /sys/kernel/config, or create it at boot (hardware/udev/README.md)")
    }
}
