import Foundation
import Testing
@testable import Agent
import EdgeMotion
import MotionCore
import TestSupport

/// The calibration page's logic in process: the six-face coverage from poses written out as
/// specific-force vectors, the magnetometer's coverage cells and fit from a synthetic ellipsoid
/// whose hard and soft iron are chosen here, and the flow's rules (one step at a time, a refused
/// save keeps collecting, cancel, a restart interrupts).
@Suite("Calibration page: coverage and flow", .ownThread)
struct CalibrationFlowTests {
    static let g = 9.80665
    static let rate = 200.0

    /// `seconds` of samples at 200 Hz with specific force `f` (m/s²) and rotation rate `w` (rad/s).
    static func samples(_ f: Vector3, _ w: Vector3 = .zero, seconds: Double, from start: inout Int) -> [IMUSample] {
        let n = Int(seconds * rate)
        defer { start += n }
        return (0..<n).map { k in
            IMUSample(timestampNanos: UInt64(start + k) * 5_000_000, sequence: UInt64(start + k),
                      specificForce: f, rotationRate: w, magneticField: .zero, contents: .inertial)
        }
    }

    static func feed(_ c: CalibrationCapture, _ batch: [IMUSample], stream: SensorStream = .accelerometer) {
        // In batches of 20 (0.1 s), as the accelerometer-stream schedule delivers them.
        var i = 0
        while i < batch.count {
            let part = Array(batch[i..<min(i + 20, batch.count)])
            c.pipeline(didProduce: part.span, of: stream, interval: 1 / rate)
            i += 20
        }
    }

    /// Bit set of the named faces.
    static func bits(_ names: [String]) -> UInt8 {
        names.reduce(0) { $0 | (1 << UInt8(AccelerometerCalibrator.faceNames.firstIndex(of: $1)!)) }
    }

    @Test func eachRestingFaceCountsOnceHeldStillAndTheFitReturnsTheChosenOffsetAndScale() throws {
        // A sensor with offset (0.2, −0.1, 0.3) m/s² and scale (1.02, 0.98, 1.01): resting on a
        // face it reads scale·(±g) + offset on that axis and the offset on the others.
        let o = Vector3(0.2, -0.1, 0.3), s = Vector3(1.02, 0.98, 1.01)
        let poses: [(String, Vector3)] = [
            ("+z", Vector3(o.x, o.y, s.z * Self.g + o.z)),
            ("+x", Vector3(s.x * Self.g + o.x, o.y, o.z)),
            ("−y", Vector3(o.x, -s.y * Self.g + o.y, o.z)),
            ("−x", Vector3(-s.x * Self.g + o.x, o.y, o.z)),
            ("+y", Vector3(o.x, s.y * Self.g + o.y, o.z)),
            ("−z", Vector3(o.x, o.y, -s.z * Self.g + o.z)),
        ]
        let capture = CalibrationCapture(kind: .accel, sourceRate: Self.rate)
        var t = 0
        var expected: [String] = []
        for (name, f) in poses {
            // 5 s on the face, as the CLI asks: the rest detector's low-pass filters (0.5 s) settle
            // from the turn in ~2 s, then 0.5 s of rest start the still period.
            Self.feed(capture, Self.samples(f, seconds: 5, from: &t))
            // Held long enough: the face counts while the board still lies on it.
            let held = try #require(capture.faces.holding, "no still period on \(name)")
            #expect(AccelerometerCalibrator.faceNames[held.face] == name)
            #expect(held.seconds >= 1.5)
            expected.append(name)
            #expect(capture.faces.covered == Self.bits(expected), "on \(name): \(capture.faces.covered)")
            // Turning to the next face (1 rad/s about x): the still period is closed and kept.
            Self.feed(capture, Self.samples(f, Vector3(1, 0, 0), seconds: 0.5, from: &t))
            #expect(capture.faces.covered == Self.bits(expected), "after \(name): \(capture.faces.covered)")
            #expect(capture.faces.holding == nil)
        }
        var calibrator = capture.accelerometer
        let r = try calibrator.fit()
        #expect((r.offset - o).norm < 1e-9, "offset \(r.offset)")
        #expect((r.scale - s).norm < 1e-9, "scale \(r.scale)")
    }

    @Test func underAMountTheFacesAndReadingsAreTheChips() throws {
        // Chip → board: a quarter turn about z, v_board = R·v_chip with R = [[0,−1,0],[1,0,0],[0,0,1]]
        // (chip +x points along board +y). The board lying with its +y up has chip +x up.
        let r = Matrix3(0, -1, 0, 1, 0, 0, 0, 0, 1)
        let mount = IMUMount(all: try SensorMount(matrix: r))
        let capture = CalibrationCapture(kind: .accel, sourceRate: Self.rate, mount: mount)
        var t = 0
        Self.feed(capture, Self.samples(Vector3(0, Self.g, 0), seconds: 5, from: &t))
        #expect(capture.faces.covered == Self.bits(["+x"]))
        // A board-axis field (0, 30, −40) µT is (30, 0, −40) in chip axes.
        let mag = CalibrationCapture(kind: .mag, sourceRate: Self.rate, mount: mount)
        let field = [IMUSample(timestampNanos: 0, sequence: 0, magneticField: Vector3(0, 30, -40), contents: .magnetometer)]
        mag.pipeline(didProduce: field.span, of: .magnetometer, interval: 0.04)
        let chip = try #require(mag.magnetometerReadings.readings.first)
        #expect((chip - Vector3(30, 0, -40)).norm < 1e-12, "\(chip)")
    }

    @Test func aShortRestOrATiltedBoardCoversNoFace() {
        let capture = CalibrationCapture(kind: .accel, sourceRate: Self.rate)
        var t = 0
        // 1 s still (under the 1.5 s needed), then turning.
        Self.feed(capture, Self.samples(Vector3(0, 0, Self.g), seconds: 1, from: &t))
        #expect(capture.faces.covered == 0)
        Self.feed(capture, Self.samples(Vector3(0, 0, Self.g), Vector3(0, 1, 0), seconds: 0.5, from: &t))
        // 3 s still at 45° between +x and +z: no axis within 37° of vertical.
        let h = Self.g / 2.0.squareRoot()
        Self.feed(capture, Self.samples(Vector3(h, 0, h), seconds: 3, from: &t))
        #expect(capture.faces.holding == nil)
        Self.feed(capture, Self.samples(Vector3(h, 0, h), Vector3(0, 1, 0), seconds: 0.5, from: &t))
        #expect(capture.faces.covered == 0)
    }

    @Test func directionCellsAreTheEqualAreaBandsAndAzimuthSectors() {
        // band = ⌊(z + 1)·2⌋ (0 at the bottom), sector = ⌊(atan2(y, x) + π)/(2π)·8⌋, cell = 8·band + sector.
        #expect(MagnetometerCalibrator.cell(of: Vector3(0, 0, 1)) == 3 * 8 + 4)     // up; atan2(0, 0) = 0
        #expect(MagnetometerCalibrator.cell(of: Vector3(0, 0, -1)) == 0 * 8 + 4)    // down
        #expect(MagnetometerCalibrator.cell(of: Vector3(1, 0, 0)) == 2 * 8 + 4)     // horizontal, azimuth 0
        #expect(MagnetometerCalibrator.cell(of: Vector3(-1, 0, 0)) == 2 * 8 + 7)    // azimuth 180°
        #expect(MagnetometerCalibrator.cell(of: Vector3(0, -1, 0)) == 2 * 8 + 2)    // azimuth −90°
        #expect(MagnetometerCalibrator.cell(of: Vector3(0.6, 0, -0.8)) == 0 * 8 + 4) // z −0.8: bottom band
        #expect(MagnetometerCalibrator.cell(of: Vector3(0.7, 0, -0.7)) == 0 * 8 + 4)  // z −0.7: bottom band
        #expect(MagnetometerCalibrator.cell(of: Vector3(0.9, 0, -0.4)) == 1 * 8 + 4) // z −0.4: second band
    }

    /// A 50 µT field seen from directions spread over the sphere (or its upper half), through a
    /// soft-iron matrix `D` and a hard-iron offset `o` chosen here: m = D·(50 u) + o.
    static func ellipsoid(_ d: Matrix3, _ o: Vector3, upperHalfOnly: Bool = false) -> [IMUSample] {
        var out: [IMUSample] = []
        for i in 0..<40 {
            // z from −0.975 to 0.975 (or 0.0125 to 0.9875), 36 azimuths each.
            let z = upperHalfOnly ? (Double(i) + 0.5) / 40 : -1 + (Double(i) + 0.5) / 20
            let rho = (1 - z * z).squareRoot()
            for k in 0..<36 {
                let a = Double(k) * 10 * .pi / 180 + Double(i) * 0.1
                let u = Vector3(rho * a.cos, rho * a.sin, z)
                out.append(IMUSample(timestampNanos: UInt64(out.count) * 40_000_000, sequence: UInt64(out.count),
                                     magneticField: d * (50 * u) + o, contents: .magnetometer))
            }
        }
        return out
    }

    @Test func theEllipsoidFitFromTheCapturedReadingsReturnsTheChosenHardAndSoftIron() throws {
        let d = Matrix3.diagonal(1.2, 0.9, 1.0)
        let o = Vector3(25, -12, 40)
        let capture = CalibrationCapture(kind: .mag, sourceRate: Self.rate)
        Self.feed(capture, Self.ellipsoid(d, o), stream: .magnetometer)
        let readings = capture.magnetometerReadings.readings
        #expect(readings.count == 1440)
        let r = try AgentRunner.fitMagnetometer(readings).get()
        #expect((r.offset - o).norm < 1e-6, "offset \(r.offset)")
        // W (m − o) = W D 50u must be a sphere: W = c·D⁻¹ with det W = 1, so c³ = det D = 1.08
        // and the radius is 50·c = 50·1.08^(1/3) = 51.2991 µT.
        let c = 51.2991 / 50
        #expect(abs(r.fieldStrength - 51.2991) < 1e-3, "field \(r.fieldStrength)")
        for (a, b) in [(r.softIron.a11, c / 1.2), (r.softIron.a22, c / 0.9), (r.softIron.a33, c / 1.0),
                       (r.softIron.a12, 0), (r.softIron.a13, 0), (r.softIron.a23, 0)] {
            #expect(abs(a - b) < 1e-4, "W = \(r.softIron)")
        }
        #expect(r.cells == 0xFFFF_FFFF, "every one of the 32 cells: \(String(r.cells, radix: 2))")
        #expect(r.coverage == 1)
        #expect(r.verdict == .good)
    }

    @Test func readingsFromTheUpperHalfFillOnlyTheTwoUpperBands() throws {
        let capture = CalibrationCapture(kind: .mag, sourceRate: Self.rate)
        Self.feed(capture, Self.ellipsoid(Matrix3.diagonal(1.2, 0.9, 1.0), Vector3(25, -12, 40), upperHalfOnly: true), stream: .magnetometer)
        let r = try AgentRunner.fitMagnetometer(capture.magnetometerReadings.readings).get()
        #expect(r.cells == 0xFFFF_0000, "bands 2 and 3 only: \(String(r.cells, radix: 2))")
        #expect(r.coverage == 0.5)
        #expect(r.verdict != .good)
    }

    @Test func theMagnetometerBufferIsBounded() {
        let capture = CalibrationCapture(kind: .mag, sourceRate: Self.rate)
        var all: [IMUSample] = []
        for _ in 0..<5 { all += Self.ellipsoid(Matrix3.diagonal(1, 1, 1), .zero) }   // 7200 readings
        Self.feed(capture, all, stream: .magnetometer)
        let (readings, notKept) = capture.magnetometerReadings
        #expect(readings.count == 6000 && notKept == 1200)
        // Accelerometer-stream batches are not the magnetometer step's.
        var t = 0
        Self.feed(capture, Self.samples(Vector3(0, 0, Self.g), seconds: 1, from: &t))
        #expect(capture.progress.samples == 7200)
    }

    // MARK: The flow

    static func object(_ flow: CalibrationFlow) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(flow.json())) as? [String: Any])
    }

    @Test func oneStepCollectsAtATimeAndTheGyroEndsByItself() throws {
        var flow = CalibrationFlow()
        #expect(flow.start(.gyro, gyroDuration: 5) == nil)
        #expect(flow.active == .gyro)
        #expect(flow.start(.accel) == "the gyro step is still collecting; wait for it to end")
        #expect(flow.cancel() == "the gyro step cannot be cancelled; it ends after its duration")
        // 2 s at 200 Hz lying still with a rate of 0.5 °/s on every axis.
        var calibrator = GyroscopeCalibrator()
        for _ in 0..<400 { calibrator.add(gyroscope: Vector3(0.5, 0.5, 0.5) * (.pi / 180), accelerometer: Vector3(0, 0, Self.g)) }
        flow.gyroFinished(.success(try calibrator.fit()))
        #expect(flow.active == nil && flow.gyro.state == .done)
        let j = try Self.object(flow)
        let gyro = try #require(j["gyro"] as? [String: Any])
        #expect(gyro["state"] as? String == "done")
        #expect((gyro["bias_dps"] as? [Double])?.map { ($0 * 1e4).rounded() / 1e4 } == [0.5, 0.5, 0.5])
        #expect(j["active"] is NSNull)
    }

    @Test func aRefusedSaveKeepsCollectingAndCancelGoesBackToIdle() throws {
        var flow = CalibrationFlow()
        #expect(flow.stepToSave().failureDescription == "nothing to save: start the accel or mag step first")
        #expect(flow.start(.accel) == nil)
        #expect(flow.start(.mag) == "the accel step is still collecting; save or cancel it first")
        flow.accelProgress(covered: Self.bits(["+z", "+x"]), holding: (5, 0.7), minimum: 1.5, samples: 900)
        #expect(flow.accel.missing == ["−x", "+y", "−y", "−z"])
        #expect(flow.stepToSave().successValue == .accel)
        flow.saved(.accel, error: "not saved: no still period found with −x, +y, −y, −z up")
        #expect(flow.active == .accel && flow.accel.state == .running)
        let accel = try #require(try Self.object(flow)["accel"] as? [String: Any])
        let faces = try #require(accel["faces"] as? [[String: Any]])
        #expect(faces.map { $0["face"] as? String ?? "" } == ["+x", "−x", "+y", "−y", "+z", "−z"])
        #expect(faces.map { $0["covered"] as? Bool ?? false } == [true, false, false, false, true, false])
        #expect((accel["holding"] as? [String: Any])?["face"] as? String == "−z")
        #expect(accel["error"] as? String == "not saved: no still period found with −x, +y, −y, −z up")
        #expect(flow.cancel() == nil)
        #expect(flow.active == nil && flow.accel.state == .idle && flow.accel.covered == 0)
        #expect(flow.cancel() == "no step is collecting")
    }

    @Test func aSaveThatSucceedsEndsTheStepAndARestartInterruptsOne() {
        var flow = CalibrationFlow()
        #expect(flow.start(.mag) == nil)
        flow.saved(.mag, error: nil)
        #expect(flow.active == nil && flow.mag.state == .done)
        #expect(flow.start(.accel) == nil)
        flow.interrupted("the pipeline restarted")
        #expect(flow.active == nil && flow.accel.state == .failed && flow.accel.error == "the pipeline restarted")
    }

    @Test func aStepNeedsItsSensors() {
        var flow = CalibrationFlow()
        flow.hasMagnetometer = false
        #expect(flow.start(.mag) == "the source has no magnetometer")
        flow.hasGyroscope = false
        #expect(flow.start(.gyro) == "the source has no gyroscope")
        #expect(flow.start(.accel)?.hasPrefix("the six-face calibration needs an accelerometer and a gyroscope") == true)
        #expect(flow.active == nil)
    }

    @Test func thePagesCommandsAreTheCalibrationCommandPayloadWithMoreActions() {
        func parse(_ s: String, _ actions: [String] = CalibrationCommand.dashboardActions) -> Result<CalibrationCommand, StreamCommand.Failure> {
            CalibrationCommand.parse(Array(s.utf8), actions: actions)
        }
        #expect((try? parse(#"{"action":"accel"}"#).get())?.action == "accel")
        #expect((try? parse("save").get())?.action == "save")
        #expect((try? parse(#"{"action":"gyro","duration_s":4}"#).get())?.duration == 4)
        // MQTT's cmd/calibrate keeps its single action.
        #expect(parse(#"{"action":"accel"}"#, CalibrationCommand.actions).failureMessage == "'action' must be one of gyro")
        #expect(parse(#"{"action":"mag","duration_s":4}"#).failureMessage == "'duration_s' applies to the gyro action only")
        #expect(parse(#"{"action":"fly"}"#).failureMessage == "'action' must be one of gyro, accel, mag, save, cancel")
    }
}

extension Result where Failure == CalibrationFlow.GyroFailure {
    var failureDescription: String? { if case .failure(let f) = self { f.description } else { nil } }
    var successValue: Success? { try? get() }
}

extension Result where Failure == StreamCommand.Failure {
    var failureMessage: String? { if case .failure(let f) = self { f.message } else { nil } }
}
