#if canImport(Glibc)
import Glibc
#endif
import Platform
import CIIO

/// Thin owner of a libiio context (`local:` or `ip:host`) and helpers around its C API.
/// Unsafe interop stays in this file and the IIO readers. Not Sendable: an owner (a reader, the
/// `AuxiliarySensorReader`) keeps it on one thread at a time.
final class IIOContext {
    let uri: String
    let raw: OpaquePointer

    init(uri: String) throws(SensorError) {
        guard let ctx = iio_create_context_from_uri(uri) else {
            let e = errno
            throw SensorError(e == EACCES || e == EPERM ? .permissionDenied : .notFound, subject: "IIO context '\(uri)'",
                              detail: "cannot create the libiio context (\(Errno(e))); for local: check /sys/bus/iio/devices, for ip: check that iiod runs on the host")
        }
        self.uri = uri
        raw = ctx
    }

    deinit { iio_context_destroy(raw) }

    var devices: [OpaquePointer] {
        (0..<iio_context_get_devices_count(raw)).compactMap { iio_context_get_device(raw, $0) }
    }

    /// Finds a device by name, label, id (`iio:device0`) or index (`0` → `iio:device0`); with no
    /// spec (nil or empty), the first device that has accelerometer channels.
    func device(_ spec: String?) -> OpaquePointer? {
        guard let spec, !spec.isEmpty else {
            return devices.first { dev in
                !iio_device_is_trigger(dev) && IIOContext.channels(dev).contains { iio_channel_get_type($0) == IIO_ACCEL && !iio_channel_is_output($0) }
            }
        }
        if let n = Int(spec), let d = iio_context_find_device(raw, "iio:device\(n)") { return d }
        return iio_context_find_device(raw, spec)
    }

    /// `name (id)` of every non-trigger device, for error texts.
    var deviceList: String {
        let names = devices.filter { !iio_device_is_trigger($0) }.map { Self.describe($0) }
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    static func describe(_ dev: OpaquePointer) -> String {
        let id = String(cString: iio_device_get_id(dev))
        let name = iio_device_get_name(dev).map { String(cString: $0) } ?? "?"
        let label = iio_device_get_label(dev).map { " label \(String(cString: $0))" } ?? ""
        return "\(name) (\(id)\(label))"
    }

    /// Reads a channel attribute as text; `nil` when absent or unreadable.
    static func read(_ channel: OpaquePointer, _ attr: String) -> String? {
        guard iio_channel_find_attr(channel, attr) != nil else { return nil }
        var buf = [CChar](repeating: 0, count: 512)
        let n = iio_channel_attr_read(channel, attr, &buf, buf.count)
        guard n > 0 else { return nil }
        return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func read(device: OpaquePointer, _ attr: String) -> String? {
        guard iio_device_find_attr(device, attr) != nil else { return nil }
        var buf = [CChar](repeating: 0, count: 512)
        let n = iio_device_attr_read(device, attr, &buf, buf.count)
        guard n > 0 else { return nil }
        return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Writes a channel attribute; returns 0 or a negative errno.
    static func write(_ channel: OpaquePointer, _ attr: String, _ value: String) -> Int {
        Int(iio_channel_attr_write(channel, attr, value))
    }

    static func write(device: OpaquePointer, _ attr: String, _ value: String) -> Int {
        Int(iio_device_attr_write(device, attr, value))
    }

    static func id(_ channel: OpaquePointer) -> String { String(cString: iio_channel_get_id(channel)) }

    static func channels(_ dev: OpaquePointer) -> [OpaquePointer] {
        (0..<iio_device_get_channels_count(dev)).compactMap { iio_device_get_channel(dev, $0) }
    }
}

/// Formats a rate for a sysfs write without locale (`100`, `0.78125`).
func sysfsNumber(_ v: Double) -> String {
    v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
}
