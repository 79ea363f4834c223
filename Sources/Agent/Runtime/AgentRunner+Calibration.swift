import EdgeMotion
import MotionCore
import Platform

/// The dashboard calibration page's side of the main loop: the flow, and the accel or mag step
/// collecting samples (a `CalibrationCapture` on the running service).
struct CalibrationPageState {
    var flow = CalibrationFlow()
    var capture: (capture: CalibrationCapture, service: MotionService, consumer: MotionConsumerID)?
    /// When the magnetometer readings were last fitted (monotonic ns): once a second.
    var lastMagFit: UInt64 = 0
    static let magFitIntervalNanos: UInt64 = 1_000_000_000
}

extension AgentRunner {
    // MARK: Calibration page (http.enabled; POST /api/calibration, GET /api/calibration)

    /// Carries out the page's posted commands, follows the step collecting samples and hands the
    /// flow's state to the dashboard. Main loop, every turn (a few small copies; the fits once a
    /// second) — never on the processing thread.
    func handleDashboardCalibration(now: UInt64) {
        guard let dashboard else { return }
        for command in dashboard.takeCalibrationRequests() { performCalibration(command) }
        calibrationPage.flow.mount = mountControl?.current ?? .identity
        followCalibrationStep(now: now)
        if let g = gyroCalibration, calibrationPage.flow.gyro.state == .running, now > g.startNanos {
            calibrationPage.flow.gyro.elapsedSeconds = Double(now - g.startNanos) * 1e-9
        }
        dashboard.setCalibrationStatus(calibrationPage.flow.json())
    }

    /// What the running pipeline applies, for the page (at each pipeline start).
    func noteCalibrationApplied(_ calibration: SensorCalibration, report r: PipelineStartReport) {
        calibrationPage.flow.applied = calibration
        calibrationPage.flow.fileState = calibrationState
        calibrationPage.flow.file = FusionSetup.calibrationPath(configuration)
        calibrationPage.flow.hasGyroscope = r.source.sensors.contains(.gyroscope)
        calibrationPage.flow.hasAccelerometer = r.source.sensors.contains(.accelerometer)
        calibrationPage.flow.hasMagnetometer = r.source.sensors.contains(.magnetometer)
    }

    private func performCalibration(_ command: CalibrationCommand) {
        switch command.action {
        case "gyro":
            if let problem = calibrationPage.flow.start(.gyro, gyroDuration: command.duration) {
                calibrationPage.flow.gyro.error = problem
            } else if let problem = startGyroCalibration(command) {   // the cmd/calibrate run
                calibrationPage.flow.gyroFinished(.failure(.init(description: problem)))
            }
        case "accel", "mag":
            let kind: CalibrationCapture.Kind = command.action == "accel" ? .accel : .mag
            let step: CalibrationFlow.Step = kind == .accel ? .accel : .mag
            if let problem = calibrationPage.flow.start(step) {
                setCalibrationError(step, problem)
                return
            }
            guard let service else {
                setCalibrationError(step, "the pipeline is not running")
                return
            }
            let capture = CalibrationCapture(kind: kind, sourceRate: report?.sourceConfiguration.rate ?? configuration.source.rate,
                                             mount: mountControl?.current ?? .identity)
            do {
                let id = try service.addConsumer(capture, schedule: capture.schedule)
                calibrationPage.capture = (capture, service, id)
                log.notice(kind == .accel ? "accelerometer calibration started: rest the board on each face"
                                          : "magnetometer calibration started: turn the board through every orientation")
            } catch {
                calibrationPage.flow.interrupted("cannot read the \(kind == .accel ? "accelerometer" : "magnetometer"): \(error)")
            }
        case "save":
            switch calibrationPage.flow.stepToSave() {
            case .failure(let f): setCalibrationError(nil, f.description)
            case .success(let step): saveCalibrationStep(step)
            }
        default:   // cancel
            if let problem = calibrationPage.flow.cancel() {
                setCalibrationError(nil, problem)
            } else {
                endCapture()
            }
        }
    }

    /// Shows `problem` on `step`'s card (nil: the collecting step's, else the gyro card's).
    private func setCalibrationError(_ step: CalibrationFlow.Step?, _ problem: String) {
        switch step ?? calibrationPage.flow.active ?? .gyro {
        case .gyro: calibrationPage.flow.gyro.error = problem
        case .accel: calibrationPage.flow.accel.error = problem
        case .mag: calibrationPage.flow.mag.error = problem
        }
    }

    private func endCapture() {
        guard let c = calibrationPage.capture else { return }
        calibrationPage.capture = nil
        c.service.removeConsumer(c.consumer)
    }

    /// Coverage of the step collecting samples; the step fails when its pipeline went away.
    private func followCalibrationStep(now: UInt64) {
        guard let c = calibrationPage.capture else { return }
        let progress = c.capture.progress
        if progress.ended || c.service !== service {
            endCapture()
            calibrationPage.flow.interrupted("the pipeline restarted (a reload or another calibration) while collecting; start this step again")
            return
        }
        if let m = mountControl?.current, m != c.capture.mount {
            endCapture()
            calibrationPage.flow.interrupted("the mount changed during the step (cmd/mount); start this step again")
            return
        }
        switch c.capture.kind {
        case .accel:
            let f = c.capture.faces
            calibrationPage.flow.accelProgress(covered: f.covered, holding: f.holding, minimum: f.minimum, samples: progress.samples)
        case .mag:
            guard now >= calibrationPage.lastMagFit + CalibrationPageState.magFitIntervalNanos else { return }
            calibrationPage.lastMagFit = now
            let readings = c.capture.magnetometerReadings.readings
            calibrationPage.flow.magProgress(readings: readings.count, fit: Self.fitMagnetometer(readings))
        }
    }

    /// The existing ellipsoid fit over `readings` (µT).
    static func fitMagnetometer(_ readings: [Vector3]) -> Result<MagnetometerCalibrator.Result, MagnetometerCalibrator.Failure> {
        var calibrator = MagnetometerCalibrator(reservingCapacity: readings.count)
        for m in readings { calibrator.add(m) }
        do throws(MagnetometerCalibrator.Failure) { return .success(try calibrator.fit()) } catch { return .failure(error) }
    }

    /// `save`: fits the collected (chip-axes) samples as `edgemotion calibrate accel|mag` does (a
    /// poor magnetometer fit is not kept), keeps the result in the calibration file and restarts the
    /// pipeline so fusion applies it.
    private func saveCalibrationStep(_ step: CalibrationFlow.Step) {
        guard let c = calibrationPage.capture else { return }
        let path = FusionSetup.calibrationPath(configuration), sensor = FusionSetup.calibrationSensor(configuration)
        var update: (inout SensorCalibration) -> Void
        switch step {
        case .accel:
            var calibrator = c.capture.accelerometer
            do throws(AccelerometerCalibrator.Failure) {
                let r = try calibrator.fit()
                calibrationPage.flow.accel.offset = r.offset
                calibrationPage.flow.accel.scale = r.scale
                update = { $0.accelerometerOffset = r.offset; $0.accelerometerScale = r.scale }
            } catch {
                calibrationPage.flow.saved(.accel, error: "not saved: \(error)")
                return
            }
        case .mag:
            let readings = c.capture.magnetometerReadings.readings
            let fit = Self.fitMagnetometer(readings)
            calibrationPage.flow.magProgress(readings: readings.count, fit: fit)
            switch fit {
            case .failure(let f):
                calibrationPage.flow.saved(.mag, error: "not saved: \(f)")
                return
            case .success(let r) where r.verdict == .poor:
                calibrationPage.flow.saved(.mag, error: "not saved: the fit is poor; \(r.advice)")
                return
            case .success(let r):
                update = { $0.magnetometerOffset = r.offset; $0.magnetometerSoftIron = r.softIron; $0.magnetometerFieldStrength = r.fieldStrength }
            }
        case .gyro:
            return
        }
        do throws(FileError) {
            try CalibrationFileKeeper.keep(path: path, sensor: sensor, update)
        } catch {
            calibrationPage.flow.saved(step, error: "cannot write \(path): \(error)")
            return
        }
        endCapture()
        calibrationPage.flow.saved(step, error: nil)
        log.notice("calibration kept from the dashboard; restarting the pipeline to apply it", ["step": step.rawValue, "file": path])
        _ = apply(configuration, restartPipeline: true)
    }
}
