import EdgeMotion
import MotionCore
import Synchronization

/// The dashboard calibration page's `accel` or `mag` step: a temporary consumer of the raw
/// samples (before any calibration) that feeds the existing fitters' inputs while the user turns
/// the board. The pipeline hands over board axes (the mount applied); each sample is turned back
/// into chip axes with `mount` (the one in force when the step started: `v_chip = Rᵀ·v_board`),
/// because the calibration file keeps chip axes — what `edgemotion calibrate` does to a recording.
///
/// - `accel`: every accelerometer-stream sample (source rate; specific force m/s², rotation rate
///   rad/s) goes into an `AccelerometerCalibrator`, which finds the still periods and their faces.
/// - `mag`: magnetometer readings (µT) at `magnetometerRate` Hz into a buffer allocated once, at
///   most `maximumMagnetometerReadings` (4 min; later readings are not kept and counted).
///
/// Processing thread: one lock per batch, no allocation (the calibrator's arrays and the buffer
/// are uniquely owned here; readers get copies made on their own thread). The runner adds it to
/// the service when the step starts and removes it when the step is saved or cancelled.
/// `package`: edgemotion-bench dashboard --calibration measures it on the processing thread.
package final class CalibrationCapture: PipelineOutput {
    package enum Kind: String, Sendable { case accel, mag }

    static let magnetometerRate = 25.0
    static let maximumMagnetometerReadings = 6000

    private struct State {
        var accelerometer: AccelerometerCalibrator
        var readings: [Vector3]
        var readingCount = 0
        var readingsNotKept = 0
        var samples = 0
        var ended = false
    }

    let kind: Kind
    /// The chip-to-board rotations the samples arrive in.
    let mount: IMUMount
    private let toChip: Matrix3, magnetometerToChip: Matrix3
    private let state: Mutex<State>

    package init(kind: Kind, sourceRate: Double, mount: IMUMount = .identity) {
        self.kind = kind
        self.mount = mount
        toChip = mount.inertial.matrix.transposed
        magnetometerToChip = mount.magnetometer.matrix.transposed
        let period = 1 / max(sourceRate, 1e-3)
        let room = kind == .mag ? Self.maximumMagnetometerReadings : 0
        state = Mutex(State(accelerometer: AccelerometerCalibrator(samplePeriod: period),
                            readings: [Vector3](repeating: .zero, count: room)))
    }

    /// What the step consumes: the accelerometer stream at the source rate, or the magnetometer
    /// stream at `magnetometerRate`, in batches of ~0.1–0.2 s.
    package var schedule: ConsumerSchedule {
        switch kind {
        case .accel: .only(.accelerometer, StreamSchedule(rate: 0, publishRate: 10))
        case .mag: .only(.magnetometer, StreamSchedule(rate: Self.magnetometerRate, publishRate: 5))
        }
    }

    package func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        state.withLock { s in
            for i in samples.indices {
                let x = samples[i]
                switch kind {
                case .accel:
                    guard stream == .accelerometer, x.contents.contains(.inertial) else { continue }
                    s.accelerometer.add(gyroscope: toChip * x.rotationRate, accelerometer: toChip * x.specificForce, dt: interval)
                    s.samples += 1
                case .mag:
                    guard stream == .magnetometer, x.contents.contains(.magnetometer), x.magneticField.normSquared > 0 else { continue }
                    s.samples += 1
                    if s.readingCount < s.readings.count {
                        s.readings[s.readingCount] = magnetometerToChip * x.magneticField
                        s.readingCount += 1
                    } else {
                        s.readingsNotKept += 1
                    }
                }
            }
        }
    }

    package func pipeline(didEnd reason: PipelineEnd) { state.withLock { $0.ended = true } }

    /// Samples taken so far, and whether the pipeline they came from has stopped (restarted).
    package var progress: (samples: Int, ended: Bool) { state.withLock { ($0.samples, $0.ended) } }

    /// The six-face step so far, chip axes: faces with a long enough still period (bit i = face i of
    /// `AccelerometerCalibrator.faceNames`) — a past one, or the one under way once it has lasted
    /// `minimum` s (the fit closes it, so it counts already) — and the still period under way.
    var faces: (covered: UInt8, holding: (face: Int, seconds: Double)?, minimum: Double) {
        state.withLock { s in
            var covered: UInt8 = 0
            for i in 0..<6 where s.accelerometer.hasFace(i) { covered |= 1 << UInt8(i) }
            let holding = s.accelerometer.holding, minimum = s.accelerometer.minStillTime
            if let h = holding, h.seconds >= minimum { covered |= 1 << UInt8(h.face) }
            return (covered, holding, minimum)
        }
    }

    /// A copy of the six-face calibrator (to fit: `fit()` closes the still period under way).
    var accelerometer: AccelerometerCalibrator { state.withLock { $0.accelerometer } }

    /// The magnetometer readings kept so far, µT, chip axes (a copy), and how many were not kept.
    var magnetometerReadings: (readings: [Vector3], notKept: Int) {
        state.withLock { (Array($0.readings[0..<$0.readingCount]), $0.readingsNotKept) }
    }
}
