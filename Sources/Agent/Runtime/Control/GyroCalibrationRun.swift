import EdgeMotion
import MotionCore
import Synchronization

/// One `cmd/calibrate` `gyro` run: a temporary consumer of the raw gyroscope stream (rad/s,
/// board axes of `mount`, before calibration) that averages `duration` seconds of samples with
/// `GyroscopeCalibrator` (which refuses a run during which the device moved).
///
/// The runner adds it to the service, polls `isComplete` from its main loop, then removes it
/// and calls `result()`. Samples arrive in batches on the processing thread; the lock is taken
/// once per batch, and only while a calibration runs.
final class GyroCalibrationRun: PipelineOutput {
    let command: CalibrationCommand
    /// The chip-to-board rotations in force when the run started: the samples are in its board
    /// axes, and `Rᵀ` turns the measured bias into the chip axes the calibration file keeps.
    let mount: IMUMount
    private let wanted: Int
    private let state = Mutex<(calibrator: GyroscopeCalibrator, count: Int)>((GyroscopeCalibrator(), 0))

    /// `sourceRate` in Hz: `duration × sourceRate` samples are averaged.
    init(command: CalibrationCommand, sourceRate: Double, mount: IMUMount = .identity) {
        self.command = command
        self.mount = mount
        wanted = max(1, Int((command.duration * sourceRate).rounded()))
    }

    /// The consumer schedule: the gyroscope stream at the source rate, in batches of ~0.1 s.
    static var schedule: ConsumerSchedule { .only(.gyroscope, StreamSchedule(rate: 0, publishRate: 10)) }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        guard stream == .gyroscope else { return }
        state.withLock { s in
            for i in samples.indices where s.count < wanted {
                let sample = samples[i]
                guard sample.contents.contains(.gyroscope) else { continue }
                // Without an accelerometer in the sample only the rate spread guards against motion.
                let a = sample.contents.contains(.accelerometer) ? sample.specificForce : .zero
                s.calibrator.add(gyroscope: sample.rotationRate, accelerometer: a)
                s.count += 1
            }
        }
    }

    /// Whether the wanted number of samples has been averaged.
    var isComplete: Bool { state.withLock { $0.count >= wanted } }

    /// The bias (rad/s) or why it was refused (too few samples, the device moved).
    func result() -> Result<GyroscopeCalibrator.Result, GyroscopeCalibrator.Failure> {
        let calibrator = state.withLock { $0.calibrator }
        do throws(GyroscopeCalibrator.Failure) { return .success(try calibrator.fit()) } catch { return .failure(error) }
    }
}

extension GyroCalibrationRun {
    /// Writes `bias` (rad/s) into the calibration file at `path` for `sensor`, keeping the
    /// accelerometer and magnetometer parts (`CalibrationFileKeeper`).
    static func keep(bias: Vector3, path: String, sensor: String) throws(FileError) {
        try CalibrationFileKeeper.keep(path: path, sensor: sensor) { $0.gyroBias = bias }
    }
}
