import CIIO
import MotionCore

/// Which IIO devices an `IIOSource` reads (config `source.iio.device` / `source.iio.devices`), and
/// what they can deliver.
///
/// Either exactly the devices listed in `deviceSpecs`, or the device `deviceSpec` (nil: the first
/// with an accelerometer) plus its siblings: devices on the same parent hardware device (sysfs,
/// local context only) that add an inertial kind the named one lacks (ST's `st_lsm6dsx` registers
/// `<chip>_accel` and `<chip>_gyro` on one I2C client).
struct IIODeviceSelection: Sendable, Hashable {
    /// libiio context URI, `local:` or `ip:<host>`.
    let uri: String
    /// Device name, label, id or index; nil picks the first device with an accelerometer.
    let deviceSpec: String?
    /// Exactly these devices (no sibling discovery); empty: `deviceSpec` and its siblings.
    let deviceSpecs: [String]

    /// Whether the context is the local sysfs one (sibling discovery, presence checks).
    var isLocal: Bool { uri.hasPrefix("local") }

    /// `bmi160`, `lsm6dsox_accel+lsm6dsox_gyro` or `auto`, for errors before any device is open.
    var description: String {
        deviceSpecs.isEmpty ? (deviceSpec ?? "auto") : deviceSpecs.joined(separator: "+")
    }

    /// The devices to read in `ctx`: `deviceSpecs` as listed, or `deviceSpec` plus its siblings.
    func resolve(_ ctx: IIOContext) throws(SensorError) -> [OpaquePointer] {
        if !deviceSpecs.isEmpty {
            var out: [OpaquePointer] = []
            for spec in deviceSpecs {
                guard let d = ctx.device(spec) else {
                    throw SensorError(.notFound, subject: "iio \(uri) device '\(spec)' (source.iio.devices)",
                                      detail: "no such IIO device (devices: \(ctx.deviceList)); list names, labels or indexes that 'edgemotion probe' shows")
                }
                guard !out.contains(d) else {
                    throw SensorError(.invalidData, subject: "iio \(uri) device '\(spec)' (source.iio.devices)", detail: "listed twice; list each device once")
                }
                out.append(d)
            }
            return out
        }
        guard let dev = ctx.device(deviceSpec) else {
            throw SensorError(.notFound, subject: "iio \(uri) device '\(deviceSpec ?? "(first with an accelerometer)")'",
                              detail: "no such IIO device (devices: \(ctx.deviceList)); set source.iio.device to a name, label or index")
        }
        return [dev] + siblings(of: dev, in: ctx)
    }

    /// Devices on the same parent hardware device as `dev` that add an inertial kind `dev` lacks
    /// (local contexts only; a remote context has no sysfs to tell), in id order.
    private func siblings(of dev: OpaquePointer, in ctx: IIOContext) -> [OpaquePointer] {
        guard isLocal, let parent = IIODeviceParent.path(ofDevice: String(cString: iio_device_get_id(dev))) else { return [] }
        var have = Self.inertialKinds(dev)
        guard have != [.accelerometer, .gyroscope, .magnetometer] else { return [] }
        var out: [OpaquePointer] = []
        for other in ctx.devices where other != dev && !iio_device_is_trigger(other) {
            let kinds = Self.inertialKinds(other)
            guard !kinds.subtracting(have).isEmpty,
                  IIODeviceParent.path(ofDevice: String(cString: iio_device_get_id(other))) == parent else { continue }
            out.append(other)
            have.formUnion(kinds)
        }
        return out
    }

    /// The inertial sensor kinds among a device's input channels.
    static func inertialKinds(_ dev: OpaquePointer) -> IMUSample.Contents {
        var kinds: IMUSample.Contents = []
        for ch in IIOContext.channels(dev) where !iio_channel_is_output(ch) {
            switch iio_channel_get_type(ch) {
            case IIO_ACCEL: kinds.insert(.accelerometer)
            case IIO_ANGL_VEL: kinds.insert(.gyroscope)
            case IIO_MAGN: kinds.insert(.magnetometer)
            default: break
            }
        }
        return kinds
    }

    // MARK: capabilities

    /// What the selected devices can deliver, from one short-lived context: the inertial kinds,
    /// `sampling_frequency_available` (Hz, ascending) and the combined device names. When the
    /// context or a device cannot be found, a fallback named after the spec (inertial, up to 1 kHz):
    /// `start` then reports the real error.
    func probeCapabilities() -> SourceCapabilities {
        guard let ctx = try? IIOContext(uri: uri), let devs = try? resolve(ctx), !devs.isEmpty else {
            return SourceCapabilities(name: "iio:\(description)", sensors: .inertial, maximumRate: 1000)
        }
        return Self.capabilities(of: devs)
    }

    /// The capabilities of resolved devices (their context must be alive).
    static func capabilities(of devs: [OpaquePointer]) -> SourceCapabilities {
        var contents: IMUSample.Contents = []
        var rates: [Double] = []
        let inertial = [IIO_ACCEL, IIO_ANGL_VEL, IIO_MAGN]
        for dev in devs {
            contents.formUnion(inertialKinds(dev))
            for ch in IIOContext.channels(dev) where !iio_channel_is_output(ch) && inertial.contains(iio_channel_get_type(ch)) {
                if rates.isEmpty, let a = IIOContext.read(ch, "sampling_frequency_available") { rates = IIOSysfsValues.availableValues(a) }
            }
            if rates.isEmpty, let a = IIOContext.read(device: dev, "sampling_frequency_available") { rates = IIOSysfsValues.availableValues(a) }
        }
        let name = devs.map { iio_device_get_name($0).map { String(cString: $0) } ?? "?" }.joined(separator: "+")
        return SourceCapabilities(name: "iio:\(name)", sensors: contents, supportedRates: rates, maximumRate: rates.last ?? 1000)
    }
}
