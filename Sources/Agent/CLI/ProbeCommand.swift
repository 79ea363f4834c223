import Sensors

/// `edgemotion probe`: lists the IIO devices, GPIO chips and lines, and known IMU chips on the I2C
/// buses, with the config lines that select them. Read-only.
struct ProbeCommand: Command {
    let name = "probe"
    let summary = "list IIO devices, GPIO lines and IMU chips on I2C buses (read-only)"
    let usage = """
    usage: edgemotion probe [--iio-uri URI] [--no-i2c] [--all-gpio-lines]

    Lists what the agent can read, so a config can be written from its output:
      IIO devices (channels, buffer, sampling_frequency and the rates available), IIO triggers;
      GPIO chips (name and label) and their named lines (--all-gpio-lines: every line);
      I2C buses with the known IMU chips found (identity registers only, at the addresses the
      supported chips can have; nothing is written). Addresses owned by a kernel driver are shown
      with the driver: read those through IIO (source.type: iio).

    options:
      --iio-uri URI      libiio context to list (default local:; e.g. ip:raspberrypi.local)
      --no-i2c           skip the I2C scan
      --all-gpio-lines   list unnamed GPIO lines too

    Ends with a summary and the next step (a config line to use, or what to try when no IMU
    was found).

    example:
      sudo edgemotion probe --no-i2c

    exit status: 0 listed (also when nothing was found); 64 usage.
    """

    func run(arguments: [String]) -> Int32 {
        var uri = "local:"
        var scanI2C = true
        var allLines = false
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--iio-uri" where i + 1 < arguments.count: uri = arguments[i + 1]; i += 1
            case "--no-i2c": scanI2C = false
            case "--all-gpio-lines": allLines = true
            default:
                printError("edgemotion probe: unknown option '\(arguments[i])'. Run 'edgemotion probe --help'.")
                return 64
            }
            i += 1
        }
        let iio = printIIO(uri: uri)
        let gpioChips = printGPIO(allLines: allLines)
        let i2c = scanI2C ? printI2C() : 0
        print(Self.summary(iioIMUs: iio, i2cIMUs: i2c, gpioChips: gpioChips, scannedI2C: scanI2C))
        return 0
    }

    /// The last lines: what was found and what to do next.
    static func summary(iioIMUs: Int, i2cIMUs: Int, gpioChips: Int, scannedI2C: Bool) -> String {
        let found = "summary: \(iioIMUs) IIO motion device(s), \(scannedI2C ? "\(i2cIMUs)" : "not scanned:") IMU(s) on I2C, \(gpioChips) GPIO chip(s)"
        guard iioIMUs + i2cIMUs > 0 else {
            return found + "\nno IMU found: try `source.type: simulator` (edgemotion run --config config/demo.yaml) or see docs/hardware.md (wiring, overlay, i2c-dev)"
        }
        return found + "\nnext: put one 'config:' line above into your configuration (source:), then 'edgemotion check-config FILE' and 'edgemotion run --config FILE'"
            + (gpioChips > 0 ? "; a data-ready pin goes in source.data_ready (chip, line)" : "")
    }

    /// Returns the IIO devices with motion channels (accel, anglvel, magn).
    private func printIIO(uri: String) -> Int {
        var motionDevices = 0
        print("IIO (\(uri)):")
        do {
            let devices = try IIODeviceInfo.list(uri: uri)
            let sensors = devices.filter { !$0.isTrigger && !$0.channels.isEmpty }
            if sensors.isEmpty { print("  no devices") }
            for d in sensors {
                if d.channels.contains(where: { $0.id.hasPrefix("accel") || $0.id.hasPrefix("anglvel") || $0.id.hasPrefix("magn") }) {
                    motionDevices += 1
                }
                let label = d.label.map { " label \($0)" } ?? ""
                print("  \(d.id): \(d.name)\(label)\(d.bufferCapable ? " (buffer capable)" : "")")
                print("    channels: \(d.channels.map(\.id).joined(separator: " "))")
                if let f = d.samplingFrequency {
                    let avail = d.availableFrequencies.map(Self.number).joined(separator: " ")
                    print("    sampling_frequency: \(Self.number(f)) Hz" + (avail.isEmpty ? "" : " (available: \(avail))"))
                }
                let siblings = sensors.filter { $0.id != d.id && $0.parent != nil && $0.parent == d.parent }
                if let parent = d.parent, !siblings.isEmpty {
                    // One chip, several IIO devices (st_lsm6dsx): the source reads them together.
                    print("    same chip as: \(siblings.map { "\($0.id) (\($0.name))" }.joined(separator: ", ")) on \(parent.split(separator: "/").last ?? "")")
                    print("    config: source: {type: iio, iio: {devices: [\(([d] + siblings).map { $0.label ?? $0.name }.joined(separator: ", "))]}}")
                } else {
                    print("    config: source: {type: iio, iio: {device: \(d.label ?? d.name)}}")
                }
            }
            let triggers = devices.filter(\.isTrigger).map(\.name)
            print("  triggers: \(triggers.isEmpty ? "none" : triggers.joined(separator: " "))")
        } catch {
            print("  \(error)")
        }
        return motionDevices
    }

    /// Returns the number of GPIO chips.
    private func printGPIO(allLines: Bool) -> Int {
        print("GPIO:")
        let chips = GPIOChipInfo.all()
        if chips.isEmpty { print("  no GPIO chips (/dev/gpiochip*)") }
        for c in chips {
            print("  \(c.name) [\(c.label)] (\(c.lines.count) lines)")
            for l in c.lines where allLines || !l.name.isEmpty {
                print("    line \(l.offset): \(l.name.isEmpty ? "unnamed" : "\"\(l.name)\"")\(l.consumer.isEmpty ? "" : " used by \(l.consumer)")")
            }
        }
        return chips.count
    }

    /// Returns the number of supported IMUs found for direct I2C.
    private func printI2C() -> Int {
        var imus = 0
        print("I2C:")
        let buses = I2CProbe.buses()
        if buses.isEmpty { print("  no buses (/dev/i2c-*); enable I2C and load i2c-dev") }
        for bus in buses {
            let name = I2CProbe.adapterName(bus: bus)
            do {
                let found = try I2CProbe.scan(bus: bus)
                print("  i2c-\(bus) [\(name)]" + (found.isEmpty ? ": no known IMU found" : ""))
                for f in found {
                    if let driver = f.kernelDriver {
                        print("    \(hex(f.address)): bound to kernel driver \(driver) -> read it through IIO (source.type: iio)")
                    } else if f.chips.isEmpty {
                        let hint = f.hint.map { ", looks like \($0) (not supported directly)" } ?? ""
                        print("    \(hex(f.address)): unknown chip (\(f.identity.joined(separator: ", "))\(hint))")
                    } else {
                        for chip in f.chips {
                            imus += 1
                            print("    \(hex(f.address)): \(chip.rawValue) -> source: {type: i2c, i2c: {bus: \(bus), address: \(hex(f.address)), chip: \(chip.rawValue)}}")
                        }
                    }
                }
            } catch {
                print("  i2c-\(bus) [\(name)]: \(error)")
            }
        }
        return imus
    }

    static func number(_ v: Double) -> String {
        v == v.rounded() ? String(Int64(v)) : String(v)
    }
}
