#if canImport(Glibc)
import Glibc
#endif
import CIIO
import MotionCore

/// Reads the environmental channels of any IIO devices (config `auxiliary.devices`): pressure,
/// temperature, illuminance and relative humidity, converted from the kernel's IIO ABI units
/// (Documentation/ABI/testing/sysfs-bus-iio) to the published ones:
///
/// | IIO type           | attribute used                           | ABI unit     | published |
/// |--------------------|------------------------------------------|--------------|-----------|
/// | `pressure`         | `in_pressure_input` or `(raw+offset)·scale` | kPa       | kPa       |
/// | `temp`             | `in_temp_input` or `(raw+offset)·scale`  | milli °C     | °C        |
/// | `illuminance`      | `in_illuminance_input` or `(raw+offset)·scale` | lux    | lx        |
/// | `humidityrelative` | `in_humidityrelative_input` or `(raw+offset)·scale` | milli % | % |
///
/// `_input` is preferred: the kernel states it is already in the ABI unit (processed); otherwise
/// `(_raw + _offset) · _scale` as the ABI defines for a raw channel. Allocates and does sysfs I/O:
/// call it from a slow timer, never from the per-sample path.
public final class AuxiliarySensorReader: @unchecked Sendable {
    // @unchecked Sendable: the context and channel pointers are only used by `read()`, which the
    // owner calls from one thread at a time (the agent's main loop or the Altimeter's thread).

    /// One channel found at open: its kind, device name and libiio channel.
    struct Channel {
        var kind: AuxiliaryKind
        var device: String
        var channel: OpaquePointer
    }

    public let uri: String
    public let deviceSpecs: [String]
    private let context: IIOContext
    private let channels: [Channel]

    /// Kinds found on the opened devices, in `AuxiliaryKind.allCases` order.
    public var kinds: [AuxiliaryKind] { AuxiliaryKind.allCases.filter { k in channels.contains { $0.kind == k } } }

    /// Opens `uri` and finds `devices` (name, label, id `iio:deviceN` or index).
    /// - Throws: `.notFound` naming a device that is not there (with the list of those that are),
    ///   `.unsupported` when a device has none of the four channel kinds.
    public init(uri: String = "local:", devices: [String]) throws(SensorError) {
        self.uri = uri
        self.deviceSpecs = devices
        context = try IIOContext(uri: uri)
        var found: [Channel] = []
        for spec in devices {
            guard let dev = context.device(spec) else {
                throw SensorError(.notFound, subject: "IIO device '\(spec)' (auxiliary.devices)",
                                  detail: "not found in \(uri); present: \(context.deviceList)")
            }
            let name = iio_device_get_name(dev).map { String(cString: $0) } ?? spec
            var any = false
            for ch in IIOContext.channels(dev) where !iio_channel_is_output(ch) {
                guard let kind = AuxiliaryKind(iioType: AuxiliaryKind.iioType(ofChannel: IIOContext.id(ch))) else { continue }
                guard iio_channel_find_attr(ch, "input") != nil || iio_channel_find_attr(ch, "raw") != nil else { continue }
                // One channel per kind per device (the first: `pressure` before `pressure1`).
                if found.contains(where: { $0.kind == kind && $0.device == name }) { continue }
                found.append(Channel(kind: kind, device: name, channel: ch))
                any = true
            }
            if !any {
                throw SensorError(.unsupported, subject: "IIO device '\(spec)' (auxiliary.devices)",
                                  detail: "has no pressure, temp, illuminance or humidityrelative input channel; remove it from auxiliary.devices")
            }
        }
        channels = found
    }

    /// Reads every channel once; a channel whose read fails is left out of this round.
    public func read() -> [AuxiliaryReading] {
        let now = MonotonicClock.nowNanos()
        var out: [AuxiliaryReading] = []
        for c in channels {
            guard let v = Self.value(
                input: IIOContext.read(c.channel, "input").flatMap(IIOSysfsValues.number),
                raw: IIOContext.read(c.channel, "raw").flatMap(IIOSysfsValues.number),
                scale: IIOContext.read(c.channel, "scale").flatMap(IIOSysfsValues.number),
                offset: IIOContext.read(c.channel, "offset").flatMap(IIOSysfsValues.number), kind: c.kind) else { continue }
            out.append(AuxiliaryReading(kind: c.kind, device: c.device, value: v, timestampNanos: now))
        }
        return out
    }

    /// The published value from a channel's attributes: `_input`, else `(_raw + _offset) · _scale`
    /// (scale 1 and offset 0 when absent), times the kind's ABI-to-published factor.
    static func value(input: Double?, raw: Double?, scale: Double?, offset: Double?, kind: AuxiliaryKind) -> Double? {
        let abi: Double
        if let input { abi = input } else if let raw { abi = (raw + (offset ?? 0)) * (scale ?? 1) } else { return nil }
        let v = abi * kind.abiFactor
        return v.isFinite ? v : nil
    }
}
