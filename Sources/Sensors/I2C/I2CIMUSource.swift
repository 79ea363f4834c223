#if canImport(Glibc)
import Glibc
#endif
import Logging
import MotionCore
import Synchronization

/// An IMU chip driven directly over `/dev/i2c-N` (config `source.type: i2c`).
///
/// With a data-ready line, each sample is read when the chip's interrupt edge arrives and takes that
/// edge's kernel timestamp (`SampleTiming.dataReadyInterrupt`); lost edges (coalesced or a period gap)
/// advance `sequence` and set `.discontinuity`. Without one, samples are paced by an absolute
/// `CLOCK_MONOTONIC` timer and stamped when read (`SampleTiming.timer`).
///
/// FIFO mode (`fifo`, every chip): the chip buffers samples; the reader wakes once per `watermark`
/// samples — after that many data-ready edges (MPU-6050/MPU-9250, `FIFOInterrupt.everySample`), on
/// the edge of the chip's FIFO watermark interrupt (BMI160, LSM6DS3, LSM6DSOX, `.watermark`), or on a
/// timer — reads the FIFO level, bursts out whole frames and stamps them backwards from the wake by
/// the measured period (`FIFOTimestamper`, `SampleTiming.fifoBurst`). A FIFO overflow is counted
/// (`fifoOverflows`), the FIFO reset, the lost samples estimated from the time since the last burst
/// and skipped in `sequence`.
///
/// Chip motion engine (`motionInterrupt`, an MPU-6050, LSM6DSOX or BMI160 with a data-ready line,
/// not FIFO): on every edge the chip's interrupt source (MPU-6050 INT_STATUS, LSM6DSOX WAKE_UP_SRC,
/// BMI160 INT_STATUS_0) is read once, before the sample burst; when it says motion (MOT_INT, WU_IA,
/// anym) the sample gets `IMUSample.Flags.chipMotion`. The free-fall and tap engines
/// (`freeFallInterrupt`, `tapInterrupt`: LSM6DSOX, BMI160) and the LSM6DSOX's 6D engine
/// (`orientationInterrupt`) ride the same read (LSM6DSOX WAKE_UP_SRC, TAP_SRC, D6D_SRC in one
/// burst; BMI160 INT_STATUS_0/1 in one 2-byte burst) and set `.chipFreeFall`, `.chipTap`,
/// `.chipDoubleTap`, `.chipOrientation`. An engine the chip lacks makes `start` fail. One extra
/// short read per sample, no allocation.
public final class I2CIMUSource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: the configuration is `let`s of Sendable types and `capabilities` is
    // computed from them only; the lost-sample counters are atomics. Every `var` (the bus, the
    // driver, the data-ready line, the pacing, the FIFO stash, `chipConfiguration`) is written only
    // by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract); `chipConfiguration` is for the thread that started the source.
    public let bus: Int
    public let address: UInt16
    public let chip: IMUChipModel
    public let settings: IMUChipSettings
    public let dataReady: DataReadyLine.Configuration?
    /// FIFO mode, or nil to read one sample per data-ready edge or timer tick.
    public let fifo: FIFOOptions?
    private let devicePath: String?
    private let makeAdapter: (@Sendable () -> any I2CAdapter)?
    private let log = Logger(label: "i2c")

    private var i2c: I2CBus?
    private var driver: (any IMUChipDriver)?
    /// The chip whose motion engine is programmed (interrupt source read per edge), or nil.
    private var motionChip: (any MotionInterruptChip)?
    private var line: DataReadyLine?
    private var gaps = EdgeGapDetector(periodNanos: 1)
    private var periodNanos: UInt64 = 0
    private var nextTick: UInt64 = 0
    private var sequence: UInt64 = 0
    private let missedCount = Atomic<UInt64>(0)
    private let overflowCount = Atomic<UInt64>(0)
    // FIFO mode (acquisition thread only).
    private var fifoDriver: (any FIFOChipDriver)?
    private var stash = UnsafeMutableBufferPointer<IMUSample>(start: nil, count: 0)
    private var stashIndex = 0
    private var stashCount = 0
    private var timestamper = FIFOTimestamper(nominalPeriodNanos: 1e7)
    private var pendingEdges = 0
    private var lastEdgeNanos: UInt64 = 0
    private var lastFIFOWakeNanos: UInt64 = 0
    private var nextIsDiscontinuity = false

    /// The effective chip configuration after `start`.
    public private(set) var chipConfiguration: IMUChipConfiguration?

    /// - Parameters:
    ///   - bus: `N` of `/dev/i2c-N`; `devicePath` overrides the node path.
    ///   - address: 7-bit address (e.g. 0x68).
    ///   - accelRangeG, gyroRangeDPS, lowpassHz: requested ranges and filter (rounded to what the chip has).
    ///   - dataReady: the chip's INT pin on a GPIO line, or `nil` for timer pacing.
    ///   - fifo: read the chip's FIFO in bursts, or nil.
    ///   - makeAdapter: the i2c-dev interface under the bus (nil: open `/dev/i2c-N`); tests script a chip here.
    ///   - motionInterrupt: program the chip's motion engine (MPU-6050, LSM6DSOX or BMI160 with `dataReady`, no `fifo`), or nil.
    ///   - freeFallInterrupt, tapInterrupt, orientationInterrupt: program the chip's free-fall /
    ///     single+double-tap (LSM6DSOX, BMI160) / 6D orientation (LSM6DSOX) engine, with `dataReady`
    ///     and no `fifo`, or nil.
    public init(bus: Int, address: UInt16, chip: IMUChipModel, accelRangeG: Double = 4, gyroRangeDPS: Double = 500,
                lowpassHz: Double? = nil, dataReady: DataReadyLine.Configuration? = nil, devicePath: String? = nil,
                fifo: FIFOOptions? = nil, motionInterrupt: MotionInterruptSettings? = nil,
                freeFallInterrupt: FreeFallInterruptSettings? = nil, tapInterrupt: TapInterruptSettings? = nil,
                orientationInterrupt: OrientationInterruptSettings? = nil,
                makeAdapter: (@Sendable () -> any I2CAdapter)? = nil) {
        self.bus = bus
        self.address = address
        self.chip = chip
        self.settings = IMUChipSettings(rate: 100, accelRangeG: accelRangeG, gyroRangeDPS: gyroRangeDPS,
                                        lowpassHz: lowpassHz, dataReadyInterrupt: dataReady != nil, motionInterrupt: motionInterrupt,
                                        freeFallInterrupt: freeFallInterrupt, tapInterrupt: tapInterrupt,
                                        orientationInterrupt: orientationInterrupt)
        self.dataReady = dataReady
        self.devicePath = devicePath
        self.fifo = fifo
        self.makeAdapter = makeAdapter
    }

    deinit {
        stop()
        stash.deallocate()
    }

    /// FIFO overflows so far (each one reset the FIFO and lost its contents).
    public var fifoOverflows: UInt64 { overflowCount.load(ordering: .relaxed) }

    /// Samples lost so far (missed data-ready edges, or timer ticks overrun).
    public var missedSamples: UInt64 { missedCount.load(ordering: .relaxed) }

    public var capabilities: SourceCapabilities {
        let rates: [Double] = switch chip {
        case .mpu6050, .mpu9250: (0...255).reversed().map { 1000 / Double($0 + 1) }
        case .bmi160: BMI160.rates.map(\.rate)
        case .lsm6ds3, .lsm6dsox: LSM6DSx.rates.map(\.rate)
        }
        return SourceCapabilities(name: "i2c-\(bus):\(hex(address)):\(chip.rawValue)", sensors: chip.contents,
                                  supportedRates: rates, maximumRate: rates.last ?? 1000)
    }

    public func start(requestedRate: Double) throws -> SourceConfiguration {
        stop()
        let bus = if let makeAdapter {
            try I2CBus(number: self.bus, path: devicePath ?? "/dev/i2c-\(self.bus)", adapter: makeAdapter())
        } else {
            try I2CBus(number: self.bus, path: devicePath)
        }
        let driver = chip.makeDriver(on: I2CDevice(bus: bus, address: address))
        do {
            if settings.motionInterrupt != nil, !chip.hasMotionInterrupt || dataReady == nil || fifo != nil {
                throw SensorError(.unsupported, subject: capabilities.name,
                                  detail: "the chip motion engine needs an mpu6050, lsm6dsox or bmi160 with source.data_ready and source.i2c.fifo: false; set events.chip_motion: off")
            }
            // Motion passed the check above, so it cannot fail this one.
            let asked = settings.requestedChipEngines
            if !asked.isEmpty, !chip.chipEngines.isSuperset(of: asked) || dataReady == nil || fifo != nil {
                throw SensorError(.unsupported, subject: capabilities.name,
                                  detail: "the chip free-fall and tap engines need an lsm6dsox or bmi160, the orientation engine an lsm6dsox, with source.data_ready and source.i2c.fifo: false; set events.chip_engines: [motion] or events.chip_motion: off")
            }
            try driver.probe()
            var s = settings
            s.rate = requestedRate
            let config = try driver.configure(s)
            if fifo != nil {
                guard let f = driver as? any FIFOChipDriver else {
                    throw SensorError(.unsupported, subject: capabilities.name,
                                      detail: "the \(chip.rawValue) driver has no FIFO mode; set source.i2c.fifo: false")
                }
                try f.enableFIFO(dataReadyInterrupt: dataReady != nil, watermarkFrames: fifo?.watermark ?? 1)
                if stash.count < f.fifoCapacityFrames {
                    stash.deallocate()
                    stash = .allocate(capacity: f.fifoCapacityFrames)
                    stash.initialize(repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []))
                }
                fifoDriver = f
                timestamper = FIFOTimestamper(nominalPeriodNanos: 1e9 / config.rate)
            }
            if let dataReady { line = try DataReadyLine(dataReady) }
            chipConfiguration = config
            periodNanos = UInt64((1e9 / config.rate).rounded())
            gaps = EdgeGapDetector(periodNanos: periodNanos)
            nextTick = MonotonicClock.nowNanos() + periodNanos
            sequence = 0
            missedCount.store(0, ordering: .relaxed)
            stashIndex = 0
            stashCount = 0
            pendingEdges = 0
            nextIsDiscontinuity = false
            if let fifo { nextTick = MonotonicClock.nowNanos() + periodNanos * UInt64(fifo.watermark) }
            lastFIFOWakeNanos = MonotonicClock.nowNanos()
            i2c = bus
            self.driver = driver
            motionChip = (driver as? any MotionInterruptChip).flatMap { $0.chipEvents.isEmpty ? nil : $0 }
            let engines = motionChip.map { Self.engineNames($0.chipEvents) } ?? "none"
            let timing: SampleTiming = fifo != nil ? .fifoBurst : (line == nil ? .timer : .dataReadyInterrupt)
            log.info("started", ["device": capabilities.name, "mode": bus.transferMode.rawValue,
                                 "rate": "\(config.rate)", "accel_range_g": "\(config.accelRangeG)",
                                 "gyro_range_dps": "\(config.gyroRangeDPS)", "timing": timing.rawValue,
                                 "fifo": fifo.map { "on, \($0.watermark) samples per burst" } ?? "off",
                                 "data_ready": line.map { "\($0.chipName) [\($0.chipLabel)] line \($0.offset)" } ?? "none",
                                 "chip_engines": engines])
            return SourceConfiguration(rate: config.rate, timing: timing)
        } catch {
            driver.shutdown()
            line?.close()
            line = nil
            fifoDriver = nil
            throw error
        }
    }

    public func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard let driver, buffer.count > 0 else {
            throw SensorError(.io, subject: capabilities.name, detail: "read before start (or after stop)")
        }
        if let fifoDriver, let fifo { return try readFIFO(fifoDriver, watermark: fifo.watermark, into: buffer, timeout: timeout) }
        var sample = IMUSample(timestampNanos: 0, sequence: 0, contents: .inertial)
        if let line {
            let edges = try line.waitForEdges(timeout: timeout)
            guard edges.count > 0 else { return .timeout }
            let lost = gaps.register(count: edges.count, firstNanos: edges.firstNanos, lastNanos: edges.lastNanos)
            // The interrupt source first (MPU-6050: the burst read below would clear INT_STATUS).
            let chipEvents = try motionChip?.readChipEvents() ?? IMUSample.Flags(rawValue: 0)
            try driver.read(into: &sample)
            sample.timestampNanos = edges.lastNanos
            sample.flags = lost > 0 ? [.hardwareTimestamp, .discontinuity] : .hardwareTimestamp
            sample.flags.formUnion(chipEvents)
            if lost > 0 { missedCount.add(lost, ordering: .relaxed) }
            sequence &+= lost
        } else {
            guard TickSleeper.sleep(untilTick: nextTick, timeout: timeout) else { return .timeout }
            // Overran whole periods: they are skipped and count as lost.
            let lost = TickSleeper.advance(&nextTick, period: periodNanos, woke: MonotonicClock.nowNanos())
            if lost > 0 {
                missedCount.add(lost, ordering: .relaxed)
                sequence &+= lost
            }
            try driver.read(into: &sample)
            sample.timestampNanos = MonotonicClock.nowNanos()
            sample.flags = lost > 0 ? .discontinuity : []
        }
        sample.sequence = sequence
        sequence &+= 1
        buffer[0] = sample
        return .samples(1)
    }

    /// The `started` log's `chip_engines`: the engines programmed, by their `events.chip_engines` names.
    static func engineNames(_ f: IMUSample.Flags) -> String {
        var names: [String] = []
        if f.contains(.chipMotion) { names.append("motion") }
        if f.contains(.chipFreeFall) { names.append("free_fall") }
        if f.contains(.chipTap) || f.contains(.chipDoubleTap) { names.append("tap") }
        if f.contains(.chipOrientation) { names.append("orientation") }
        return names.isEmpty ? "none" : names.joined(separator: ", ")
    }

    // MARK: FIFO mode

    private func readFIFO(_ f: any FIFOChipDriver, watermark: Int, into buffer: UnsafeMutableBufferPointer<IMUSample>,
                          timeout: Duration) throws -> ReadResult {
        if stashIndex < stashCount { return handOut(into: buffer) }
        var wakeNanos: UInt64
        var wake: FIFOTimestamper.Wake
        let watermarkInterrupt = f.fifoInterrupt == .watermark
        if let line {
            // Wake after `watermark` data-ready edges, or on the watermark interrupt's edge; the
            // newest edge times the frame that raised it.
            let edges = try line.waitForEdges(timeout: timeout)
            if edges.count == 0 {
                // A watermark level already high when the line was opened, or an edge that was
                // lost, would never rise again: after three bursts' time without an edge, poll.
                let now = MonotonicClock.nowNanos()
                guard watermarkInterrupt, now &- lastFIFOWakeNanos > 3 &* periodNanos &* UInt64(watermark) else { return .timeout }
                wakeNanos = now
                wake = .timer
            } else {
                pendingEdges += watermarkInterrupt ? watermark : edges.count
                lastEdgeNanos = edges.lastNanos
                guard pendingEdges >= watermark else { return .timeout }
                wakeNanos = lastEdgeNanos
                wake = .dataReadyEdge
            }
            lastFIFOWakeNanos = MonotonicClock.nowNanos()
        } else {
            // Wake on a timer once per `watermark` sample periods.
            guard TickSleeper.sleep(untilTick: nextTick, timeout: timeout) else { return .timeout }
            wakeNanos = MonotonicClock.nowNanos()
            let burst = periodNanos &* UInt64(watermark)
            nextTick = max(nextTick &+ burst, wakeNanos &+ burst / 2)    // late: the FIFO kept the samples
            wake = .timer
        }
        let status = try f.fifoStatus()
        if status.overflowed {
            // The FIFO filled up (the reader stalled): its contents no longer start on a frame
            // boundary. Reset it, count the overflow and skip the lost samples in `sequence`.
            try f.resetFIFO()
            overflowCount.add(1, ordering: .relaxed)
            let lost = timestamper.lastNewestNanos.map { last in
                wakeNanos > last ? UInt64((Double(wakeNanos - last) / timestamper.periodNanos).rounded()) : 0
            } ?? UInt64(status.frames)
            missedCount.add(lost, ordering: .relaxed)
            sequence &+= lost
            timestamper.restart()
            nextIsDiscontinuity = true
            pendingEdges = 0
            return .timeout
        }
        var n = status.frames
        if line != nil, watermarkInterrupt {
            // The level rose when the FIFO reached `watermark` frames: that frame is the edge's. Read
            // exactly those, so what stays is below the watermark and the next frame to reach it
            // raises a new edge. Far more (the reader lagged, the level never fell), or polled after
            // a silence: take all, timed as if woken by a timer now, which lets the level fall and
            // re-arms the edge.
            if wake == .timer || n >= 2 * watermark {
                if wake != .timer { wakeNanos = MonotonicClock.nowNanos() }
                wake = .timer
            } else if n >= watermark {
                n = watermark
            } else {
                wake = .timer                       // an edge without a full watermark: not its frame
            }
            pendingEdges = 0
        } else if line != nil {
            if n > pendingEdges {
                if n - pendingEdges > watermark {
                    // More frames than edges by far: edges were lost (the kernel's event queue was
                    // full). Take everything, timed as if woken by a timer now.
                    wakeNanos = MonotonicClock.nowNanos()
                    wake = .timer
                } else {
                    n = pendingEdges            // frames newer than the last edge wait for their own edges
                }
            }
            pendingEdges = 0
        }
        n = min(n, stash.count)
        guard n > 0 else { return .timeout }
        try f.readFIFO(frames: n, into: stash)
        let (first, spacing) = timestamper.stamp(frames: n, wakeNanos: wakeNanos, wake: wake)
        // Only frames timed by a data-ready edge carry the hardware-timestamp flag; a poll after
        // silence or a take-all after lost edges is timed by the clock when read.
        let flags: IMUSample.Flags = line != nil && wake == .dataReadyEdge ? .hardwareTimestamp : []
        for i in 0..<n {
            stash[i].timestampNanos = first &+ UInt64((Double(i) * spacing).rounded())
            stash[i].sequence = sequence
            stash[i].flags = flags
            sequence &+= 1
        }
        if nextIsDiscontinuity { stash[0].flags.insert(.discontinuity); nextIsDiscontinuity = false }
        stashIndex = 0
        stashCount = n
        return handOut(into: buffer)
    }

    /// Copies stamped FIFO frames to the caller, as many as fit; the rest go out on the next call.
    private func handOut(into buffer: UnsafeMutableBufferPointer<IMUSample>) -> ReadResult {
        let n = min(buffer.count, stashCount - stashIndex)
        for i in 0..<n { buffer[i] = stash[stashIndex + i] }
        stashIndex += n
        return .samples(n)
    }

    public func stop() {
        driver?.shutdown()
        driver = nil
        motionChip = nil
        fifoDriver = nil
        stashIndex = 0
        stashCount = 0
        line?.close()
        line = nil
        i2c?.close()
        i2c = nil
    }
}
