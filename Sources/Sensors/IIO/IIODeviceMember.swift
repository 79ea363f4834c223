#if canImport(Glibc)
import Glibc
#endif
import CIIO
import MotionCore

/// One IIO device of an `IIOSource`. An IMU may span several: ST's `st_lsm6dsx` driver registers
/// `<chip>_accel` and `<chip>_gyro` (and `<chip>_magn` for a sensor-hub magnetometer) on one I2C
/// client. Each member has its own channels and, when buffered, its own buffer and read cursor.
struct IIODeviceMember {
    var device: OpaquePointer
    /// `iio <name> (iio:deviceN)`, for errors and logs.
    var subject: String
    /// `/sys/bus/iio/devices/iio:deviceN` on a local context (checked when reads time out).
    var sysfsPath: String?
    var sensors: [IIOVectorSensor] = []
    var timestampChannel: OpaquePointer?
    var timestampFormat = IIOScanFormat(storageBits: 64, realBits: 64, shift: 0, isSigned: true, isBigEndian: false)
    var timestampOffset = 0
    var buffer: OpaquePointer?
    /// `iio_buffer_get_poll_fd` of a secondary member's buffer (-1: none, refill blocks).
    var pollFD: Int32 = -1
    var step = 0
    var pendingIndex = 0
    var pendingCount = 0
    /// Effective `sampling_frequency` after start, Hz.
    var rate = 0.0
    /// A secondary member's latest sample (buffered pairing); `timestampNanos` is its buffer timestamp
    /// (0 without an `in_timestamp` channel).
    var held = IMUSample(timestampNanos: 0, sequence: 0, contents: [])
    var hasHeld = false

    /// - Parameter local: whether the context is `local:` (the member then has a sysfs path).
    init(device: OpaquePointer, local: Bool) {
        self.device = device
        self.sysfsPath = local ? "/sys/bus/iio/devices/" + String(cString: iio_device_get_id(device)) : nil
        let name = iio_device_get_name(device).map { String(cString: $0) } ?? "?"
        subject = "iio \(name) (\(String(cString: iio_device_get_id(device))))"
    }

    /// Whether the kernel gave the device a buffer. libiio can list channels as scan elements
    /// although the driver registered no buffer (`st_lsm6dsx` without an IRQ); on a local context
    /// the sysfs `buffer` / `scan_elements` directories decide. Remote contexts: assumed.
    var hasKernelBuffer: Bool {
        guard let sysfsPath else { return true }
        return IIODeviceParent.hasBuffer(sysfsPath)
    }

    /// The sample contents this member contributes.
    var contents: IMUSample.Contents {
        sensors.reduce(into: []) { $0.insert($1.content) }
    }

    /// A local device whose driver was unbound (or that was unplugged) leaves libiio's refill timing
    /// out rather than failing; its sysfs directory is gone, which readers check on timeouts.
    func checkPresent() throws(SensorError) {
        guard let sysfsPath else { return }
        if access(sysfsPath, F_OK) != 0 {
            throw SensorError(.notFound, subject: "\(subject) (\(sysfsPath))",
                              detail: "the device disappeared (driver unbound or device unplugged); the agent re-opens it with backoff (source.retry_max_s); check the driver (dmesg) if it does not come back")
        }
    }

    /// Destroys the member's buffer (if any) and disables its channels. Idempotent.
    mutating func release() {
        if let buffer { iio_buffer_destroy(buffer) }
        buffer = nil
        for sensor in sensors { for axis in sensor.axes { iio_channel_disable(axis.channel) } }
        if let timestampChannel { iio_channel_disable(timestampChannel) }
    }
}
