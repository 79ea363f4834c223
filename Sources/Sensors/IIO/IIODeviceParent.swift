#if canImport(Glibc)
import Glibc
#endif

/// The hardware device an IIO device belongs to, from sysfs: `/sys/bus/iio/devices/iio:deviceN`
/// links to `/sys/devices/…/<parent>/iio:deviceN`, and IIO devices with the same `<parent>` (one
/// I2C/SPI client such as `1-006a`) are parts of one chip — `st_lsm6dsx` registers its
/// accelerometer and gyroscope that way.
public enum IIODeviceParent {
    public static let defaultRoot = "/sys/bus/iio/devices"

    /// The resolved parent directory of `iio:deviceN`, e.g. `/sys/devices/platform/…/i2c-1/1-006a`;
    /// nil when the entry does not exist.
    public static func path(ofDevice id: String, root: String = defaultRoot) -> String? {
        guard let resolved = realpath(root + "/" + id, nil) else { return nil }
        defer { free(resolved) }
        let full = String(cString: resolved)
        guard let slash = full.lastIndex(of: "/"), slash != full.startIndex else { return nil }
        return String(full[..<slash])
    }

    /// The parent's own name (`1-006a`), for display.
    public static func name(ofDevice id: String, root: String = defaultRoot) -> String? {
        path(ofDevice: id, root: root).map { String($0.split(separator: "/").last ?? "") }
    }

    /// Whether the IIO device at `path` (`/sys/bus/iio/devices/iio:deviceN`) has a kernel buffer.
    public static func hasBuffer(_ path: String) -> Bool {
        access(path + "/buffer", F_OK) == 0 || access(path + "/scan_elements", F_OK) == 0
    }
}
