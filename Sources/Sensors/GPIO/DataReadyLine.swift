#if canImport(Glibc)
import Glibc
#endif
import Platform
import CGPIOD

/// A sensor's data-ready interrupt pin, watched through libgpiod v1.6 for rising edges.
///
/// The chip is found by kernel name (`gpiochip4`), label (`pinctrl-rp1`) or path, by iterating the
/// chips (never assuming `gpiochip0`); with no chip given, the line name is searched on every chip.
/// The line is an offset (`17`) or a name (`GPIO17`, `imu-drdy`). Edge timestamps are the kernel's,
/// `CLOCK_MONOTONIC` nanoseconds.
///
/// `waitForEdges` is allocation-free. Not thread-safe: one reader thread.
public final class DataReadyLine: @unchecked Sendable {
    /// Plain-value description of the line, as in the config's `source.data_ready`.
    public struct Configuration: Sendable, Hashable {
        /// Chip name, label or path; `nil` searches every chip for a named line.
        public var chip: String?
        /// Line offset (`"17"`) or name (`"imu-drdy"`).
        public var line: String
        public init(chip: String?, line: String) {
            self.chip = chip
            self.line = line
        }
    }

    /// Edges read by one `waitForEdges` call.
    public struct Edges: Sendable, Equatable {
        /// Rising edges read (0 on timeout).
        public var count: Int
        /// Kernel timestamp of the first and last edge read, ns `CLOCK_MONOTONIC`.
        public var firstNanos: UInt64
        public var lastNanos: UInt64
    }

    public let chipName: String
    public let chipLabel: String
    public let offset: Int
    public let lineName: String

    nonisolated(unsafe) private var chip: OpaquePointer?
    nonisolated(unsafe) private var line: OpaquePointer?
    private let events: UnsafeMutablePointer<gpiod_line_event>
    private static let eventCapacity = 16

    /// Opens the chip and requests rising-edge events on the line.
    public init(_ configuration: Configuration, consumer: String = "edgemotion") throws(SensorError) {
        let subject = "gpio \(configuration.chip ?? "*"):\(configuration.line)"
        var foundChip: OpaquePointer?
        var foundLine: OpaquePointer?
        var seen: [String] = []
        let wantedOffset = UInt32(configuration.line)
        let byPath = configuration.chip.map { $0.hasPrefix("/dev/") ? String($0.dropFirst(5)) : $0 }

        guard let iter = gpiod_chip_iter_new() else {
            let e = errno
            if e == EACCES || e == EPERM {
                throw SensorError(.permissionDenied, subject: subject,
                                  detail: "cannot open /dev/gpiochip*; add the service user to group gpio (hardware/udev/60-edgemotion.rules)")
            }
            throw SensorError(.notFound, subject: subject, detail: "no GPIO chips (\(Errno(e))); is /dev/gpiochip* present?")
        }
        while let c = gpiod_chip_iter_next_noclose(iter) {
            let name = String(cString: gpiod_chip_name(c))
            let label = String(cString: gpiod_chip_label(c))
            seen.append("\(name) [\(label)]")
            var keep = false
            if foundChip == nil {
                if let want = byPath {
                    if want == name || want == label || "gpiochip" + want == name {
                        keep = true
                        if let off = wantedOffset {
                            foundLine = off < gpiod_chip_num_lines(c) ? gpiod_chip_get_line(c, off) : nil
                        } else {
                            foundLine = gpiod_chip_find_line(c, configuration.line)
                        }
                    }
                } else if wantedOffset == nil, let l = gpiod_chip_find_line(c, configuration.line) {
                    keep = true
                    foundLine = l
                }
            }
            if keep { foundChip = c } else { gpiod_chip_close(c) }
        }
        gpiod_chip_iter_free_noclose(iter)

        guard let chip = foundChip else {
            let list = seen.isEmpty ? "none" : seen.joined(separator: ", ")
            if configuration.chip == nil {
                throw SensorError(.notFound, subject: subject,
                                  detail: wantedOffset != nil
                                    ? "a line offset needs source.data_ready.chip (chips: \(list))"
                                    : "no chip has a line named '\(configuration.line)' (chips: \(list)); 'edgemotion probe' lists lines")
            }
            throw SensorError(.notFound, subject: subject, detail: "no GPIO chip with that name or label (chips: \(list))")
        }
        guard let line = foundLine else {
            let n = gpiod_chip_num_lines(chip)
            gpiod_chip_close(chip)
            throw SensorError(.notFound, subject: subject,
                              detail: wantedOffset != nil ? "offset out of range (chip has \(n) lines)" : "no line named '\(configuration.line)' on this chip; 'edgemotion probe' lists lines")
        }
        if gpiod_line_request_rising_edge_events(line, consumer) != 0 {
            let e = errno
            let holder = gpiod_line_consumer(line).map { String(cString: $0) } ?? ""
            gpiod_chip_close(chip)
            throw SensorError(e == EBUSY ? .io : (e == EACCES || e == EPERM ? .permissionDenied : .io), subject: subject,
                              detail: e == EBUSY ? "line busy (held by '\(holder)'); stop the other user or pick another line"
                                                 : "cannot request rising-edge events: \(Errno(e))")
        }
        self.chip = chip
        self.line = line
        chipName = String(cString: gpiod_chip_name(chip))
        chipLabel = String(cString: gpiod_chip_label(chip))
        offset = Int(gpiod_line_offset(line))
        lineName = gpiod_line_name(line).map { String(cString: $0) } ?? ""
        events = .allocate(capacity: Self.eventCapacity)
        events.initialize(repeating: gpiod_line_event(), count: Self.eventCapacity)
    }

    deinit {
        close()
        events.deallocate()
    }

    /// Releases the line and closes the chip. Idempotent.
    public func close() {
        if let line { gpiod_line_release(line) }
        if let chip { gpiod_chip_close(chip) }
        line = nil
        chip = nil
    }

    /// Waits up to `timeout` for rising edges and reads every queued one (up to 16).
    public func waitForEdges(timeout: Duration) throws(SensorError) -> Edges {
        guard let line else { throw SensorError(.io, subject: "gpio \(chipName):\(offset)", detail: "line is closed") }
        var ts = timeout.timespecValue
        let rc = gpiod_line_event_wait(line, &ts)
        if rc == 0 { return Edges(count: 0, firstNanos: 0, lastNanos: 0) }
        guard rc > 0 else {
            if errno == EINTR { return Edges(count: 0, firstNanos: 0, lastNanos: 0) }
            throw SensorError(.io, subject: "gpio \(chipName):\(offset)", detail: "waiting for edges failed: \(Errno(errno))")
        }
        let n = gpiod_line_event_read_multiple(line, events, UInt32(Self.eventCapacity))
        guard n > 0 else {
            throw SensorError(.io, subject: "gpio \(chipName):\(offset)", detail: "reading edge events failed: \(Errno(errno))")
        }
        func nanos(_ t: timespec) -> UInt64 { UInt64(t.tv_sec) &* 1_000_000_000 &+ UInt64(t.tv_nsec) }
        return Edges(count: Int(n), firstNanos: nanos(events[0].ts), lastNanos: nanos(events[Int(n) - 1].ts))
    }
}
