import Platform
import CIIO
import Logging
import MotionCore
import Synchronization

/// An IMU behind Linux IIO drivers, read through libiio (config `source.type: iio`).
///
/// Channels `accel_*` (m/s²), `anglvel_*` (rad/s) and `magn_*` (Gauss → µT) become `IMUSample`s after
/// `(raw + offset) · scale` (shared or per-channel attributes) and the `mount_matrix`
/// (`IIOChannelLayout`). The output rate is chosen from `sampling_frequency_available` and read back.
/// With a trigger, the triggered buffer is used and each sample takes its `in_timestamp`
/// (`IIOBufferedReader`); otherwise `_raw` attributes are polled on a timer (`IIOPolledReader`).
/// Environmental channels (`temp`, `pressure`, …) are read by `AuxiliarySensorReader`.
///
/// One IMU may be several IIO devices (ST's `st_lsm6dsx` registers `<chip>_accel` and `<chip>_gyro`).
/// The source combines them into one sample stream (`IIODeviceSelection`): either the devices listed
/// in `devices`, or the named `device` plus its siblings. Polled, each tick reads every member;
/// buffered, the fastest member drives the output and the others are paired by nearest timestamp.
public final class IIOSource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable, and why it is safe: every stored property is a `let` of a Sendable type
    // (`capabilities` is probed once, in `init`) or the atomic `missedCount`, except `buffered`,
    // `polled` and `mountMatrices`. Those are written only by `start`/`stop` and read/written by
    // `read`, which `IMUSource` confines to one acquisition thread at a time (MotionPipeline's, or
    // the caller's before it hands the source over); `deinit` runs when no thread holds the source.
    // The accessors documented "on the reading thread" read them too.

    public let uri: String
    /// Device name, label, id or index; nil picks the first device with an accelerometer.
    public var deviceSpec: String? { selection.deviceSpec }
    /// Exactly these devices (no sibling discovery); empty: `deviceSpec` and its siblings.
    public var deviceSpecs: [String] { selection.deviceSpecs }
    public let trigger: IIOTrigger
    public let useBuffer: Bool
    /// Samples per buffer refill (`nil`: about 20 ms worth).
    public let bufferLength: Int?
    /// What the selected devices deliver, probed once when the source is made (a fallback named
    /// after the spec, inertial up to 1 kHz, when they cannot be found then; `start` reports why).
    public let capabilities: SourceCapabilities

    private let selection: IIODeviceSelection
    private let log = Logger(label: "iio")
    private let missedCount = Atomic<UInt64>(0)
    /// `_raw` text of the polled reader; allocated once, outlives every reader.
    private let attributeBuffer: UnsafeMutableBufferPointer<CChar>
    private var buffered: IIOBufferedReader?
    private var polled: IIOPolledReader?

    /// Mount matrices found at `start`, by IIO type (`accel`, `anglvel`, `magn`); absent types use
    /// identity. Read on the reading thread.
    public private(set) var mountMatrices: [String: RotationMatrix] = [:]

    /// Largest |primary − paired secondary| buffer timestamp since `start`, ns (buffered multi-device
    /// reads; 0 otherwise). Read on the reading thread.
    public var maxPairingSkewNanos: UInt64 { buffered?.maxPairingSkewNanos ?? 0 }

    /// `iio:deviceN` of every device read since `start`, primary first. Read on the reading thread.
    public var memberIDs: [String] {
        (buffered?.members ?? polled?.members ?? []).map { String(cString: iio_device_get_id($0.device)) }
    }

    /// Samples lost so far (timestamp gaps in the buffer, or timer overruns when polling). Any thread.
    public var missedSamples: UInt64 { missedCount.load(ordering: .relaxed) }

    /// - Parameters:
    ///   - uri: libiio context URI, `local:` or `ip:<host>` (remote iiod).
    ///   - device: device name, label, id (`iio:device0`) or index; nil: the first with an accelerometer.
    ///     Sibling devices of the same chip that add missing sensor kinds are read with it.
    ///   - devices: exactly these devices, combined (overrides `device`; no sibling discovery).
    ///   - trigger: `own`, `hrtimer[:name]`, a trigger name, or `none` (polled `_raw`).
    ///   - useBuffer: use the triggered buffer when the device has one.
    ///   - bufferLength: samples per refill.
    public init(uri: String = "local:", device: String?, devices: [String] = [], trigger: String = "own", useBuffer: Bool = true, bufferLength: Int? = nil) {
        self.uri = uri
        selection = IIODeviceSelection(uri: uri, deviceSpec: device, deviceSpecs: devices)
        self.trigger = IIOTrigger(trigger)
        self.useBuffer = useBuffer
        self.bufferLength = bufferLength
        capabilities = selection.probeCapabilities()
        attributeBuffer = .allocate(capacity: 64)
        attributeBuffer.initialize(repeating: 0)
    }

    deinit {
        stop()
        attributeBuffer.deallocate()
    }

    // MARK: start

    public func start(requestedRate: Double) throws -> SourceConfiguration {
        stop()
        if case .hrtimer(let name) = trigger, selection.isLocal { try IIOTrigger.ensureHrtimer(named: name) }
        let ctx = try IIOContext(uri: uri)
        var members = try selection.resolve(ctx).map { IIODeviceMember(device: $0, local: selection.isLocal) }
        var matrices: [String: RotationMatrix] = [:]
        var have: IMUSample.Contents = []
        for i in members.indices {
            try IIOChannelLayout.discover(&members[i], skipping: have, mountMatrices: &matrices)
            have.formUnion(members[i].contents)
        }
        for i in members.indices { members[i].rate = IIOChannelLayout.setSamplingFrequency(members[i], requested: requestedRate, log: log) }
        let scanCapable = members.allSatisfy { m in m.hasKernelBuffer && m.sensors.allSatisfy { $0.axes.allSatisfy { iio_channel_is_scan_element($0.channel) } } }
        let configuration: SourceConfiguration
        let running: [IIODeviceMember]
        if useBuffer, trigger != .none, scanCapable {
            let reader = try IIOBufferedReader(context: ctx, members: members, trigger: trigger, bufferLength: bufferLength, log: log)
            configuration = SourceConfiguration(rate: reader.rate, timing: reader.timing)
            running = reader.members
            buffered = reader
        } else {
            let reader = IIOPolledReader(context: ctx, members: members, rate: members.map(\.rate).min() ?? requestedRate,
                                         attributeBuffer: attributeBuffer)
            configuration = SourceConfiguration(rate: reader.rate, timing: .timer)
            running = reader.members
            polled = reader
        }
        mountMatrices = matrices
        missedCount.store(0, ordering: .relaxed)
        log.info("started", ["device": running.map(\.subject).joined(separator: " + "), "uri": uri, "rate": "\(configuration.rate)",
                             "timing": configuration.timing.rawValue,
                             "buffer": buffered == nil ? "no (polled _raw)" : "yes, \(max(1, bufferLength ?? 1)) samples/refill",
                             "channels": running.flatMap { $0.sensors.flatMap { $0.axes.map { IIOContext.id($0.channel) } } }.joined(separator: ",")])
        return configuration
    }

    // MARK: read

    public func read(into out: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        if buffered != nil, out.count > 0 {
            let result = try buffered!.read(into: out, timeout: timeout)
            missedCount.store(buffered!.missed, ordering: .relaxed)
            return result
        }
        if polled != nil, out.count > 0 {
            let result = try polled!.read(into: out, timeout: timeout)
            missedCount.store(polled!.missed, ordering: .relaxed)
            return result
        }
        throw SensorError(.io, subject: "iio \(selection.description)", detail: "read before start (or after stop)")
    }

    // MARK: stop

    public func stop() {
        buffered?.release()
        buffered = nil
        polled?.release()
        polled = nil
    }
}
