import MotionCore

/// How a source times its samples; published in `meta` so consumers know what to trust.
public enum SampleTiming: String, Sendable, Hashable {
    /// Each sample carries the kernel timestamp of the sensor's data-ready GPIO edge.
    case dataReadyInterrupt = "data-ready-interrupt"
    /// Each sample carries the IIO buffer's `in_timestamp` (kernel, `CLOCK_MONOTONIC`).
    case bufferTimestamp = "iio-buffer-timestamp"
    /// Samples are paced by a timer and stamped when read (no interrupt wired).
    case timer
    /// Samples come from the chip's FIFO in bursts, stamped backwards from the wake-up (a data-ready
    /// edge or a timer) by the measured sample period (`FIFOTimestamper`).
    case fifoBurst = "fifo-burst"
    /// Samples come from a recording and carry its times, re-based onto the monotonic clock.
    case recorded
    /// Samples are computed by the simulator on a fixed time grid.
    case simulated
}

/// What a source can deliver, known after it is opened.
public struct SourceCapabilities: Sendable, Hashable {
    /// Human-readable identity (`simulator:walking`, `iio:bmi160`, `i2c-1:0x68:mpu6050`, …).
    public var name: String
    /// Which sensors are present.
    public var sensors: IMUSample.Contents
    /// Output data rates the hardware supports, Hz, ascending. Empty means "any rate up to
    /// `maximumRate`" (simulator, timer-paced sources).
    public var supportedRates: [Double]
    /// Highest output data rate, Hz.
    public var maximumRate: Double

    public init(name: String, sensors: IMUSample.Contents, supportedRates: [Double] = [], maximumRate: Double) {
        self.name = name
        self.sensors = sensors
        self.supportedRates = supportedRates
        self.maximumRate = maximumRate
    }

    /// The rate the hardware will actually run for a requested rate: capped at `maximumRate`,
    /// and rounded up to the nearest supported rate (never below what was asked, when possible).
    public func effectiveRate(forRequested requested: Double) -> Double {
        let capped = min(requested, maximumRate)
        guard !supportedRates.isEmpty else { return capped }
        return supportedRates.first(where: { $0 >= capped - 1e-9 }) ?? supportedRates.last!
    }
}

/// How a running source is configured, as reported back by `start`.
public struct SourceConfiguration: Sendable, Hashable {
    /// Output data rate the device actually runs at, Hz.
    public var rate: Double
    /// How samples are timed.
    public var timing: SampleTiming
    /// Whether the consumer must not drop samples from this source (replays): the acquisition
    /// thread then waits for ring space instead of counting a drop.
    public var lossless: Bool

    public init(rate: Double, timing: SampleTiming, lossless: Bool = false) {
        self.rate = rate
        self.timing = timing
        self.lossless = lossless
    }
}

/// The outcome of one `IMUSource.read`.
public enum ReadResult: Sendable, Equatable {
    /// `n` samples were written to the front of the buffer.
    case samples(Int)
    /// Nothing arrived before the timeout; call again.
    case timeout
    /// The source has no more samples (end of a recording).
    case endOfStream
}

/// A producer of `IMUSample`s: the simulator, a replayed recording, an IIO device, or a chip on
/// an I2C bus.
///
/// Life cycle: `capabilities` → `start(requestedRate:)` → `read(into:timeout:)` repeatedly from
/// **one** acquisition thread → `stop()`. `read` must not allocate, lock or log in steady state.
///
/// `Sendable`, because a source is made on one thread and handed to the pipeline's acquisition
/// thread (and shared by managers through `MotionService.shared(for:)`). The contract every
/// conformer's `@unchecked Sendable` proof rests on: `start`, `read` and `stop` are called by one
/// thread at a time, each hand-over (the pipeline's thread start and join) ordering them; so
/// mutable state touched only by those three needs no lock. `capabilities` may be read from any
/// thread at any time: it must not depend on that state (a `let`, or computed from `let`s). Anything
/// else read from other threads is a `let`, an atomic or under a lock.
public protocol IMUSource: AnyObject, Sendable {
    /// What the source can deliver.
    var capabilities: SourceCapabilities { get }

    /// Opens and configures the device for (about) `requestedRate` Hz and reports what it runs.
    func start(requestedRate: Double) throws -> SourceConfiguration

    /// Waits up to `timeout` for the next samples and writes them into `buffer`.
    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult

    /// Stops acquisition and releases the device. Idempotent.
    func stop()
}
