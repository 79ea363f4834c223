import Testing
@testable import EdgeMotion
import MotionCore

/// The calibration file is in chip axes; a mount learned or changed while the pipeline runs must
/// leave it right. Truth written by hand: a chip with a known gyro bias, accelerometer offset and
/// scale and magnetometer hard/soft iron lies still; its raw readings follow from the sensor model
/// `raw = true ⊙ scale + offset` in chip axes, and the board-axis answer from the mount written
/// out on paper.
@Suite struct CalibrationUnderRemountTests {
    let g = 9.80665

    final class Collect: PipelineOutput, @unchecked Sendable {
        var motion: [DeviceMotion] = []
        func pipeline(didProduce m: Span<DeviceMotion>, interval: Double) { for i in m.indices { motion.append(m[i]) } }
        func pipeline(didProduce s: Span<IMUSample>, of stream: SensorStream, interval: Double) {}
    }

    func processor(calibration: SensorCalibration) -> MotionProcessor<RobustAttitudeFilter> {
        let rate = 100.0
        var config = PipelineConfiguration(requestedRate: rate, motion: StreamSchedule(rate: 100, publishRate: 10),
                                           referenceFrame: .xArbitraryZVertical)
        config.calibration = calibration
        config.learnsGyroBias = false   // only the stored bias: what the file says is what is removed
        var schedules: [SensorStream: EffectiveSchedule] = [:]
        for s in SensorStream.allCases { schedules[s] = EffectiveSchedule(config.schedule(for: s), sourceRate: rate) }
        return MotionProcessor(configuration: config, sourceRate: rate, schedules: schedules,
                               motionSchedule: EffectiveSchedule(config.motion, sourceRate: rate))
    }

    func sample(_ i: Int, force: Vector3, rate: Vector3, field: Vector3 = .zero) -> IMUSample {
        IMUSample(timestampNanos: 1_000_000_000 + UInt64(i) * 10_000_000, sequence: UInt64(i),
                  specificForce: force, rotationRate: rate, magneticField: field,
                  contents: field == .zero ? [.accelerometer, .gyroscope] : .all)
    }

    /// Chip bias b = (0.02, −0.01, 0.005) rad/s; mount `x: -y, y: x, z: z` (board x = −chip y,
    /// board y = chip x), so the board sees the bias as (−b.y, b.x, b.z) = (0.01, 0.02, 0.005).
    /// Before the remount the identity mount applies b as it is; after it, the still board must
    /// still read no rotation, and the reported bias is the board-axis one.
    @Test func aChipGyroBiasStaysRightAfterALiveRemount() throws {
        let b = Vector3(0.02, -0.01, 0.005)
        var p = processor(calibration: SensorCalibration(gyroBias: b))
        let out = Collect()
        let chipForce = Vector3(0, 0, g)   // chip flat: the still chip reads g up and only its bias
        for i in 0..<300 { p.process(sample(i, force: chipForce, rate: b), outputs: [out]) }
        let before = try #require(out.motion.last)
        #expect(before.rotationRate.vector.norm < 1e-12)
        #expect((before.gyroBias - b).norm < 1e-12)

        let mount = IMUMount(all: try SensorMount(remapX: SignedAxis(.y, negated: true), y: SignedAxis(.x), z: SignedAxis(.z)))
        p.apply([.remount(mount)])
        for i in 300..<600 { p.process(sample(i, force: chipForce, rate: b), outputs: [out]) }
        let after = try #require(out.motion.last)
        #expect(after.rotationRate.vector.norm < 1e-12, "a still board must not turn: \(after.rotationRate.vector)")
        #expect((after.gyroBias - Vector3(0.01, 0.02, 0.005)).norm < 1e-12, "\(after.gyroBias)")
    }

    /// A general rotation (not an axis remap): the chip sits turned 30° about the board's x axis,
    /// R = [[1,0,0],[0,cos30,−sin30],[0,sin30,cos30]]. The board lies flat, so in chip axes gravity's
    /// specific force is Rᵀ·(0,0,g) = (0, g·sin30, g·cos30) and a field of 20 µT along board y and
    /// −40 µT along board z is (0, 20·cos30 − 40·sin30, −20·sin30 − 40·cos30). The chip reads them
    /// through its errors: accelerometer `true ⊙ (1, 1.05, 0.98) + (0.1, −0.2, 0.3)`, magnetometer
    /// `true ⊘ (1.1, 0.9, 1.0) + (5, −3, 12)` (soft iron diag(1.1, 0.9, 1.0) undoes it).
    /// After learning that mount live, the calibrated board must read exactly flat and the field
    /// exactly (0, 20, −40) µT.
    @Test func accelerometerScaleAndSoftIronFollowAGeneralRotation() throws {
        let s30 = 0.5, c30 = 3.0.squareRoot() / 2
        let scale = Vector3(1, 1.05, 0.98), offset = Vector3(0.1, -0.2, 0.3)
        let softIron = Vector3(1.1, 0.9, 1.0), hardIron = Vector3(5, -3, 12)
        let calibration = SensorCalibration(accelerometerOffset: offset, accelerometerScale: scale,
                                            magnetometerOffset: hardIron,
                                            magnetometerSoftIron: .diagonal(softIron.x, softIron.y, softIron.z))
        let trueForce = Vector3(0, g * s30, g * c30)
        let trueField = Vector3(0, 20 * c30 - 40 * s30, -20 * s30 - 40 * c30)
        let rawForce = Vector3(trueForce.x * scale.x, trueForce.y * scale.y, trueForce.z * scale.z) + offset
        let rawField = Vector3(trueField.x / softIron.x, trueField.y / softIron.y, trueField.z / softIron.z) + hardIron

        var p = processor(calibration: calibration)
        let out = Collect()
        for i in 0..<200 { p.process(sample(i, force: rawForce, rate: .zero, field: rawField), outputs: [out]) }
        // Unmounted the calibrated chip reads its own tilt: 30° from level.
        let tilted = try #require(out.motion.last)
        #expect(abs(tilted.gravity.vector.z + c30) < 2e-2, "\(tilted.gravity.vector)")

        let r = try SensorMount(matrix: Matrix3(1, 0, 0, 0, c30, -s30, 0, s30, c30))
        p.apply([.remount(IMUMount(all: r))])
        for i in 200..<2200 { p.process(sample(i, force: rawForce, rate: .zero, field: rawField), outputs: [out]) }
        let level = try #require(out.motion.last)
        #expect((level.gravity.vector - Vector3(0, 0, -1)).norm < 1e-3, "gravity \(level.gravity.vector)")
        #expect(level.userAcceleration.vector.norm < 1e-3, "a still board has no user acceleration: \(level.userAcceleration.vector)")
        let field = level.magneticField.field
        #expect(abs(field.x) < 1e-9 && abs(field.y - 20) < 1e-9 && abs(field.z + 40) < 1e-9, "field \(field)")
    }

    /// `cmd/calibrate` measures the bias on board-axis samples; the file keeps chip axes:
    /// with board x = −chip y, board y = chip x, a board bias (0.01, 0.02, 0.005) is the chip's
    /// (0.02, −0.01, 0.005).
    @Test func aBoardAxisBiasIsStoredInChipAxes() throws {
        let mount = IMUMount(all: try SensorMount(remapX: SignedAxis(.y, negated: true), y: SignedAxis(.x), z: SignedAxis(.z)))
        let chip = SensorCalibration.chipGyroBias(Vector3(0.01, 0.02, 0.005), mount: mount)
        #expect((chip - Vector3(0.02, -0.01, 0.005)).norm < 1e-15)
    }
}
