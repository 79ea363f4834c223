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
    var sensors: [IIOSource.VectorSensor] = []
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

    init(device: OpaquePointer, sysfsPath: String?) {
        self.device = device
        self.sysfsPath = sysfsPath
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
}
