#if canImport(Glibc)
import Glibc
#endif
import Platform
import CIIO
import Logging
import MotionCore

/// Reads an `IIOSource`'s devices through their triggered buffers. Each sample takes the buffer's
/// `in_timestamp` (kernel `CLOCK_MONOTONIC`, after `current_timestamp_clock` is set to `monotonic`)
/// when every member has one, otherwise the read time. With several members the fastest drives the
/// output (`members[0]`) and the others are paired by nearest timestamp (`NearestTimestampPairing`).
///
/// A value owned by the source and used only on its acquisition thread (created by `start`, read by
/// `read`, released by `stop`); it keeps its libiio context alive.
struct IIOBufferedReader {
    private let context: IIOContext
    /// The devices read; `members[0]` drives the output (the fastest).
    private(set) var members: [IIODeviceMember]
    /// Output rate, Hz (the primary's buffer or trigger rate).
    let rate: Double
    let timing: SampleTiming
    /// Whether buffer timestamp gaps count as lost samples (not for an on-demand trigger).
    private let detectGaps: Bool
    private var gaps: EdgeGapDetector
    private var timeoutMillis: UInt32 = 0
    private var sequence: UInt64 = 0
    /// Samples lost since start (timestamp gaps).
    private(set) var missed: UInt64 = 0
    /// Largest |primary − paired secondary| buffer timestamp since start, ns (0 with one member).
    private(set) var maxPairingSkewNanos: UInt64 = 0

    /// Attaches the trigger to every member, enables its channels and creates its buffer; on failure
    /// everything created so far is released.
    /// - Parameter bufferLength: samples per refill of the primary (`nil`: about 20 ms worth).
    init(context: IIOContext, members: [IIODeviceMember], trigger: IIOTrigger, bufferLength: Int?, log: Logger) throws(SensorError) {
        var members = members
        // The fastest device drives the output; slower ones are held (NearestTimestampPairing).
        if let fastest = members.indices.max(by: { members[$0].rate < members[$1].rate }), fastest != 0 { members.swapAt(0, fastest) }
        var rate = 0.0
        var detectGaps = true
        do {
            for i in members.indices {
                let r = try Self.startBuffer(context, &members[i], trigger: trigger, bufferLength: bufferLength,
                                             secondary: i > 0, detectGaps: &detectGaps, log: log)
                if i == 0 { rate = r }
            }
        } catch {
            for i in members.indices { members[i].release() }
            throw error
        }
        self.context = context
        self.members = members
        self.rate = rate
        self.detectGaps = detectGaps
        timing = members.allSatisfy { $0.timestampChannel != nil } ? .bufferTimestamp : .timer
        gaps = EdgeGapDetector(periodNanos: UInt64((1e9 / max(rate, 1e-3)).rounded()))
    }

    /// Destroys every buffer and disables the channels. Idempotent.
    mutating func release() {
        for i in members.indices { members[i].release() }
    }

    /// Whether a local device has a triggered buffer (a `trigger/` directory in sysfs). Devices
    /// whose buffer is fed by a hardware FIFO interrupt (`st_lsm6dsx`) have none.
    private static func hasTriggerDirectory(_ member: IIODeviceMember) -> Bool {
        guard let path = member.sysfsPath else { return true }
        return access(path + "/trigger", F_OK) == 0
    }

    /// Sets up one member's buffer and returns its rate, Hz (the trigger's when it has one).
    private static func startBuffer(_ ctx: IIOContext, _ member: inout IIODeviceMember, trigger: IIOTrigger, bufferLength: Int?,
                                    secondary: Bool, detectGaps: inout Bool, log: Logger) throws(SensorError) -> Double {
        let dev = member.device
        let subject = member.subject
        let deviceRate = member.rate
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
            guard trig != nil || !hasTriggerDirectory(member) else {
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

    /// Writes the pending samples of the primary's buffer into `out`, refilling it (waiting up to
    /// `timeout`) when empty. Allocation-free.
    mutating func read(into out: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws(SensorError) -> ReadResult {
        guard let buf = members[0].buffer else { return .timeout }
        if members[0].pendingIndex >= members[0].pendingCount {
            let ms = UInt32(clamping: max(1, timeout.milliseconds))
            if ms != timeoutMillis {
                _ = iio_context_set_timeout(context.raw, ms)
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
            IIOChannelLayout.decode(base, sensors: members[0].sensors, into: &sample)
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
                if lost > 0 { missed &+= lost; sequence &+= lost }
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
    private mutating func pairSecondaries(at target: UInt64, into sample: inout IMUSample) throws(SensorError) -> Bool {
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
                IIOChannelLayout.decode(base, sensors: members[m].sensors, into: &held)
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
    private mutating func refillSecondary(_ m: Int) throws(SensorError) -> Bool {
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

    private func checkPresent() throws(SensorError) {
        for member in members { try member.checkPresent() }
    }

    private func refillError(member m: Int, errno e: Int32) -> SensorError {
        SensorError(.io, subject: members[m].subject,
                    detail: "buffer refill failed (\(Errno(e)))" + (e == ENODEV ? "; the device disappeared (unbound or unplugged)" : ""))
    }
}
