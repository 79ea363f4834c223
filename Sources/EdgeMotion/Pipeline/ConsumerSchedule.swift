import MotionCore

/// What one runtime consumer of the pipeline wants: its own rate and batching per stream, and the
/// reference frame of its device-motion states. Each consumer is decimated and batched
/// independently of the others (a `MotionManager` at 50 Hz and another at 10 Hz share one
/// pipeline and each get their own rate).
public struct ConsumerSchedule: Sendable, Hashable {
    public var accelerometer: StreamSchedule
    public var gyroscope: StreamSchedule
    public var magnetometer: StreamSchedule
    /// Device-motion states (fusion output).
    public var motion: StreamSchedule
    /// Frame of `DeviceMotion.attitude` for this consumer; `nil` means the pipeline's.
    public var referenceFrame: AttitudeReferenceFrame?

    public init(
        accelerometer: StreamSchedule = .disabled, gyroscope: StreamSchedule = .disabled,
        magnetometer: StreamSchedule = .disabled, motion: StreamSchedule = .disabled,
        referenceFrame: AttitudeReferenceFrame? = nil
    ) {
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.magnetometer = magnetometer
        self.motion = motion
        self.referenceFrame = referenceFrame
    }

    /// A consumer of one raw stream only.
    public static func only(_ stream: SensorStream, _ schedule: StreamSchedule) -> ConsumerSchedule {
        var s = ConsumerSchedule()
        switch stream {
        case .accelerometer: s.accelerometer = schedule
        case .gyroscope: s.gyroscope = schedule
        case .magnetometer: s.magnetometer = schedule
        }
        return s
    }

    /// A consumer of device motion only, in `frame`.
    public static func motion(_ schedule: StreamSchedule, frame: AttitudeReferenceFrame?) -> ConsumerSchedule {
        ConsumerSchedule(motion: schedule, referenceFrame: frame)
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

/// Identifies a consumer added to a `MotionPipeline` at runtime.
public struct PipelineConsumerID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "consumer#\(rawValue)" }
}
