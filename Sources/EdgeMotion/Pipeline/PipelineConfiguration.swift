import MotionCore

/// Which attitude filter the pipeline runs.
public enum AttitudeFilterKind: String, Sendable, CaseIterable, Hashable {
    /// `RobustAttitudeFilter`: the most accurate filter (inclination from inertial-frame low-passed
    /// acceleration, separate heading, gyro bias, rest and magnetic-disturbance handling).
    case `default`
    /// The Mahony-class complementary filter (cheapest, least accurate).
    case complementary
}

/// Which thread runs processing: fusion, decimation, batching and the outputs (publishing,
/// recording, runtime consumers).
public enum ProcessingThread: String, Sendable, CaseIterable, Hashable {
    /// Its own thread, fed through the ring: acquisition never waits for processing, publishing
    /// or a slow disk, and the ring rides out stalls of `ringCapacity` samples.
    case separate
    /// The acquisition thread, right after each read: one thread wake-up per burst instead of
    /// two (less CPU, less latency), but a stalled output delays the next read — fine with a FIFO
    /// or when no output writes to a slow disk.
    case acquisition
}

/// Everything the pipeline needs to know besides its source and outputs.
public struct PipelineConfiguration: Sendable, Hashable {
    /// Output data rate asked of the source, Hz. The source may run a different one; the
    /// effective rate is reported after `start`.
    public var requestedRate: Double
    public var accelerometer: StreamSchedule
    public var gyroscope: StreamSchedule
    public var magnetometer: StreamSchedule
    /// Device-motion states (fusion output).
    public var motion: StreamSchedule
    public var filter: AttitudeFilterKind
    public var referenceFrame: AttitudeReferenceFrame
    /// Magnetic declination in radians, east positive; `nil` when no location is known.
    public var declination: Double?
    /// Calibration applied to every raw reading before fusion (from the calibration file), in
    /// **chip axes**: the processor expresses it in the board axes of `mount` (and again after
    /// every remount), so learning or changing the mount never invalidates it.
    public var calibration: SensorCalibration = .none
    /// Chip-to-board rotations applied to every raw sample first (raw streams, fusion, events all
    /// see board axes); `MotionPipeline.setMount` changes it while running.
    public var mount: IMUMount = .identity
    /// Whether the filter keeps learning the gyro bias online (false: frozen, e.g. after a
    /// calibration on a device that is never still).
    public var learnsGyroBias = true
    /// Slots in the acquisition → processing ring. At 1 kHz, 4096 slots ride out 4 s of stall.
    public var ringCapacity: Int
    /// Samples one `IMUSource.read` may return (FIFO burst size).
    public var readBatchSize: Int
    /// Longest wait between attempts to re-open a failed source, seconds (the first waits 0.5 s,
    /// each failed attempt doubles it up to this cap).
    public var sourceRetryMaximumSeconds = 10.0
    /// Which thread runs processing and the outputs.
    public var processingThread: ProcessingThread = .separate
    /// Added to every sample's sequence number as it is read: a pipeline that replaces another
    /// (a new source after a reload) continues its numbering from the old one's `nextSequence`,
    /// so a gap in `first_sample` still means samples were lost.
    public var sequenceOffset: UInt64 = 0

    public init(
        requestedRate: Double,
        accelerometer: StreamSchedule = StreamSchedule(rate: 100, publishRate: 10),
        gyroscope: StreamSchedule = StreamSchedule(rate: 100, publishRate: 10),
        magnetometer: StreamSchedule = StreamSchedule(rate: 100, publishRate: 10),
        motion: StreamSchedule = StreamSchedule(rate: 50, publishRate: 10),
        filter: AttitudeFilterKind = .default,
        referenceFrame: AttitudeReferenceFrame = .xArbitraryCorrectedZVertical,
        declination: Double? = nil,
        ringCapacity: Int = 4096,
        readBatchSize: Int = 64
    ) {
        self.requestedRate = requestedRate
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.magnetometer = magnetometer
        self.motion = motion
        self.filter = filter
        self.referenceFrame = referenceFrame
        self.declination = declination
        self.ringCapacity = ringCapacity
        self.readBatchSize = readBatchSize
    }

    /// The schedule of a raw sensor stream.
    public func schedule(for stream: SensorStream) -> StreamSchedule {
        switch stream {
        case .accelerometer: accelerometer
        case .gyroscope: gyroscope
        case .magnetometer: magnetometer
        }
    }
}
