import CIIO

/// An IIO device as listed by `edgemotion probe`.
public struct IIODeviceInfo: Sendable, Hashable {
    /// One input channel.
    public struct Channel: Sendable, Hashable {
        public var id: String
        /// Whether it can be captured in the triggered buffer.
        public var scanElement: Bool
    }

    /// `iio:deviceN`, or the trigger's id.
    public var id: String
    public var name: String
    public var label: String?
    public var isTrigger: Bool
    public var channels: [Channel]
    /// Current `sampling_frequency` (channel or device attribute), Hz.
    public var samplingFrequency: Double?
    /// `sampling_frequency_available`, Hz ascending.
    public var availableFrequencies: [Double]
    /// Whether the device has a buffer (`scan_elements`).
    public var bufferCapable: Bool
    /// The parent hardware device in sysfs (`1-006a`, an I2C client), local contexts only; devices
    /// with the same parent are parts of one chip (`st_lsm6dsx`: `<chip>_accel` + `<chip>_gyro`).
    public var parent: String?

    /// Every device (and trigger) of the context at `uri`.
    public static func list(uri: String = "local:") throws(SensorError) -> [IIODeviceInfo] {
        let ctx = try IIOContext(uri: uri)
        return ctx.devices.map { dev in
            var info = IIODeviceInfo(id: String(cString: iio_device_get_id(dev)),
                                     name: iio_device_get_name(dev).map { String(cString: $0) } ?? "",
                                     label: iio_device_get_label(dev).map { String(cString: $0) },
                                     isTrigger: iio_device_is_trigger(dev), channels: [], samplingFrequency: nil,
                                     availableFrequencies: [], bufferCapable: false,
                                     parent: uri.hasPrefix("local") ? IIODeviceParent.path(ofDevice: String(cString: iio_device_get_id(dev))) : nil)
            for ch in IIOContext.channels(dev) where !iio_channel_is_output(ch) && IIOContext.id(ch) != "mount" {
                let scan = iio_channel_is_scan_element(ch)
                info.channels.append(Channel(id: IIOContext.id(ch), scanElement: scan))
                info.bufferCapable = info.bufferCapable || scan
                if info.samplingFrequency == nil, let f = IIOContext.read(ch, "sampling_frequency").flatMap(IIOSysfsValues.number) {
                    info.samplingFrequency = f
                    info.availableFrequencies = IIOContext.read(ch, "sampling_frequency_available").map(IIOSysfsValues.availableValues) ?? []
                }
            }
            // libiio may list scan elements of a device without a kernel buffer (st_lsm6dsx, no IRQ).
            if uri.hasPrefix("local"), info.bufferCapable, !IIODeviceParent.hasBuffer("\(IIODeviceParent.defaultRoot)/\(info.id)") {
                info.bufferCapable = false
            }
            if info.samplingFrequency == nil {
                info.samplingFrequency = IIOContext.read(device: dev, "sampling_frequency").flatMap(IIOSysfsValues.number)
                info.availableFrequencies = IIOContext.read(device: dev, "sampling_frequency_available").map(IIOSysfsValues.availableValues) ?? []
            }
            return info
        }
    }
}
