import CIIO
import Logging
import MotionCore

/// One scalar channel of a vector sensor: `(raw + offset) · scale` in the IIO ABI unit, and where
/// it sits in a buffer scan (`byteOffset`, set when a buffer is created).
struct IIOAxis {
    var channel: OpaquePointer
    var format: IIOScanFormat
    var scale: Double
    var offset: Double
    var byteOffset = 0
}

/// The three axes of one sensor, with its mount matrix and the factor from the IIO ABI unit to the
/// published one (m/s², rad/s: 1; magnetometer Gauss → µT: 100).
struct IIOVectorSensor {
    var axes: [IIOAxis]
    var matrix: RotationMatrix
    var unitFactor: Double
    var content: IMUSample.Contents
}

/// How an IIO device's channels map onto `IMUSample`: which `accel_*` / `anglvel_*` / `magn_*`
/// channels form each sensor, their scale, offset and scan format, the mount matrix, the timestamp
/// channel, and the output rate. Found at `IIOSource.start`; `decode`/`store` run per sample.
enum IIOChannelLayout {
    /// Finds a member's accel/anglvel/magn axes (kinds in `skipping` came from an earlier member and
    /// are left out) and its timestamp channel. `mountMatrices` gets each sensor type's matrix found
    /// in sysfs (`accel`, `anglvel`, `magn`; absent types use identity).
    static func discover(_ member: inout IIODeviceMember, skipping: IMUSample.Contents,
                         mountMatrices: inout [String: RotationMatrix]) throws(SensorError) {
        let dev = member.device
        let subject = member.subject
        let all = IIOContext.channels(dev).filter { !iio_channel_is_output($0) }
        let kinds: [(iio_chan_type, IMUSample.Contents, String, Double)] =
            [(IIO_ACCEL, .accelerometer, "accel", 1), (IIO_ANGL_VEL, .gyroscope, "anglvel", 1), (IIO_MAGN, .magnetometer, "magn", 100)]
        for (type, content, prefix, factor) in kinds where !skipping.contains(content) {
            var axes: [IIOAxis] = []
            for mod in [IIO_MOD_X, IIO_MOD_Y, IIO_MOD_Z] {
                guard let ch = all.first(where: { iio_channel_get_type($0) == type && iio_channel_get_modifier($0) == mod }) else { continue }
                let scale = IIOContext.read(ch, "scale").flatMap(IIOSysfsValues.number) ?? 1
                let offset = IIOContext.read(ch, "offset").flatMap(IIOSysfsValues.number) ?? 0
                let format = iio_channel_get_data_format(ch).map { IIOScanFormat($0.pointee) }
                    ?? IIOScanFormat(storageBits: 16, realBits: 16, shift: 0, isSigned: true, isBigEndian: false)
                axes.append(IIOAxis(channel: ch, format: format, scale: scale, offset: offset))
            }
            guard !axes.isEmpty else { continue }
            guard axes.count == 3 else {
                throw SensorError(.unsupported, subject: subject, detail: "\(prefix) has \(axes.count) of 3 axes; only 3-axis sensors are supported")
            }
            var matrix = RotationMatrix.identity
            var found = false
            if let text = mountMatrixText(dev, prefix: prefix, firstAxis: axes[0].channel, among: all) {
                guard let m = IIOSysfsValues.mountMatrix(text) else {
                    throw SensorError(.invalidData, subject: subject + " \(prefix) mount_matrix", detail: "cannot parse '\(text)'; expected 'a, b, c; d, e, f; g, h, i'")
                }
                matrix = m
                found = true
            }
            mountMatrices[prefix] = found ? matrix : nil
            member.sensors.append(IIOVectorSensor(axes: axes, matrix: matrix, unitFactor: factor, content: content))
        }
        guard !member.sensors.isEmpty else {
            let detail = skipping.isEmpty
                ? "no accel, anglvel or magn channels; pick an IMU device ('edgemotion probe' lists them)"
                : "adds no accel, anglvel or magn channels that an earlier device in source.iio.devices lacks; remove it from the list"
            throw SensorError(.unsupported, subject: subject, detail: detail)
        }
        member.timestampChannel = all.first(where: { iio_channel_get_type($0) == IIO_TIMESTAMP })
    }

    /// The mount matrix text for a sensor type. The kernel names it `in_<type>_mount_matrix` or
    /// `in_mount_matrix` (shared); libiio presents those as the attribute `mount_matrix` of the
    /// type's channels, or as a pseudo-channel `mount` with attribute `matrix`.
    static func mountMatrixText(_ dev: OpaquePointer, prefix: String, firstAxis: OpaquePointer, among channels: [OpaquePointer]) -> String? {
        if let t = IIOContext.read(firstAxis, "mount_matrix") { return t }
        if let ch = channels.first(where: { IIOContext.id($0) == prefix }), let t = IIOContext.read(ch, "mount_matrix") { return t }
        if let ch = channels.first(where: { IIOContext.id($0) == "mount" }), let t = IIOContext.read(ch, "matrix") { return t }
        return IIOContext.read(device: dev, "mount_matrix") ?? IIOContext.read(device: dev, "in_mount_matrix")
    }

    /// Writes the nearest available `sampling_frequency` at or above `requested` (Hz) to each sensor
    /// (or the device) of a member and returns the slowest read-back value, Hz.
    static func setSamplingFrequency(_ member: IIODeviceMember, requested: Double, log: Logger) -> Double {
        let dev = member.device
        var effective: [Double] = []
        for sensor in member.sensors {
            let ch = sensor.axes[0].channel
            guard iio_channel_find_attr(ch, "sampling_frequency") != nil else { continue }
            let available = IIOContext.read(ch, "sampling_frequency_available").map(IIOSysfsValues.availableValues) ?? []
            let target = IIOSysfsValues.pick(available, atLeast: requested) ?? requested
            let rc = IIOContext.write(ch, "sampling_frequency", sysfsNumber(target))
            if rc < 0 { log.warning("cannot set sampling_frequency", ["device": member.subject, "channel": IIOContext.id(ch), "value": sysfsNumber(target), "errno": "\(-rc)"]) }
            if let v = IIOContext.read(ch, "sampling_frequency").flatMap(IIOSysfsValues.number) { effective.append(v) }
        }
        if effective.isEmpty, iio_device_find_attr(dev, "sampling_frequency") != nil {
            let available = IIOContext.read(device: dev, "sampling_frequency_available").map(IIOSysfsValues.availableValues) ?? []
            let target = IIOSysfsValues.pick(available, atLeast: requested) ?? requested
            _ = IIOContext.write(device: dev, "sampling_frequency", sysfsNumber(target))
            if let v = IIOContext.read(device: dev, "sampling_frequency").flatMap(IIOSysfsValues.number) { effective.append(v) }
        }
        return effective.min() ?? requested
    }

    /// Decodes one buffer scan at `base` of a member into `sample` (allocation-free).
    @inline(__always)
    static func decode(_ base: UnsafeRawPointer, sensors: [IIOVectorSensor], into sample: inout IMUSample) {
        for sensor in sensors {
            let x = (Double(sensor.axes[0].format.decode(base + sensor.axes[0].byteOffset)) + sensor.axes[0].offset) * sensor.axes[0].scale
            let y = (Double(sensor.axes[1].format.decode(base + sensor.axes[1].byteOffset)) + sensor.axes[1].offset) * sensor.axes[1].scale
            let z = (Double(sensor.axes[2].format.decode(base + sensor.axes[2].byteOffset)) + sensor.axes[2].offset) * sensor.axes[2].scale
            store(sensor, Vector3(x, y, z), into: &sample)
        }
    }

    /// Stores a sensor's value in the IIO ABI unit, device frame, as the published unit in the
    /// mounted frame.
    @inline(__always)
    static func store(_ sensor: IIOVectorSensor, _ v: Vector3, into sample: inout IMUSample) {
        let value = sensor.matrix * (v * sensor.unitFactor)
        switch sensor.content {
        case .accelerometer: sample.specificForce = value
        case .gyroscope: sample.rotationRate = value
        default: sample.magneticField = value
        }
        sample.contents.insert(sensor.content)
    }
}
