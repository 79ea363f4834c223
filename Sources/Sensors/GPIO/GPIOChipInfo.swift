#if canImport(Glibc)
import Glibc
#endif
import CGPIOD

/// One GPIO line as listed by `edgemotion probe`.
public struct GPIOLineInfo: Sendable, Hashable {
    public var offset: Int
    /// Line name from the device tree or gpio-sim (`imu-drdy`, `GPIO17`), empty when unnamed.
    public var name: String
    /// Who holds the line, empty when free.
    public var consumer: String
}

/// One GPIO chip (`/dev/gpiochipN`).
public struct GPIOChipInfo: Sendable, Hashable {
    /// Kernel name, `gpiochipN` (the number differs between boards: a Pi 5's header is not gpiochip0).
    public var name: String
    /// Driver label, e.g. `pinctrl-bcm2711`, `pinctrl-rp1`, `gpio-sim.0-node0`.
    public var label: String
    public var lines: [GPIOLineInfo]

    /// Every chip on the system, in `/dev` order. Lines are listed when `includeLines`.
    public static func all(includeLines: Bool = true) -> [GPIOChipInfo] {
        var out: [GPIOChipInfo] = []
        guard let iter = gpiod_chip_iter_new() else { return out }
        defer { gpiod_chip_iter_free(iter) }
        while let chip = gpiod_chip_iter_next(iter) {
            var info = GPIOChipInfo(name: String(cString: gpiod_chip_name(chip)),
                                    label: String(cString: gpiod_chip_label(chip)), lines: [])
            if includeLines {
                for i in 0..<gpiod_chip_num_lines(chip) {
                    guard let line = gpiod_chip_get_line(chip, i) else { continue }
                    info.lines.append(GPIOLineInfo(offset: Int(i),
                                                   name: gpiod_line_name(line).map { String(cString: $0) } ?? "",
                                                   consumer: gpiod_line_consumer(line).map { String(cString: $0) } ?? ""))
                }
            }
            out.append(info)
        }
        return out
    }
}
