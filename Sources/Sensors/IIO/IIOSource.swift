// Over ~400 lines and still several concepts (device selection, channel layout, buffered and
// polled reading, retries): its split, and capturing `capabilities` once, are open in issue 17.
#if canImport(Glibc)
import Glibc
#endif
import Platform
import CIIO
import Logging
import MotionCore
import Synchronization

/// An IMU behind Linux IIO drivers, read through libiio (config `source.type: iio`).
///
/// Channels `accel_*` (m/s²), `anglvel_*` (rad/s) and `magn_*` (Gauss → µT) become `IMUSample`s after
/// `(raw + offset) · scale` (shared or per-channel attributes) and the `mount_matrix`. The output rate is
/// chosen from `sampling_frequency_available` and read back. With a trigger, the triggered buffer is
/// used and each sample takes its `in_timestamp` (`current_timestamp_clock` set to `monotonic`);
/// otherwise `_raw` attributes are polled on a timer. Other input channels (`temp`, `pressure`, …) are
/// offered through `readAuxiliary()`.
///
/// One IMU may be several IIO devices (ST's `st_lsm6dsx` registers `<chip>_accel` and `<chip>_gyro`).
/// The source combines them into one sample stream: either the devices listed in `devices`, or the
/// named `device` plus its siblings — devices on the same parent hardware device (sysfs, local
/// context only) that add a sensor kind the named one lacks. Polled, each tick reads every member;
/// buffered, the fastest member drives the output and the others are paired by nearest timestamp.
public final class IIOSource: IMUSource, @unchecked Sendable {
    public let uri: String
    /// Device name, label, id or index; nil picks the first device with an accelerometer.
    public let deviceSpec: String?
    /// Exactly these devices (no sibling discovery); empty: `deviceSpec` and its siblings.
    public let deviceSpecs: [String]
    public let trigger: IIOTrigger
    public let useBuffer: Bool
    /// Samples per buffer refill (`nil`: about 20 ms worth).
    public let bufferLength: Int?
    private let log = Logger(label: "iio")

    /// One scalar channel of a vector sensor.
    struct Axis {
        var channel: OpaquePointer
        var format: IIOScanFormat
        var scale: Double
        var offset: Double
        var byteOffset = 0
    }

    /// The three axes of one sensor, with its mount matrix and unit factor.
    struct VectorSensor {
        var axes: [Axis]
        var matrix: RotationMatrix
        var unitFactor: Double
        var content: IMUSample.Contents
    }

    private var context: IIOContext?
    /// The devices read; in buffered mode `members[0]` drives the output (the fastest).
    private var members: [IIODeviceMember] = []
    private var timeoutMillis: UInt32 = 0
    private var periodNanos: UInt64 = 10_000_000
    private var nextTick: UInt64 = 0
    private var gaps = EdgeGapDetector(periodNanos: 1)
    private var sequence: UInt64 = 0
    private let missedCount = Atomic<UInt64>(0)
    private let attrBuffer: UnsafeMutableBufferPointer<CChar>
    private var timing: SampleTiming = .timer
    private var detectGaps = true
    private var auxiliary: [(type: String, channel: OpaquePointer)] = []

    /// Mount matrices found at `start`, by IIO type (`accel`, `anglvel`, `magn`); absent types use identity.
    public private(set) var mountMatrices: [String: RotationMatrix] = [:]

    /// Largest |primary − paired secondary| buffer timestamp since `start`, ns (buffered multi-device
    /// reads; 0 otherwise). Read on the reading thread.
    public private(set) var maxPairingSkewNanos: UInt64 = 0

    /// `iio:deviceN` of every device read since `start`, primary first.
    public var memberIDs: [String] { members.map { String(cString: iio_device_get_id($0.device)) } }

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
        self.deviceSpec = device
        self.deviceSpecs = devices
        self.trigger = IIOTrigger(trigger)
        self.useBuffer = useBuffer
        self.bufferLength = bufferLength
        attrBuffer = .allocate(capacity: 64)
        attrBuffer.initialize(repeating: 0)
    }

    deinit {
        stop()
        attrBuffer.deallocate()
    }

    /// Samples lost so far (timestamp gaps in the buffer, or timer overruns when polling).
    public var missedSamples: UInt64 { missedCount.load(ordering: .relaxed) }

    /// Names of the non-inertial input channels (`temp`, `pressure0`, …) found at `start`.
    public var auxiliaryChannels: [String] { auxiliary.map { IIOContext.id($0.channel) } }

    private var specDescription: String {
        deviceSpecs.isEmpty ? (deviceSpec ?? "auto") : deviceSpecs.joined(separator: "+")
    }

    public var capabilities: SourceCapabilities {
        guard let ctx = context ?? (try? IIOContext(uri: uri)), let devs = try? resolveDevices(ctx), !devs.isEmpty else {
            return SourceCapabilities(name: "iio:\(specDescription)", sensors: .inertial, maximumRate: 1000)
        }
        var contents: IMUSample.Contents = []
        var rates: [Double] = []
        for dev in devs {
            for ch in IIOContext.channels(dev) where !iio_channel_is_output(ch) {
                switch iio_channel_get_type(ch) {
                case IIO_ACCEL: contents.insert(.accelerometer)
                case IIO_ANGL_VEL: contents.insert(.gyroscope)
                case IIO_MAGN: contents.insert(.magnetometer)
                default: continue
                }
                if rates.isEmpty, let a = IIOContext.read(ch, "sampling_frequency_available") { rates = IIOSysfsValues.availableValues(a) }
            }
            if rates.isEmpty, let a = IIOContext.read(device: dev, "sampling_frequency_available") { rates = IIOSysfsValues.availableValues(a) }
        }
        let name = devs.map { iio_device_get_name($0).map { String(cString: $0) } ?? "?" }.joined(separator: "+")
        return SourceCapabilities(name: "iio:\(name)", sensors: contents, supportedRates: rates, maximumRate: rates.last ?? 1000)
    }

    // MARK: devices

    /// The devices to read: `deviceSpecs` as listed, or `deviceSpec` plus its siblings.
    private func resolveDevices(_ ctx: IIOContext) throws(SensorError) -> [OpaquePointer] {
        if !deviceSpecs.isEmpty {
            var out: [OpaquePointer] = []
            for spec in deviceSpecs {
                guard let d = ctx.device(spec) else {
                    throw SensorError(.notFound, subject: "iio \(uri) device '\(spec)' (source.iio.devices)",
                                      detail: "no such IIO device (devices: \(ctx.deviceList)); list names, labels or indexes that 'edgemotion probe' shows")
                }
                guard !out.contains(d) else {
                    throw SensorError(.invalidData, subject: "iio \(uri) device '\(spec)' (source.iio.devices)", detail: "listed twice; list each device once")
                }
                out.append(d)
            }
            return out
        }
        guard let dev = ctx.device(deviceSpec) else {
            throw SensorError(.notFound, subject: "iio \(uri) device '\(deviceSpec ?? "(first with an accelerometer)")'",
                              detail: "no such IIO device (devices: \(ctx.deviceList)); set source.iio.device to a name, label or index")
        }
        return [dev] + siblings(of: dev, in: ctx)
    }

    /// Devices on the same parent hardware device as `dev` that add an inertial kind `dev` lacks
    /// (local contexts only; a remote context has no sysfs to tell), in id order.
    private func siblings(of dev: OpaquePointer, in ctx: IIOContext) -> [OpaquePointer] {
        guard uri.hasPrefix("local"), let parent = IIODeviceParent.path(ofDevice: String(cString: iio_device_get_id(dev))) else { return [] }
        var have = Self.inertialKinds(dev)
        guard have != [.accelerometer, .gyroscope, .magnetometer] else { return [] }
        var out: [OpaquePointer] = []
        for other in ctx.devices where other != dev && !iio_device_is_trigger(other) {
            let kinds = Self.inertialKinds(other)
            guard !kinds.subtracting(have).isEmpty,
                  IIODeviceParent.path(ofDevice: String(cString: iio_device_get_id(other))) == parent else { continue }
            out.append(other)
            have.formUnion(kinds)
        }
        return out
    }

    static func inertialKinds(_ dev: OpaquePointer) -> IMUSample.Contents {
        var kinds: IMUSample.Contents = []
        for ch in IIOContext.channels(dev) where !iio_channel_is_output(ch) {
            switch iio_channel_get_type(ch) {
            case IIO_ACCEL: kinds.insert(.accelerometer)
            case IIO_ANGL_VEL: kinds.insert(.gyroscope)
            case IIO_MAGN: kinds.insert(.magnetometer)
            default: break
            }
        }
        return kinds
    }

    // MARK: start

    public func start(requestedRate: Double) throws -> SourceConfiguration {
        stop()
        if case .hrtimer(let name) = trigger, uri.hasPrefix("local") { try IIOTrigger.ensureHrtimer(named: name) }
        let ctx = try IIOContext(uri: uri)
        let devs = try resolveDevices(ctx)
        context = ctx
        do {
            members = devs.map { dev in
                IIODeviceMember(device: dev, sysfsPath: uri.hasPrefix("local") ? "/sys/bus/iio/devices/" + String(cString: iio_device_get_id(dev)) : nil)
            }
            mountMatrices = [:]
            auxiliary = []
            var have: IMUSample.Contents = []
            for i in members.indices {
                try discoverChannels(&members[i], skipping: have)
                have.formUnion(members[i].contents)
            }
            for i in members.indices { members[i].rate = setSamplingFrequency(members[i], requested: requestedRate) }
            var rate = members.map(\.rate).min() ?? requestedRate
            let scanCapable = members.allSatisfy { m in m.hasKernelBuffer && m.sensors.allSatisfy { $0.axes.allSatisfy { iio_channel_is_scan_element($0.channel) } } }
            if useBuffer, trigger != .none, scanCapable {
                // The fastest device drives the output; slower ones are held (NearestTimestampPairing).
                if let fastest = members.indices.max(by: { members[$0].rate < members[$1].rate }), fastest != 0 { members.swapAt(0, fastest) }
                rate = 0
                for i in members.indices {
                    let r = try startBuffer(ctx, &members[i], rate: members[i].rate, secondary: i > 0)
                    if i == 0 { rate = r }
                }
                timing = members.allSatisfy { $0.timestampChannel != nil } ? .bufferTimestamp : .timer
            } else {
                timing = .timer
            }
            periodNanos = UInt64((1e9 / max(rate, 1e-3)).rounded())
            gaps = EdgeGapDetector(periodNanos: periodNanos)
            nextTick = MonotonicClock.nowNanos() + periodNanos
            sequence = 0
            maxPairingSkewNanos = 0
            missedCount.store(0, ordering: .relaxed)
            log.info("started", ["device": members.map(\.subject).joined(separator: " + "), "uri": uri, "rate": "\(rate)", "timing": timing.rawValue,
                                 "buffer": members[0].buffer == nil ? "no (polled _raw)" : "yes, \(pendingCapacity) samples/refill",
                                 "channels": members.flatMap { $0.sensors.flatMap { $0.axes.map { IIOContext.id($0.channel) } } }.joined(separator: ","),
                                 "auxiliary": auxiliaryChannels.joined(separator: ",")])
            return SourceConfiguration(rate: rate, timing: timing)
        } catch {
            stop()
            throw error
        }
    }

    private var pendingCapacity: Int { max(1, bufferLength ?? 1) }

    /// Finds a member's accel/anglvel/magn axes (kinds in `skipping` came from an earlier member and
    /// are left out), its timestamp channel and its auxiliary channels.
    private func discoverChannels(_ member: inout IIODeviceMember, skipping: IMUSample.Contents) throws(SensorError) {
        let dev = member.device
        let subject = member.subject
        let all = IIOContext.channels(dev).filter { !iio_channel_is_output($0) }
        let kinds: [(iio_chan_type, IMUSample.Contents, String, Double)] =
            [(IIO_ACCEL, .accelerometer, "accel", 1), (IIO_ANGL_VEL, .gyroscope, "anglvel", 1), (IIO_MAGN, .magnetometer, "magn", 100)]
        for (type, content, prefix, factor) in kinds where !skipping.contains(content) {
            var axes: [Axis] = []
            for mod in [IIO_MOD_X, IIO_MOD_Y, IIO_MOD_Z] {
                guard let ch = all.first(where: { iio_channel_get_type($0) == type && iio_channel_get_modifier($0) == mod }) else { continue }
                let scale = IIOContext.read(ch, "scale").flatMap(IIOSysfsValues.number) ?? 1
                let offset = IIOContext.read(ch, "offset").flatMap(IIOSysfsValues.number) ?? 0
                let format = iio_channel_get_data_format(ch).map { IIOScanFormat($0.pointee) }
                    ?? IIOScanFormat(storageBits: 16, realBits: 16, shift: 0, isSigned: true, isBigEndian: false)
                axes.append(Axis(channel: ch, format: format, scale: scale, offset: offset))
            }
            guard !axes.isEmpty else { continue }
            guard axes.count == 3 else {
                throw SensorError(.unsupported, subject: subject, detail: "\(prefix) has \(axes.count) of 3 axes; only 3-axis sensors are supported")
            }
            var matrix = RotationMatrix.identity
            var found = false
            if let text = Self.mountMatrixText(dev, prefix: prefix, firstAxis: axes[0].channel, among: all) {
                guard let m = IIOSysfsValues.mountMatrix(text) else {
                    throw SensorError(.invalidData, subject: subject + " \(prefix) mount_matrix", detail: "cannot parse '\(text)'; expected 'a, b, c; d, e, f; g, h, i'")
                }
                matrix = m
                found = true
            }
            mountMatrices[prefix] = found ? matrix : nil
            member.sensors.append(VectorSensor(axes: axes, matrix: matrix, unitFactor: factor, content: content))
        }
        guard !member.sensors.isEmpty else {
            let detail = skipping.isEmpty
                ? "no accel, anglvel or magn channels; pick an IMU device ('edgemotion probe' lists them)"
                : "adds no accel, anglvel or magn channels that an earlier device in source.iio.devices lacks; remove it from the list"
            throw SensorError(.unsupported, subject: subject, detail: detail)
        }
        member.timestampChannel = all.first(where: { iio_channel_get_type($0) == IIO_TIMESTAMP })
        for ch in all where ![IIO_ACCEL, IIO_ANGL_VEL, IIO_MAGN, IIO_TIMESTAMP].contains(iio_channel_get_type(ch)) && IIOContext.id(ch) != "mount" {
            guard iio_channel_find_attr(ch, "raw") != nil || iio_channel_find_attr(ch, "input") != nil else { continue }
            auxiliary.append((Self.channelType(IIOContext.id(ch)), ch))
        }
    }

    /// The mount matrix text for a sensor type. The kernel names it `in_<type>_mount_matrix` or
    /// `in_mount_matrix` (shared); libiio presents those as the attribute `mount_matrix` of the
    /// type's channels, or as a pseudo-channel `mount` with attribute `matrix`.
    static func mountMatrixText(_ dev: OpaquePointer, prefix: String, firstAxis: OpaquePointer, among channels: [OpaquePointer]) -> String? {
        if let t = IIOContext.read(firstAxis, "mount_matrix") { return t }
        if let ch = channels.first(where: { IIOContext.id($0) == prefix }), let t = IIOContext.read(ch, "mount_matrix") { return t }
        if let ch = channels.first(where: { IIOContext.id($0) == "mount" }), let t = IIOContext.read(ch, "matrix") { return t }
        return IIOContext.read(device: dev, "mount_matrix") ?? IIOContext.read(device: dev, "in_mount_matrix")
    }

    /// `temp` from `temp`, `pressure` from `pressure0`, `illuminance` from `illuminance_clear`.
    static func channelType(_ id: String) -> String {
        var s = Substring(id.split(separator: "_").first ?? Substring(id))
        while let c = s.last, c.isNumber { s = s.dropLast() }
        return String(s)
    }

    /// Writes the nearest available `sampling_frequency` at or above `requested` to each sensor
    /// (or the device) of a member and returns the slowest read-back value.
    private func setSamplingFrequency(_ member: IIODeviceMember, requested: Double) -> Double {
        let dev = member.device
        var effective: [Double] = []
        for sensor in member.sensors {
            let ch = sensor.axes[0].channel
            guard iio_channel_find_attr(ch, "sampling_frequency") != nil else { continue }
            let available = IIOContext.read(ch, "sampling_frequency_available").map(IIOSysfsValues.availableValues) ?? []
            let target = IIOSysfsValues.pick(available, atLeast: requested) ?? requested
            let rc = IIOContext.write(ch, "sampling_frequency", sysfsNumber(target))
            if rc < 0 { log.warning("cannot set sampling_frequency", ["device": member.subject, "channel": IIOContext.id(ch), "value": sysfsNumber(target), "errno": "\(-rc)"]) }
            if let v = IIOContext.read(ch, "sampling_frequency").flatMap(IIOSysfsValues.number) { effective.append(v) }
        }
        if effective.isEmpty, iio_device_find_attr(dev, "sampling_frequency") != nil {
            let available = IIOContext.read(device: dev, "sampling_frequency_available").map(IIOSysfsValues.availableValues) ?? []
            let target = IIOSysfsValues.pick(available, atLeast: requested) ?? requested
            _ = IIOContext.write(device: dev, "sampling_frequency", sysfsNumber(target))
            if let v = IIOContext.read(device: dev, "sampling_frequency").flatMap(IIOSysfsValues.number) { effective.append(v) }
        }
        return effective.min() ?? requested
    }

    /// Whether a local device has a triggered buffer (a `trigger/` directory in sysfs). Devices
    /// whose buffer is fed by a hardware FIFO interrupt (`st_lsm6dsx`) have none.
    private static func hasTriggerDirectory(_ member: IIODeviceMember) -> Bool {
        guard let path = member.sysfsPath else { return true }
        return access(path + "/trigger", F_OK) == 0
    }

    private func startBuffer(_ ctx: IIOContext, _ member: inout IIODeviceMember, rate deviceRate: Double, secondary: Bool) throws(SensorError) -> Double {
        let dev = member.device
        let subject = member.subject
        var rate = deviceRate
        if IIOContext.write(device: dev, "current_timestamp_clock", "monotonic") < 0 {
            log.warning("cannot set current_timestamp_clock=monotonic; buffer timestamps may use another clock", ["device": subject])
        }
        var trig: OpaquePointer?
        switch trigger {
        case .none:
            break
        case .own:
            // Drivers name their own (interrupt) trigger "<name>-dev<N>"; whatever trigger is
            // currently attached may be a leftover software trigger, so it is not trusted.
            let prefix = (iio_device_get_name(dev).map { String(cString: $0) } ?? "") + "-dev"
            trig = ctx.devices.first { iio_device_is_trigger($0) && (iio_device_get_name($0).map { String(cString: $0).hasPrefix(prefix) } ?? false) }
            guard trig != nil || !Self.hasTriggerDirectory(member) else {
                throw SensorError(.unsupported, subject: subject,
                                  detail: "the device has no trigger of its own (is its interrupt wired in the device tree?); set source.iio.trigger to hrtimer or none")
            }
        case .hrtimer(let name), .named(let name):
            guard let t = iio_context_find_device(ctx.raw, name), iio_device_is_trigger(t) else {
                let triggers = ctx.devices.filter { iio_device_is_trigger($0) }.compactMap { iio_device_get_name($0).map { String(cString: $0) } }
                throw SensorError(.notFound, subject: subject + " trigger '\(name)'",
                                  detail: "no such IIO trigger (triggers: \(triggers.isEmpty ? "none" : triggers.joined(separator: ", ")))")
            }
            trig = t
            if case .hrtimer = trigger {
                _ = IIOContext.write(device: t, "sampling_frequency", sysfsNumber(deviceRate))
                if let v = IIOContext.read(device: t, "sampling_frequency").flatMap(IIOSysfsValues.number), v > 0 { rate = v }
            }
        }
        if let trig, iio_device_set_trigger(dev, trig) != 0 {
            throw SensorError(.io, subject: subject, detail: "cannot set the trigger (\(Errno(errno))); is the buffer in use by another program?")
        }
        if !secondary { detectGaps = true }
        if case .named = trigger {
            // A trigger with a frequency paces the buffer; one without (sysfs) fires on demand, so
            // its samples have no expected period and gaps are not losses.
            if let t = trig, let v = IIOContext.read(device: t, "sampling_frequency").flatMap(IIOSysfsValues.number), v > 0 { rate = v } else if !secondary { detectGaps = false }
        }
        for sensor in member.sensors { for axis in sensor.axes { iio_channel_enable(axis.channel) } }
        if let ts = member.timestampChannel { iio_channel_enable(ts) }
        // A secondary is read one sample per refill, only when its poll fd says one is ready.
        let perRefill = secondary ? 1 : (bufferLength ?? max(1, Int(rate / 50)))
        guard let buf = iio_device_create_buffer(dev, perRefill, false) else {
            let e = errno
            throw SensorError(e == EBUSY ? .io : (e == EACCES ? .permissionDenied : .io), subject: subject,
                              detail: "cannot create the IIO buffer (\(Errno(e)))" + (e == EBUSY ? "; another program has the buffer enabled" : ""))
        }
        member.buffer = buf
        member.pollFD = secondary ? iio_buffer_get_poll_fd(buf) : -1
        member.step = Int(iio_buffer_step(buf))
        let start = iio_buffer_start(buf)!
        for s in member.sensors.indices {
            for a in member.sensors[s].axes.indices {
                member.sensors[s].axes[a].byteOffset = UnsafeRawPointer(iio_buffer_first(buf, member.sensors[s].axes[a].channel)!) - UnsafeRawPointer(start)
            }
        }
        if let ts = member.timestampChannel {
            member.timestampOffset = UnsafeRawPointer(iio_buffer_first(buf, ts)!) - UnsafeRawPointer(start)
            if let f = iio_channel_get_data_format(ts) { member.timestampFormat = IIOScanFormat(f.pointee) }
        }
        member.pendingIndex = 0
        member.pendingCount = 0
        member.hasHeld = false
        return rate
    }

    // MARK: read

    public func read(into out: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard !members.isEmpty, out.count > 0 else {
            throw SensorError(.io, subject: "iio \(specDescription)", detail: "read before start (or after stop)")
        }
        if let buffer = members[0].buffer { return try readBuffered(buffer, into: out, timeout: timeout) }
        return try readPolled(into: out, timeout: timeout)
    }

    private func readBuffered(_ buf: OpaquePointer, into out: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        if members[0].pendingIndex >= members[0].pendingCount {
            let (s, a) = timeout.components
            let ms = UInt32(clamping: max(1, s * 1000 + a / 1_000_000_000_000_000))
            if ms != timeoutMillis, let ctx = context {
                _ = iio_context_set_timeout(ctx.raw, ms)
                timeoutMillis = ms
            }
            let n = iio_buffer_refill(buf)
            if n == -Int(ETIMEDOUT) || n == -Int(EAGAIN) || n == -Int(EINTR) || n == 0 {
                try checkPresent()
                return .timeout
            }
            guard n >= 0 else { throw refillError(member: 0, errno: Int32(-n)) }
            members[0].pendingCount = members[0].step > 0 ? n / members[0].step : 0
            members[0].pendingIndex = 0
            if members[0].pendingCount == 0 { try checkPresent(); return .timeout }
        }
        let start = UnsafeRawPointer(iio_buffer_start(buf)!)
        let hasTimestamp = members[0].timestampChannel != nil
        var written = 0
        while written < out.count, members[0].pendingIndex < members[0].pendingCount {
            let base = start + members[0].pendingIndex * members[0].step
            members[0].pendingIndex += 1
            var sample = IMUSample(timestampNanos: 0, sequence: 0, contents: [])
            decode(base, member: 0, into: &sample)
            if hasTimestamp {
                sample.timestampNanos = UInt64(bitPattern: members[0].timestampFormat.decode(base + members[0].timestampOffset))
            } else {
                sample.timestampNanos = MonotonicClock.nowNanos()
            }
            // Until every other device has delivered a sample there is nothing to pair with.
            if members.count > 1, !(try pairSecondaries(at: sample.timestampNanos, into: &sample)) { continue }
            if hasTimestamp {
                let lost = detectGaps ? gaps.register(count: 1, firstNanos: sample.timestampNanos, lastNanos: sample.timestampNanos) : 0
                sample.flags = lost > 0 ? [.hardwareTimestamp, .discontinuity] : .hardwareTimestamp
                if lost > 0 { missedCount.add(lost, ordering: .relaxed); sequence &+= lost }
            }
            sample.sequence = sequence
            sequence &+= 1
            out[written] = sample
            written += 1
        }
        return written > 0 ? .samples(written) : .timeout
    }

    /// Brings every secondary member's held sample to the one nearest `target` and copies its
    /// sensors into `sample`; false while some member has not delivered any sample yet.
    private func pairSecondaries(at target: UInt64, into sample: inout IMUSample) throws(SensorError) -> Bool {
        var complete = true
        for m in 1..<members.count {
            var heldAt: UInt64? = members[m].hasHeld ? members[m].held.timestampNanos : nil
            var blockingRefills = 0
            try NearestTimestampPairing.advance(held: &heldAt, to: target, peek: { () throws(SensorError) -> UInt64? in
                if members[m].pendingIndex >= members[m].pendingCount {
                    // Without a poll fd (remote context) a refill may block: at most one per sample.
                    if members[m].pollFD < 0 {
                        guard blockingRefills == 0 else { return nil }
                        blockingRefills += 1
                    }
                    guard try refillSecondary(m) else { return nil }
                }
                guard members[m].timestampChannel != nil, let buf = members[m].buffer else { return 0 }
                let base = UnsafeRawPointer(iio_buffer_start(buf)!) + members[m].pendingIndex * members[m].step
                return UInt64(bitPattern: members[m].timestampFormat.decode(base + members[m].timestampOffset))
            }, take: {
                guard let buf = members[m].buffer else { return }
                let base = UnsafeRawPointer(iio_buffer_start(buf)!) + members[m].pendingIndex * members[m].step
                var held = members[m].held
                decode(base, member: m, into: &held)
                members[m].held = held
                members[m].hasHeld = true
                members[m].pendingIndex += 1
            })
            if let heldAt {
                members[m].held.timestampNanos = heldAt
                if heldAt != 0 {
                    let skew = heldAt > target ? heldAt - target : target - heldAt
                    if skew > maxPairingSkewNanos { maxPairingSkewNanos = skew }
                }
            }
            guard members[m].hasHeld else { complete = false; continue }
            let held = members[m].held
            if held.contents.contains(.accelerometer) { sample.specificForce = held.specificForce }
            if held.contents.contains(.gyroscope) { sample.rotationRate = held.rotationRate }
            if held.contents.contains(.magnetometer) { sample.magneticField = held.magneticField }
            sample.contents.formUnion(held.contents)
        }
        return complete
    }

    /// Refills a secondary member's buffer without waiting: only when its poll fd is readable
    /// (or it has none). Returns whether a sample is pending.
    private func refillSecondary(_ m: Int) throws(SensorError) -> Bool {
        guard let buf = members[m].buffer else { return false }
        if members[m].pollFD >= 0 {
            var p = pollfd(fd: members[m].pollFD, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 0) == 1, p.revents & Int16(POLLIN) != 0 else {
                if p.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { throw refillError(member: m, errno: ENODEV) }
                return false
            }
        }
        let n = iio_buffer_refill(buf)
        if n == -Int(ETIMEDOUT) || n == -Int(EAGAIN) || n == -Int(EINTR) || n == 0 { return false }
        guard n >= 0 else { throw refillError(member: m, errno: Int32(-n)) }
        members[m].pendingCount = members[m].step > 0 ? n / members[m].step : 0
        members[m].pendingIndex = 0
        return members[m].pendingCount > 0
    }

    private func refillError(member m: Int, errno e: Int32) -> SensorError {
        SensorError(.io, subject: members[m].subject,
                    detail: "buffer refill failed (\(Errno(e)))" + (e == ENODEV ? "; the device disappeared (unbound or unplugged)" : ""))
    }

    @inline(__always)
    private func decode(_ base: UnsafeRawPointer, member m: Int, into sample: inout IMUSample) {
        for sensor in members[m].sensors {
            let x = (Double(sensor.axes[0].format.decode(base + sensor.axes[0].byteOffset)) + sensor.axes[0].offset) * sensor.axes[0].scale
            let y = (Double(sensor.axes[1].format.decode(base + sensor.axes[1].byteOffset)) + sensor.axes[1].offset) * sensor.axes[1].scale
            let z = (Double(sensor.axes[2].format.decode(base + sensor.axes[2].byteOffset)) + sensor.axes[2].offset) * sensor.axes[2].scale
            store(sensor, Vector3(x, y, z), into: &sample)
        }
    }

    @inline(__always)
    private func store(_ sensor: VectorSensor, _ v: Vector3, into sample: inout IMUSample) {
        let value = sensor.matrix * (v * sensor.unitFactor)
        switch sensor.content {
        case .accelerometer: sample.specificForce = value
        case .gyroscope: sample.rotationRate = value
        default: sample.magneticField = value
        }
        sample.contents.insert(sensor.content)
    }

    private func readPolled(into out: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard TickSleeper.sleep(untilTick: nextTick, timeout: timeout) else { return .timeout }
        let woke = MonotonicClock.nowNanos()
        var lost: UInt64 = 0
        if woke > nextTick &+ periodNanos {
            lost = (woke - nextTick) / periodNanos
            nextTick &+= lost &* periodNanos
            missedCount.add(lost, ordering: .relaxed)
            sequence &+= lost
        }
        nextTick &+= periodNanos
        var sample = IMUSample(timestampNanos: 0, sequence: 0, contents: [])
        for m in members.indices {
            for sensor in members[m].sensors {
                let v = Vector3(try polledValue(sensor.axes[0], member: m), try polledValue(sensor.axes[1], member: m),
                                try polledValue(sensor.axes[2], member: m))
                store(sensor, v, into: &sample)
            }
        }
        sample.timestampNanos = MonotonicClock.nowNanos()
        sample.flags = lost > 0 ? .discontinuity : []
        sample.sequence = sequence
        sequence &+= 1
        out[0] = sample
        return .samples(1)
    }

    /// A local device whose driver was unbound (or that was unplugged) leaves libiio's refill timing
    /// out rather than failing; its sysfs directory is gone, which is checked on every timeout.
    private func checkPresent() throws(SensorError) {
        for m in members.indices { try checkPresent(member: m) }
    }

    private func checkPresent(member m: Int) throws(SensorError) {
        guard let sysfsPath = members[m].sysfsPath else { return }
        if access(sysfsPath, F_OK) != 0 {
            throw SensorError(.notFound, subject: "\(members[m].subject) (\(sysfsPath))",
                              detail: "the device disappeared (driver unbound or device unplugged); the agent re-opens it with backoff (source.retry_max_s); check the driver (dmesg) if it does not come back")
        }
    }

    /// `(raw + offset) · scale` of one axis from its `_raw` attribute, allocation-free.
    private func polledValue(_ axis: Axis, member m: Int) throws(SensorError) -> Double {
        let n = iio_channel_attr_read(axis.channel, "raw", attrBuffer.baseAddress, attrBuffer.count)
        guard n > 0, let raw = IIOSysfsValues.number(cString: UnsafeBufferPointer(attrBuffer), length: Int(n)) else {
            try checkPresent(member: m)
            let e = n < 0 ? Int32(-n) : EINVAL
            throw SensorError(.io, subject: "\(members[m].subject) \(IIOContext.id(axis.channel))_raw",
                              detail: "read failed (\(Errno(e)))" + (e == ENODEV ? "; the device disappeared (unbound or unplugged)" : ""))
        }
        return (raw + axis.offset) * axis.scale
    }

    // MARK: auxiliary channels

    /// Reads every non-inertial input channel once (`temp`, `pressure`, …) in published units.
    /// Allocates; call on a slow timer, not per sample.
    public func readAuxiliary() -> [AuxiliaryChannelReading] {
        var out: [AuxiliaryChannelReading] = []
        for (type, ch) in auxiliary {
            let (unit, factor) = AuxiliaryChannelReading.unit(forType: type)
            var value: Double?
            if let input = IIOContext.read(ch, "input").flatMap(IIOSysfsValues.number) {
                value = input
            } else if let raw = IIOContext.read(ch, "raw").flatMap(IIOSysfsValues.number) {
                let scale = IIOContext.read(ch, "scale").flatMap(IIOSysfsValues.number) ?? 1
                let offset = IIOContext.read(ch, "offset").flatMap(IIOSysfsValues.number) ?? 0
                value = (raw + offset) * scale
            }
            guard let value else { continue }
            out.append(AuxiliaryChannelReading(type: type, channel: IIOContext.id(ch), value: value * factor, unit: unit,
                                               timestampNanos: MonotonicClock.nowNanos()))
        }
        return out
    }

    // MARK: stop

    public func stop() {
        for member in members {
            if let buffer = member.buffer { iio_buffer_destroy(buffer) }
            for sensor in member.sensors { for axis in sensor.axes { iio_channel_disable(axis.channel) } }
            if let ts = member.timestampChannel { iio_channel_disable(ts) }
        }
        members = []
        auxiliary = []
        context = nil
    }
}
