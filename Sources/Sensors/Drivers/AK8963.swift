#if canImport(Glibc)
import Glibc
#endif
import MotionCore

/// AsahiKasei AK8963 magnetometer inside the MPU-9250, at 0x0C once the MPU's I2C bypass is on.
/// 16-bit output, continuous mode 2 (100 Hz), 0.15 µT/LSB, factory sensitivity adjustment (ASA).
/// Its axes are the accelerometer's with x/y swapped and z inverted; samples are returned in the
/// accelerometer (sensor) frame.
public final class AK8963: @unchecked Sendable {
    public static let address: UInt16 = 0x0C
    public enum Register {
        public static let deviceID = I2CRegister(0x00, "WIA")
        public static let status1 = I2CRegister(0x02, "ST1")
        public static let control1 = I2CRegister(0x0A, "CNTL1")
        public static let control2 = I2CRegister(0x0B, "CNTL2")
        public static let sensitivityX = I2CRegister(0x10, "ASAX")
    }

    private let device: I2CDevice
    private var adjust = Vector3(1, 1, 1)
    private let burst: UnsafeMutableRawBufferPointer

    public init(bus: I2CBus) {
        device = I2CDevice(bus: bus, address: Self.address)
        burst = .zeroed(byteCount: 8, alignment: 8)
    }

    deinit { burst.deallocate() }

    /// Sensitivity factor from a fuse-ROM ASA byte: (ASA − 128) / 256 + 1.
    public static func sensitivity(asa: UInt8) -> Double { (Double(asa) - 128) / 256 + 1 }

    public func configure() throws(SensorError) {
        let id = try device.read(Register.deviceID)
        guard id == 0x48 else {
            throw SensorError(.wrongDevice, subject: I2CError.subject(bus: device.bus.number, address: Self.address, register: Register.deviceID),
                              detail: "expected 0x48 for the MPU-9250's AK8963 magnetometer, found \(hex(id)); is this an MPU-6500 (no magnetometer)? use chip: mpu6050")
        }
        try device.write(Register.control2, 0x01)        // soft reset
        usleep(10_000)
        try device.write(Register.control1, 0x0F)        // fuse ROM access
        usleep(10_000)
        let asa = UnsafeMutableRawBufferPointer.allocate(byteCount: 3, alignment: 1)
        defer { asa.deallocate() }
        try device.read(Register.sensitivityX, into: asa)
        adjust = Vector3(Self.sensitivity(asa: asa[0]), Self.sensitivity(asa: asa[1]), Self.sensitivity(asa: asa[2]))
        try device.write(Register.control1, 0x00)        // power down before mode change
        usleep(10_000)
        try device.write(Register.control1, 0x16)        // 16-bit, continuous mode 2 (100 Hz)
    }

    /// Reads ST1…ST2 (ST2 must be read to release the data registers); `false` when no new data or
    /// on magnetic overflow.
    public func read(into field: inout Vector3) throws(SensorError) -> Bool {
        try device.read(Register.status1, into: burst)
        let b = UnsafeRawBufferPointer(burst)
        guard b[0] & 0x01 != 0, b[7] & 0x08 == 0 else { return false }
        let m = RegisterDecoding.vector(UnsafeRawBufferPointer(rebasing: b[1...]), at: 0, bigEndian: false, scale: 0.15)
        field = Vector3(m.y * adjust.y, m.x * adjust.x, -m.z * adjust.z)
        return true
    }
}
