import Testing
@testable import EdgeMotion
import MotionCore

/// A chip soldered rotated on the board, with `mount` configured, gives the same attitude,
/// gravity and heading as a chip soldered straight. Truth: one pose written out by hand — the
/// board's x axis points north, raised 20°, y points west — and its readings derived on paper.
@Suite struct MountedPipelineTests {
    let g = 9.80665
    let a = 20.0 * .pi / 180

    /// Board-axis readings of the hand pose: up is (sin20°, 0, cos20°) in board axes; the field
    /// (20 µT north, 40 µT down) is (20·cos20 − 40·sin20, 0, −20·sin20 − 40·cos20).
    var boardForce: Vector3 { Vector3(g * a.sin, 0, g * a.cos) }
    var boardField: Vector3 { Vector3(20 * a.cos - 40 * a.sin, 0, -20 * a.sin - 40 * a.cos) }

    /// accel/gyro chip mounted `x: -y, y: x, z: z` (board x = −chip y, board y = chip x), so
    /// chip = (board y, −board x, board z); magnetometer chip `x: y, y: -x, z: z`, so
    /// chip = (−board y, board x, board z).
    func inertialChip(_ b: Vector3) -> Vector3 { Vector3(b.y, -b.x, b.z) }
    func magnetometerChip(_ b: Vector3) -> Vector3 { Vector3(-b.y, b.x, b.z) }

    var mount: IMUMount {
        get throws {
            IMUMount(inertial: try SensorMount(remapX: SignedAxis(.y, negated: true), y: SignedAxis(.x), z: SignedAxis(.z)),
                     magnetometer: try SensorMount(remapX: SignedAxis(.y), y: SignedAxis(.x, negated: true), z: SignedAxis(.z)))
        }
    }

    final class Collect: PipelineOutput, @unchecked Sendable {
        var motion: [DeviceMotion] = []
        var accelerometer: [IMUSample] = []
        func pipeline(didProduce m: Span<DeviceMotion>, interval: Double) { for i in m.indices { motion.append(m[i]) } }
        func pipeline(didProduce s: Span<IMUSample>, of stream: SensorStream, interval: Double) {
            if stream == .accelerometer { for i in s.indices { accelerometer.append(s[i]) } }
        }
    }

    func processor(mount: IMUMount) -> MotionProcessor<RobustAttitudeFilter> {
        let rate = 100.0
        var config = PipelineConfiguration(requestedRate: rate, accelerometer: StreamSchedule(rate: 100, publishRate: 10),
                                           motion: StreamSchedule(rate: 100, publishRate: 10),
                                           referenceFrame: .xMagneticNorthZVertical)
        config.mount = mount
        var schedules: [SensorStream: EffectiveSchedule] = [:]
        for s in SensorStream.allCases { schedules[s] = EffectiveSchedule(config.schedule(for: s), sourceRate: rate) }
        return MotionProcessor(configuration: config, sourceRate: rate, schedules: schedules,
                               motionSchedule: EffectiveSchedule(config.motion, sourceRate: rate))
    }

    func sample(_ i: Int, force: Vector3, field: Vector3) -> IMUSample {
        IMUSample(timestampNanos: 1_000_000_000 + UInt64(i) * 10_000_000, sequence: UInt64(i),
                  specificForce: force, rotationRate: .zero, magneticField: field, contents: .all)
    }

    @Test func rotatedChipsWithTheirMountGiveTheStraightBoardsAttitude() throws {
        var straight = processor(mount: .identity)
        var rotated = processor(mount: try mount)
        let s = Collect(), r = Collect()
        for i in 0..<2000 {
            straight.process(sample(i, force: boardForce, field: boardField), outputs: [s])
            rotated.process(sample(i, force: inertialChip(boardForce), field: magnetometerChip(boardField)), outputs: [r])
        }
        let a = try #require(s.motion.last), b = try #require(r.motion.last)
        // Same inputs after the mount: the same states.
        #expect(a.attitude.quaternion == b.attitude.quaternion)
        #expect(a.gravity.vector == b.gravity.vector)
        #expect(a.heading == b.heading)
        // And both are the hand pose: gravity −(sin20°, 0, cos20°) g, heading of the top (west) 270°.
        #expect((b.gravity.vector - Vector3(-a_sin, 0, -a_cos)).norm < 2e-3)
        #expect(abs(b.heading - 270) < 1)
        // The raw accelerometer stream is published in board axes too.
        let raw = try #require(r.accelerometer.last)
        #expect((raw.specificForce - boardForce).norm < 1e-12)
    }

    var a_sin: Double { a.sin }
    var a_cos: Double { a.cos }

    @Test func withoutTheMountTheRotatedChipIsWrongAndARemountFixesItLive() throws {
        var p = processor(mount: .identity)
        let out = Collect()
        for i in 0..<500 { p.process(sample(i, force: inertialChip(boardForce), field: magnetometerChip(boardField)), outputs: [out]) }
        let wrong = try #require(out.motion.last)
        // Unmounted, the tilt shows on the wrong axis: gravity along chip −y instead of board −x.
        #expect(abs(wrong.gravity.vector.x) < 1e-2 && wrong.gravity.vector.y > 0.3)
        p.apply([.remount(try mount)])
        for i in 500..<2500 { p.process(sample(i, force: inertialChip(boardForce), field: magnetometerChip(boardField)), outputs: [out]) }
        let right = try #require(out.motion.last)
        #expect((right.gravity.vector - Vector3(-a_sin, 0, -a_cos)).norm < 2e-3)
        #expect(abs(right.heading - 270) < 1)
    }
}
