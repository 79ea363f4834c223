#if canImport(Glibc)
import Glibc
#endif
import CLinuxI2C

/// The kernel side of an `I2CBus`: the i2c-dev ioctls on one open `/dev/i2c-N`. `I2CDevNode` is
/// the real one; host tests script a chip below this seam (the bus's chunking, addressing and error
/// handling above it stay the code under test). Calls come from one thread; none may allocate.
public protocol I2CAdapter: AnyObject {
    /// `I2C_FUNCS`: the adapter's `I2C_FUNC_*` bits, or `-errno`.
    func functionality() -> Result<UInt, I2CAdapterErrno>
    /// `I2C_SLAVE` / `I2C_SLAVE_FORCE`: 0, or an errno.
    func setAddress(_ address: UInt16, force: Bool) -> Int32
    /// `I2C_SMBUS` with `args` (its `data` points at the caller's buffer): 0, or an errno.
    func smbus(_ args: inout i2c_smbus_ioctl_data) -> Int32
    /// `I2C_RDWR`: the number of messages transferred, or `-errno`.
    func readWrite(_ data: inout i2c_rdwr_ioctl_data) -> Int32
    /// Releases the adapter. Idempotent.
    func close()
}

/// An errno from an `I2CAdapter` call.
public struct I2CAdapterErrno: Error, Sendable, Equatable {
    public var code: Int32
    public init(_ code: Int32) { self.code = code }
}

/// `/dev/i2c-N` itself: the ioctls go to the kernel.
public final class I2CDevNode: I2CAdapter {
    private var fd: Int32

    /// Opens `path` read-write.
    public init(path: String) throws(I2CAdapterErrno) {
        let fd = Glibc.open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw I2CAdapterErrno(errno) }
        self.fd = fd
    }

    deinit { close() }

    public func functionality() -> Result<UInt, I2CAdapterErrno> {
        var funcs: UInt = 0
        return ioctl(fd, UInt(I2C_FUNCS), &funcs) == 0 ? .success(funcs) : .failure(I2CAdapterErrno(errno))
    }

    public func setAddress(_ address: UInt16, force: Bool) -> Int32 {
        ioctl(fd, force ? UInt(I2C_SLAVE_FORCE) : UInt(I2C_SLAVE), CInt(address)) == 0 ? 0 : errno
    }

    public func smbus(_ args: inout i2c_smbus_ioctl_data) -> Int32 {
        ioctl(fd, UInt(I2C_SMBUS), &args) == 0 ? 0 : errno
    }

    public func readWrite(_ data: inout i2c_rdwr_ioctl_data) -> Int32 {
        let rc = ioctl(fd, UInt(I2C_RDWR), &data)
        return rc >= 0 ? rc : -errno
    }

    public func close() {
        if fd >= 0 { _ = Glibc.close(fd); fd = -1 }
    }
}
