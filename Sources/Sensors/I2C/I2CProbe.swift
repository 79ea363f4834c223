#if canImport(Glibc)
import Glibc
#endif

/// Read-only discovery of known IMU chips on the I2C buses, for `edgemotion probe`.
///
/// Only the addresses the supported chips can have are touched, and only their identity registers
/// are read (SMBus read-byte-data); nothing is written.
public enum I2CProbe {
    /// What was found at one address.
    public struct Finding: Sendable, Hashable {
        public var bus: Int
        public var address: UInt16
        /// Chips whose identity register matched.
        public var chips: [IMUChipModel]
        /// Kernel driver bound to the address (e.g. `bmi160_i2c`): use the IIO source for it.
        public var kernelDriver: String?
        /// Identity bytes read, e.g. `0x75=0x70`, for unrecognised chips.
        public var identity: [String]
        /// A known-but-unsupported chip the identity suggests (`mpu6500`).
        public var hint: String? = nil
    }

    /// `/dev/i2c-N` numbers present, ascending.
    public static func buses() -> [Int] {
        guard let dir = opendir("/dev") else { return [] }
        defer { closedir(dir) }
        var out: [Int] = []
        while let e = readdir(dir) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name.hasPrefix("i2c-"), let n = Int(name.dropFirst(4)) { out.append(n) }
        }
        return out.sorted()
    }

    /// Adapter name from sysfs (`bcm2835 (i2c@7e804000)`, `SMBus stub driver`).
    public static func adapterName(bus: Int) -> String {
        readSysfs("/sys/bus/i2c/devices/i2c-\(bus)/name") ?? ""
    }

    /// Probes the known addresses of `bus`. Addresses that do not answer are left out.
    public static func scan(bus number: Int) throws(SensorError) -> [Finding] {
        let bus = try I2CBus(number: number)
        defer { bus.close() }
        let addresses = Set(IMUChipModel.allCases.flatMap(\.addresses)).sorted()
        let registers = Set(IMUChipModel.allCases.map { $0.whoAmI.register.address }).sorted()
        var out: [Finding] = []
        for address in addresses {
            let path = "/sys/bus/i2c/devices/\(number)-00\(hex(address).dropFirst(2))/driver"
            if let driver = linkTarget(path) {
                out.append(Finding(bus: number, address: address, chips: [], kernelDriver: driver, identity: []))
                continue
            }
            var chips: [IMUChipModel] = []
            var identity: [String] = []
            var hint: String?
            for reg in registers {
                guard let value = try? bus.readByte(address: address, register: I2CRegister(reg, "identity")) else { continue }
                identity.append("\(hex(reg))=\(hex(value))")
                if hint == nil, value != 0, value != 0xFF { hint = IMUChipModel.knownIdentity(value, register: reg) }
                chips += IMUChipModel.identify(register: reg, value: value).filter { $0.addresses.contains(address) }
            }
            if !identity.isEmpty {
                out.append(Finding(bus: number, address: address, chips: chips, kernelDriver: nil, identity: identity, hint: chips.isEmpty ? hint : nil))
            }
        }
        return out
    }

    static func linkTarget(_ path: String) -> String? {
        var buf = [CChar](repeating: 0, count: 512)
        let n = readlink(path, &buf, buf.count - 1)
        guard n > 0 else { return nil }
        let target = buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return target.split(separator: "/").last.map(String.init)
    }

    static func readSysfs(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 256)
        let n = read(fd, &buf, buf.count)
        guard n > 0 else { return nil }
        return String(decoding: buf[0..<n], as: UTF8.self).trimmingCharacters(in: "\n ")
    }
}
