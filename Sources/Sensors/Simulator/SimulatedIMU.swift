#if canImport(Glibc)
import Glibc
#endif
import Platform
import MotionCore

/// A built-in IMU that produces physically consistent samples from a scripted motion with known
/// ground truth (`truth(at:)`), for development and tests without hardware.
///
/// Physics (ENU earth frame, see `SimulatedEarth`): the accelerometer reads the specific force
/// `q* ⊗ (a_lin + g·ẑ) ⊗ q`, the gyroscope the body-frame angular velocity derived from the
/// scripted attitude (`ω = 2·q*⊗q̇`, central difference) plus a constant bias, the magnetometer
/// `q* ⊗ B ⊗ q`; all three plus white noise from a seeded generator.
///
/// Timing: sample `i` is stamped `startNanos + i · period` on `CLOCK_MONOTONIC`. In real time,
/// `read` sleeps (`clock_nanosleep`, absolute) until the current burst of `burstSize` samples is
/// due (the FIFO watermark, bursts ending on the grid at multiples of `burstSize`; 1 = every
/// sample) and then returns every sample that is due, each with its own
/// grid timestamp (a reader late by more than `fifoDepth` samples loses the oldest, as with a
/// sensor FIFO overrun); otherwise it fills the whole buffer at once. `read` does not allocate
/// and reads the clock twice per burst, not per sample.
///
/// `start`, `read` and `stop` are called from one acquisition thread; `truth(at:)` is a pure
/// function of the scenario and can be called from anywhere.
public final class SimulatedIMU: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: `options`, `capabilities` and `contents` are immutable `let`s (so is
    // `truth(at:)`, a function of `options`); every `var` (rate, start, the sample index, the
    // random generator, the noise levels) is touched only by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract).
    public let options: SimulatorOptions
    public let capabilities: SourceCapabilities

    /// The scripted motion (exposed so tests and tools can compare against its truth).
    public var scenario: SimulationScenario { options.scenario }

    /// Output rate in Hz after `start` (0 before).
    public private(set) var rate: Double = 0
    /// `CLOCK_MONOTONIC` time of sample 0, nanoseconds (set by `start`).
    public private(set) var startNanos: UInt64 = 0

    private var periodNanos: Double = 0
    private var nextIndex: UInt64 = 0
    private var running = false
    private var pendingDiscontinuity = false
    private var random: SimulatorRandom
    private var gyroSigma = 0.0
    private var accelSigma = 0.0
    private var magSigma = 0.0
    private let contents: IMUSample.Contents

    /// Step of the central difference that turns the attitude into angular velocity, s.
    static let differentiationStep = 1e-5

    public init(options: SimulatorOptions) {
        self.options = options
        var sensors: IMUSample.Contents = .accelerometer
        if options.includeGyroscope { sensors.insert(.gyroscope) }
        if options.includeMagnetometer { sensors.insert(.magnetometer) }
        contents = sensors
        capabilities = SourceCapabilities(
            name: "simulator:\(options.scenario.name)", sensors: sensors, supportedRates: [],
            maximumRate: options.maximumRate)
        random = SimulatorRandom(seed: options.seed)
    }

    public func start(requestedRate: Double) throws -> SourceConfiguration {
        guard requestedRate.isFinite, requestedRate > 0 else {
            throw SensorError(.unsupported, subject: capabilities.name,
                              detail: "requested rate \(requestedRate) Hz is not a positive number; ask for e.g. 100 Hz")
        }
        rate = capabilities.effectiveRate(forRequested: requestedRate)
        periodNanos = 1e9 / rate
        random = SimulatorRandom(seed: options.seed)
        if options.noise {
            let root = rate.squareRoot()
            gyroSigma = options.noiseModel.gyroscopeDensity * root
            accelSigma = options.noiseModel.accelerometerDensity * root
            magSigma = options.noiseModel.magnetometerSigma
        } else {
            gyroSigma = 0
            accelSigma = 0
            magSigma = 0
        }
        nextIndex = 0
        pendingDiscontinuity = false
        startNanos = MonotonicClock.nowNanos()
        running = true
        return SourceConfiguration(rate: rate, timing: .simulated, lossless: !options.realTime)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard running else {
            if periodNanos == 0 {
                throw SensorError(.unsupported, subject: capabilities.name,
                                  detail: "read before start; call start(requestedRate:) first")
            }
            return .endOfStream
        }
        guard buffer.count > 0 else { return .samples(0) }
        var count = buffer.count
        if options.realTime {
            let now = MonotonicClock.nowNanos()
            // The watermark: wait for the last sample of the burst (never more than the buffer holds).
            // Bursts end on the sample grid (samples burst−1, 2·burst−1, …): a late read that took
            // more than a burst does not shift every later burst, nor the batches built on them.
            let burst = UInt64(Swift.min(options.burstSize, buffer.count))
            let last = (nextIndex / burst &+ 1) &* burst &- 1
            let next = sampleTimeNanos(last)
            if next > now {
                let deadline = now &+ timeout.nonNegativeNanoseconds
                if next > deadline {
                    MonotonicClock.sleep(untilNanos: deadline)
                    return .timeout
                }
                MonotonicClock.sleep(untilNanos: next)
            }
            let reached = Swift.max(MonotonicClock.nowNanos(), next)
            let lastDue = UInt64((Double(reached - startNanos) / periodNanos).rounded(.down))
            // At least the samples we waited for, even if rounding put the last a hair in the future.
            var due = Swift.max(lastDue >= nextIndex ? Int(lastDue - nextIndex + 1) : 0, Int(last - nextIndex + 1))
            if due > options.fifoDepth {
                // The reader is late beyond the FIFO: the oldest samples are lost.
                nextIndex = lastDue + 1 - UInt64(options.fifoDepth)
                due = options.fifoDepth
                pendingDiscontinuity = true
            }
            count = Swift.min(count, due)
        }
        // The noise generator, the index and the burst's settings live in locals for the burst: a
        // class property read or mutated per sample costs a dynamic exclusivity check
        // (`swift_beginAccess`) each time.
        var rng = random
        var index = nextIndex
        let burst = BurstSettings(rate: rate, startNanos: startNanos, periodNanos: periodNanos,
                                  accelSigma: accelSigma, gyroSigma: gyroSigma, magSigma: magSigma)
        // A pending discontinuity (FIFO overrun) marks the first sample produced after it.
        var flags: IMUSample.Flags = pendingDiscontinuity && count > 0 ? .discontinuity : []
        if count > 0 { pendingDiscontinuity = false }
        for k in 0..<count {
            buffer[k] = sample(index: index, burst: burst, flags: flags, random: &rng)
            flags = []
            index += 1
        }
        random = rng
        nextIndex = index
        return .samples(count)
    }

    public func stop() {
        running = false
    }

    // MARK: Samples and truth

    /// `CLOCK_MONOTONIC` time of sample `index`, ns.
    @inline(__always)
    private func sampleTimeNanos(_ index: UInt64) -> UInt64 {
        Self.sampleTimeNanos(index, startNanos: startNanos, periodNanos: periodNanos)
    }

    /// `startNanos + index · periodNanos`, rounded to the nearest ns.
    @inline(__always)
    private static func sampleTimeNanos(_ index: UInt64, startNanos: UInt64, periodNanos: Double) -> UInt64 {
        startNanos &+ UInt64((Double(index) * periodNanos).rounded())
    }

    /// Simulation time of sample `index`, seconds since the start.
    public func time(ofSampleIndex index: UInt64) -> Double { Self.time(ofSampleIndex: index, rate: rate) }

    /// `index / rate`, seconds.
    @inline(__always)
    private static func time(ofSampleIndex index: UInt64, rate: Double) -> Double { Double(index) / rate }

    /// The truth for a sample this source produced (by its sequence number).
    public func truth(for sample: IMUSample) -> SimulatedTruth { truth(at: time(ofSampleIndex: sample.sequence)) }

    /// The mutable state `sample` reads, copied once per `read` (values as in the properties of
    /// the same names: Hz, ns, and the noise sigmas in the sensors' units).
    private struct BurstSettings {
        var rate: Double
        var startNanos: UInt64
        var periodNanos: Double
        var accelSigma: Double
        var gyroSigma: Double
        var magSigma: Double
    }

    /// The sample with sequence number `index` (advances the noise stream). Time and timestamp
    /// are `time(ofSampleIndex:)` and `sampleTimeNanos(_:)` worked from `burst`'s copies.
    private func sample(index: UInt64, burst: BurstSettings, flags: IMUSample.Flags,
                        random: inout SimulatorRandom) -> IMUSample {
        let truth = truth(at: Self.time(ofSampleIndex: index, rate: burst.rate))
        var f = truth.specificForce
        var w = Vector3.zero
        var m = Vector3.zero
        if burst.accelSigma > 0 { f += random.normalVector(sigma: burst.accelSigma) }
        if contents.contains(.gyroscope) {
            w = truth.angularVelocity + options.gyroBias
            if burst.gyroSigma > 0 { w += random.normalVector(sigma: burst.gyroSigma) }
        }
        if contents.contains(.magnetometer) {
            m = truth.magneticField
            if burst.magSigma > 0 { m += random.normalVector(sigma: burst.magSigma) }
        }
        return IMUSample(timestampNanos: Self.sampleTimeNanos(index, startNanos: burst.startNanos, periodNanos: burst.periodNanos), sequence: index, specificForce: f,
                         rotationRate: w, magneticField: m, contents: contents, flags: flags)
    }

    /// The exact state at `t` seconds since the start (sample `i` is at `i / rate`).
    public func truth(at t: Double) -> SimulatedTruth {
        Self.truth(of: options.scenario, earth: options.earth, at: t)
    }

    /// The exact state of `scenario` at `t` seconds, in `earth`.
    public static func truth(of scenario: SimulationScenario, earth: SimulatedEarth = .standard, at t: Double) -> SimulatedTruth {
        let k = scenario.kinematics(at: t)
        let h = differentiationStep
        var before = scenario.attitude(at: t - h)
        let after = scenario.attitude(at: t + h)
        // Same hemisphere, so the relative rotation is the short one.
        if before.w * after.w + before.x * after.x + before.y * after.y + before.z * after.z < 0 {
            before = Quaternion(w: -before.w, x: -before.x, y: -before.y, z: -before.z)
        }
        // Body-frame rate: q(t+h) = q(t−h) ⊗ exp(ω · 2h).
        let omega = (before.conjugate * after).rotationVector / (2 * h)
        return SimulatedTruth(
            time: t, attitude: k.attitude, angularVelocity: omega, linearAcceleration: k.linearAcceleration,
            specificForce: earth.specificForce(attitude: k.attitude, linearAcceleration: k.linearAcceleration),
            magneticField: earth.magneticField(attitude: k.attitude),
            activity: k.activity, steps: k.steps, segment: k.segment)
    }

}
