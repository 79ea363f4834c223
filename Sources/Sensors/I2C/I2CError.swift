#if canImport(Glibc)
import Glibc
#endif
import Platform

/// Builds the sensor layer's I2C errors. Subjects read `i2c-1 0x68 register 0x75 (WHO_AM_I)`.
public enum I2CError {
    public static func subject(bus: Int, address: UInt16? = nil, register: I2CRegister? = nil) -> String {
        var s = "i2c-\(bus)"
        if let address { s += " " + hex(address) }
        if let register { s += " register " + hex(register.address) + (register.name.isEmpty ? "" : " (\(register.name))") }
        return s
    }

    /// Opening `/dev/i2c-N` failed with `code`.
    public static func open(bus: Int, path: String, errno code: Int32) -> SensorError {
        switch code {
        case ENOENT, ENODEV, ENXIO:
            return SensorError(.notFound, subject: path,
                detail: "no such I2C bus; enable it (Raspberry Pi: dtparam=i2c_arm=on in config.txt), load i2c-dev (modprobe i2c-dev); 'edgemotion probe' lists the buses present")
        case EACCES, EPERM:
            return SensorError(.permissionDenied, subject: path,
                detail: "cannot open; add the service user to group i2c (udev rules: hardware/udev/60-edgemotion.rules)")
        default:
            return SensorError(.io, subject: path, detail: "open failed: \(describe(code))")
        }
    }

    /// Selecting the target address (`I2C_SLAVE`) failed.
    public static func selectAddress(bus: Int, address: UInt16, errno code: Int32) -> SensorError {
        if code == EBUSY {
            return SensorError(.io, subject: subject(bus: bus, address: address),
                detail: "address in use by a kernel driver (see /sys/bus/i2c/devices/\(bus)-00\(hex(address).dropFirst(2))/driver); use source.type iio, or unbind the driver")
        }
        return SensorError(.io, subject: subject(bus: bus, address: address), detail: "I2C_SLAVE failed: \(describe(code))")
    }

    /// A register transfer failed with `code`.
    public static func transfer(bus: Int, address: UInt16, register: I2CRegister, reading: Bool, errno code: Int32) -> SensorError {
        let what = reading ? "read" : "write"
        let subj = subject(bus: bus, address: address, register: register)
        switch code {
        case ENXIO, EREMOTEIO, EIO, ENODEV:
            return SensorError(.io, subject: subj,
                detail: "\(what) not acknowledged (\(describe(code))): nothing answered at \(hex(address)); check wiring, power, pull-ups and the address pin (AD0/SDO)")
        case ETIMEDOUT:
            return SensorError(.io, subject: subj, detail: "\(what) timed out; check for a stuck SDA line or missing pull-ups")
        case EOPNOTSUPP, ENOTTY:
            return SensorError(.unsupported, subject: subj, detail: "\(what): the adapter does not support this transfer (\(describe(code)))")
        default:
            return SensorError(.io, subject: subj, detail: "\(what) failed: \(describe(code))")
        }
    }

    /// Fewer bytes came back than asked for.
    public static func shortRead(bus: Int, address: UInt16, register: I2CRegister, got: Int, wanted: Int) -> SensorError {
        SensorError(.invalidData, subject: subject(bus: bus, address: address, register: register),
                    detail: "short read: got \(got) of \(wanted) bytes; check the bus speed and wiring")
    }

    /// `strerror` text plus the symbolic value, e.g. `No such device or address (errno 6)`.
    public static func describe(_ code: Int32) -> String {
        Errno(code).description
    }
}
