import Messaging
import MotionCore

/// Where the dashboard's calibration page stands (`GET /api/calibration`): the three steps —
/// gyroscope bias (the `cmd/calibrate` gyro run), six-face accelerometer, magnetometer
/// ellipsoid —, which one collects samples now, each one's coverage and result, and what the
/// running pipeline applies. A value owned by the runner's main loop; the page only reads it.
///
/// Rules: one step collects at a time (`start` refuses another until it ends); `accel` and
/// `mag` collect until `save` succeeds (the fit is kept in the calibration file and applied) or
/// `cancel`; a `save` the fit refuses (faces missing, a poor ellipsoid) leaves the step
/// collecting, with the reason in its `error`. The gyro step ends by itself.
struct CalibrationFlow: Sendable {
    enum Step: String, Sendable { case gyro, accel, mag }
    enum State: String, Sendable {
        /// Not started (or cancelled).
        case idle
        /// Collecting samples.
        case running
        /// Kept in the calibration file and applied.
        case done
        /// Ended without a result (`error` says why); it can be started again.
        case failed
    }

    struct GyroStep: Sendable {
        var state = State.idle
        var durationSeconds = CalibrationCommand.defaultDuration
        /// Seconds since the run started (while running).
        var elapsedSeconds = 0.0
        /// Bias, rad/s, and noise (standard deviation), rad/s.
        var bias: Vector3?
        var noise: Double?
        var samples = 0
        var error: String?
    }

    struct AccelStep: Sendable {
        var state = State.idle
        /// Faces with a long enough still period: bit i = `AccelerometerCalibrator.faceNames[i]`.
        var covered: UInt8 = 0
        /// The still period under way: its face and seconds held.
        var holding: (face: Int, seconds: Double)?
        /// Seconds a face must be held still to count.
        var minimumSeconds = 1.5
        var samples = 0
        /// Offset, m/s², and scale of the saved fit.
        var offset: Vector3?
        var scale: Vector3?
        var error: String?

        /// Names of the faces still missing, in `faceNames` order.
        var missing: [String] {
            (0..<6).filter { covered & (1 << UInt8($0)) == 0 }.map { AccelerometerCalibrator.faceNames[$0] }
        }
    }

    struct MagStep: Sendable {
        var state = State.idle
        var readings = 0
        /// The latest fit of the readings so far (coverage cells, verdict), nil until one succeeds.
        var fit: MagnetometerCalibrator.Result?
        /// Why the latest fit failed (too few readings, degenerate), while no fit exists.
        var fitProblem: String?
        var error: String?
    }

    var gyro = GyroStep()
    var accel = AccelStep()
    var mag = MagStep()
    /// The step collecting samples now.
    private(set) var active: Step?
    /// The source's sensors: a step needs its sensors.
    var hasGyroscope = true
    var hasAccelerometer = true
    var hasMagnetometer = true
    /// The calibration file, what became of it at the last pipeline start (`none`, `loaded`,
    /// `rejected`) and the calibration the running pipeline applies.
    var file = ""
    var fileState = "none"
    var applied = SensorCalibration.none
    /// The chip-to-board rotations in force: the steps' results and the file are in chip axes,
    /// the live stream in board axes (the page turns it back with `Rᵀ`).
    var mount = IMUMount.identity

    /// Starts `step`; the reason when it cannot start.
    mutating func start(_ step: Step, gyroDuration: Double = CalibrationCommand.defaultDuration) -> String? {
        if let active { return "the \(active.rawValue) step is still collecting; \(active == .gyro ? "wait for it to end" : "save or cancel it first")" }
        switch step {
        case .gyro:
            guard hasGyroscope else { return "the source has no gyroscope" }
            gyro = GyroStep(state: .running, durationSeconds: gyroDuration)
        case .accel:
            guard hasAccelerometer, hasGyroscope else { return "the six-face calibration needs an accelerometer and a gyroscope (to see when the board is still)" }
            accel = AccelStep(state: .running)
        case .mag:
            guard hasMagnetometer else { return "the source has no magnetometer" }
            mag = MagStep(state: .running)
        }
        active = step
        return nil
    }

    /// The gyro run ended: its bias (kept and applied), or why not.
    mutating func gyroFinished(_ outcome: Result<GyroscopeCalibrator.Result, GyroFailure>) {
        guard gyro.state == .running else { return }
        switch outcome {
        case .success(let r):
            gyro.state = .done; gyro.bias = r.bias; gyro.noise = r.noise; gyro.samples = r.samples; gyro.error = nil
        case .failure(let f):
            gyro.state = .failed; gyro.error = f.description
        }
        if active == .gyro { active = nil }
    }

    struct GyroFailure: Error, CustomStringConvertible, Sendable { var description: String }

    /// The six-face coverage so far (from `CalibrationCapture.faces`).
    mutating func accelProgress(covered: UInt8, holding: (face: Int, seconds: Double)?, minimum: Double, samples: Int) {
        guard active == .accel else { return }
        accel.covered = covered; accel.holding = holding; accel.minimumSeconds = minimum; accel.samples = samples
    }

    /// The latest magnetometer fit of `readings` readings (or why none is possible yet).
    mutating func magProgress(readings: Int, fit: Result<MagnetometerCalibrator.Result, MagnetometerCalibrator.Failure>) {
        guard active == .mag else { return }
        mag.readings = readings
        switch fit {
        case .success(let r): mag.fit = r; mag.fitProblem = nil
        case .failure(let f): mag.fitProblem = f.description
        }
    }

    /// The step being saved: `accel` or `mag` (the gyro saves itself); the reason when none is.
    func stepToSave() -> Result<Step, GyroFailure> {
        switch active {
        case .accel?, .mag?: .success(active!)
        case .gyro?: .failure(GyroFailure(description: "the gyro step keeps its bias by itself when it ends"))
        case nil: .failure(GyroFailure(description: "nothing to save: start the accel or mag step first"))
        }
    }

    /// `save` of the active step: `error` nil = kept and applied (the step is done); otherwise the
    /// step keeps collecting and shows the reason.
    mutating func saved(_ step: Step, error: String?) {
        guard active == step else { return }
        switch step {
        case .accel: accel.error = error
        case .mag: mag.error = error
        case .gyro: return
        }
        if error == nil {
            if step == .accel { accel.state = .done } else { mag.state = .done }
            active = nil
        }
    }

    /// `cancel`: the collecting accel or mag step goes back to idle.
    mutating func cancel() -> String? {
        switch active {
        case .accel?: accel = AccelStep()
        case .mag?: mag = MagStep()
        case .gyro?: return "the gyro step cannot be cancelled; it ends after its duration"
        case nil: return "no step is collecting"
        }
        active = nil
        return nil
    }

    /// The pipeline stopped under a collecting accel or mag step (a reload): that step failed.
    mutating func interrupted(_ reason: String) {
        switch active {
        case .accel?: accel.state = .failed; accel.error = reason
        case .mag?: mag.state = .failed; mag.error = reason
        default: return
        }
        active = nil
    }

    // MARK: JSON (GET /api/calibration)

    func json() -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        let deg = 180 / Double.pi
        func vector(_ k: StaticString, _ v: Vector3?, _ digits: Int, scale: Double = 1) {
            w.key(k)
            guard let v else { w.null(); return }
            w.beginArray(); w.value(v.x * scale, fractionDigits: digits); w.value(v.y * scale, fractionDigits: digits)
            w.value(v.z * scale, fractionDigits: digits); w.endArray()
        }
        func error(_ e: String?) { if let e { w.field("error", e) } else { w.key("error"); w.null() } }
        w.beginObject()
        w.key("active"); if let active { w.string(active.rawValue) } else { w.null() }
        func matrix(_ k: StaticString, _ m: Matrix3) {
            w.key(k); w.beginArray()
            for v in [m.a11, m.a12, m.a13, m.a21, m.a22, m.a23, m.a31, m.a32, m.a33] { w.value(v, fractionDigits: 6) }
            w.endArray()
        }
        w.key("mount"); w.beginObject()
        matrix("accel_gyro", mount.inertial.matrix); matrix("magnetometer", mount.magnetometer.matrix)
        w.endObject()
        w.key("sensors"); w.beginObject()
        w.field("gyroscope", hasGyroscope); w.field("accelerometer", hasAccelerometer); w.field("magnetometer", hasMagnetometer)
        w.endObject()

        w.key("gyro"); w.beginObject()
        w.field("state", gyro.state.rawValue)
        w.field("duration_s", gyro.durationSeconds, fractionDigits: 1)
        w.field("elapsed_s", gyro.elapsedSeconds, fractionDigits: 1)
        vector("bias_dps", gyro.bias, 4, scale: deg)
        w.key("noise_dps"); if let n = gyro.noise { w.value(n * deg, fractionDigits: 4) } else { w.null() }
        w.field("samples", gyro.samples)
        error(gyro.error)
        w.endObject()

        w.key("accel"); w.beginObject()
        w.field("state", accel.state.rawValue)
        w.key("faces"); w.beginArray()
        for (i, name) in AccelerometerCalibrator.faceNames.enumerated() {
            w.beginObject(); w.field("face", name); w.field("covered", accel.covered & (1 << UInt8(i)) != 0); w.endObject()
        }
        w.endArray()
        w.key("holding")
        if let h = accel.holding {
            w.beginObject(); w.field("face", AccelerometerCalibrator.faceNames[h.face]); w.field("seconds", h.seconds, fractionDigits: 1)
            w.field("needed_s", accel.minimumSeconds, fractionDigits: 1); w.endObject()
        } else { w.null() }
        w.field("samples", accel.samples)
        vector("offset", accel.offset, 4)
        vector("scale", accel.scale, 5)
        error(accel.error)
        w.endObject()

        w.key("mag"); w.beginObject()
        w.field("state", mag.state.rawValue)
        w.field("readings", mag.readings)
        w.field("cell_count", MagnetometerCalibrator.cellCount)
        w.key("cells"); w.beginArray()
        for i in 0..<MagnetometerCalibrator.cellCount { w.value((mag.fit?.cells ?? 0) & (1 << UInt32(i)) != 0) }
        w.endArray()
        if let f = mag.fit {
            w.field("coverage", f.coverage, fractionDigits: 3)
            w.field("residual", f.residual, fractionDigits: 4)
            w.field("verdict", f.verdict.rawValue)
            w.field("advice", f.advice)
            vector("offset", f.offset, 2)
            w.field("field_strength", f.fieldStrength, fractionDigits: 2)
        } else {
            w.field("coverage", 0.0, fractionDigits: 3)
            w.key("verdict"); w.null()
            w.field("advice", mag.fitProblem ?? "turn the board slowly through every orientation, away from metal")
        }
        error(mag.error)
        w.endObject()

        w.key("file"); w.beginObject()
        w.field("path", file)
        w.field("calibration", fileState)
        w.key("applied"); w.beginObject()
        vector("gyro_bias_dps", applied.gyroBias, 4, scale: deg)
        vector("accel_offset", applied.accelerometerOffset, 4)
        vector("accel_scale", applied.accelerometerScale, 5)
        vector("mag_offset", applied.magnetometerOffset, 2)
        w.key("mag_field_strength"); if let r = applied.magnetometerFieldStrength { w.value(r, fractionDigits: 2) } else { w.null() }
        w.endObject()
        w.endObject()
        w.endObject()
        return w.buffer
    }
}
