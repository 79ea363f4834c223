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
public final class I2CIMUSource: IMUSource, @unchecked Sendable {
    public let bus: Int
    public let address: UInt16
    public let chip: IMUChipModel
    public let settings: IMUChipSettings
    public let dataReady: DataReadyLine.Configuration?
    private let devicePath: String?
    private let log = Logger(label: "i2c")

    private var i2c: I2CBus?
    private var driver: (any IMUChipDriver)?
    private var line: DataReadyLine?
    private var gaps = EdgeGapDetector(periodNanos: 1)
    private var periodNanos: UInt64 = 0
    private var nextTick: UInt64 = 0
    private var sequence: UInt64 = 0
    private let missedCount = Atomic<UInt64>(0)

    /// The effective chip configuration after `start`.
    public private(set) var chipConfiguration: IMUChipConfiguration?

    /// - Parameters:
    ///   - bus: `N` of `/dev/i2c-N`; `devicePath` overrides the node path.
    ///   - address: 7-bit address (e.g. 0x68).
    ///   - accelRangeG, gyroRangeDPS, lowpassHz: requested ranges and filter (rounded to what the chip has).
    ///   - dataReady: the chip's INT pin on a GPIO line, or `nil` for timer pacing.
    public init(bus: Int, address: UInt16, chip: IMUChipModel, accelRangeG: Double = 4, gyroRangeDPS: Double = 500,
                lowpassHz: Double? = nil, dataReady: DataReadyLine.Configuration? = nil, devicePath: String? = nil) {
        self.bus = bus
        self.address = address
        self.chip = chip
        self.settings = IMUChipSettings(rate: 100, accelRangeG: accelRangeG, gyroRangeDPS: gyroRangeDPS,
                                        lowpassHz: lowpassHz, dataReadyInterrupt: dataReady != nil)
        self.dataReady = dataReady
        self.devicePath = devicePath
    }

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
        let bus = try I2CBus(number: self.bus, path: devicePath)
        let driver = chip.makeDriver(on: I2CDevice(bus: bus, address: address))
        do {
            try driver.probe()
            var s = settings
            s.rate = requestedRate
            let config = try driver.configure(s)
            if let dataReady { line = try DataReadyLine(dataReady) }
            chipConfiguration = config
            periodNanos = UInt64((1e9 / config.rate).rounded())
            gaps = EdgeGapDetector(periodNanos: periodNanos)
            nextTick = MonotonicClock.nowNanos() + periodNanos
            sequence = 0
            missedCount.store(0, ordering: .relaxed)
            i2c = bus
            self.driver = driver
            let timing: SampleTiming = line == nil ? .timer : .dataReadyInterrupt
            log.info("started", ["device": capabilities.name, "mode": bus.transferMode.rawValue,
                                 "rate": "\(config.rate)", "accel_range_g": "\(config.accelRangeG)",
                                 "gyro_range_dps": "\(config.gyroRangeDPS)", "timing": timing.rawValue,
                                 "data_ready": line.map { "\($0.chipName) [\($0.chipLabel)] line \($0.offset)" } ?? "none"])
            return SourceConfiguration(rate: config.rate, timing: timing)
        } catch {
            driver.shutdown()
            line?.close()
            line = nil
            throw error
        }
    }

    public func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard let driver, buffer.count > 0 else {
            throw SensorError(.io, subject: capabilities.name, detail: "read before start (or after stop)")
        }
        var sample = IMUSample(timestampNanos: 0, sequence: 0, contents: .inertial)
        if let line {
            let edges = try line.waitForEdges(timeout: timeout)
            guard edges.count > 0 else { return .timeout }
            let lost = gaps.register(count: edges.count, firstNanos: edges.firstNanos, lastNanos: edges.lastNanos)
            try driver.read(into: &sample)
            sample.timestampNanos = edges.lastNanos
            sample.flags = lost > 0 ? [.hardwareTimestamp, .discontinuity] : .hardwareTimestamp
            if lost > 0 { missedCount.add(lost, ordering: .relaxed) }
            sequence &+= lost
        } else {
            let now = MonotonicClock.nowNanos()
            let (s, a) = timeout.components
            let timeoutNanos = UInt64(max(0, s)) &* 1_000_000_000 &+ UInt64(max(0, a) / 1_000_000_000)
            if nextTick > now &+ timeoutNanos {
                sleepUntil(now &+ timeoutNanos)
                return .timeout
            }
            sleepUntil(nextTick)
            var lost: UInt64 = 0
            let woke = MonotonicClock.nowNanos()
            if woke > nextTick &+ periodNanos {                   // overran whole periods: skip them
                lost = (woke - nextTick) / periodNanos
                nextTick &+= lost &* periodNanos
                missedCount.add(lost, ordering: .relaxed)
                sequence &+= lost
            }
            nextTick &+= periodNanos
            try driver.read(into: &sample)
            sample.timestampNanos = MonotonicClock.nowNanos()
            sample.flags = lost > 0 ? .discontinuity : []
        }
        sample.sequence = sequence
        sequence &+= 1
        buffer[0] = sample
        return .samples(1)
    }

    private func sleepUntil(_ nanos: UInt64) {
        var ts = timespec(tv_sec: Int(nanos / 1_000_000_000), tv_nsec: Int(nanos % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    public func stop() {
        driver?.shutdown()
        driver = nil
        line?.close()
        line = nil
        i2c?.close()
        i2c = nil
    }
}
