import Foundation
import Testing
@testable import Agent
import EdgeMotion
import Messaging
import MotionCore

/// `source.mount` and `fusion.output_frame` as users write them: every form that is a proper
/// rotation loads; anything else is refused naming file, line and key.
@Suite("Mount and output-frame configuration")
struct MountConfigTests {
    func load(_ yaml: String) throws -> AgentConfiguration { try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml") }

    @Test func anAxisRemapAndAMatrixLoad() throws {
        let c = try load("""
        source:
          mount:
            accel_gyro: {x: -y, y: x, z: z}
            magnetometer: [[0, 1, 0], [-1, 0, 0], [0, 0, 1]]
        """)
        let m = c.source.mount.resolved(learned: nil)
        // x: -y → board x is chip −y: the chip reading (1, 2, 3) is (−2, 1, 3) on the board.
        #expect(m.inertial.apply(Vector3(1, 2, 3)) == Vector3(-2, 1, 3))
        // Matrix rows: board x = chip y, board y = −chip x.
        #expect(m.magnetometer.apply(Vector3(1, 2, 3)) == Vector3(2, -1, 3))
        #expect(!c.source.mount.canLearn)
    }

    @Test func theMagnetometerFollowsAccelGyroUnlessGivenAndLearnedIsTheDefault() throws {
        let c = try load("source: { mount: { accel_gyro: {x: y, y: -x, z: z} } }")
        let m = c.source.mount.resolved(learned: nil)
        #expect(m.magnetometer == m.inertial)
        let d = try load("source: { type: simulator }")
        #expect(d.source.mount.usesLearned && d.source.mount.canLearn)
        let tilt = try SensorMount.learned(fromRestingSpecificForce: Vector3(1, 0, 9.7))
        #expect(d.source.mount.resolved(learned: tilt) == IMUMount(all: tilt))
        #expect(d.source.mount.resolved(learned: nil).isIdentity)
        let l = try load("source: { mount: { accel_gyro: learned, magnetometer: identity } }")
        #expect(l.source.mount.resolved(learned: tilt) == IMUMount(inertial: tilt, magnetometer: .identity))
    }

    @Test func aReflectionIsRefusedAtItsLine() {
        let problems = ConfigTestSupport.problems("""
        source:
          mount:
            accel_gyro: {x: y, y: x, z: z}
        """)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("t.yaml:3:") == true && problems.first?.contains("source.mount.accel_gyro") == true
                && problems.first?.contains("reflection") == true, "\(problems)")
    }

    @Test func aMatrixThatIsNoRotationIsRefused() {
        let scaled = ConfigTestSupport.problems("source: { mount: { accel_gyro: [[2, 0, 0], [0, 1, 0], [0, 0, 1]] } }")
        #expect(scaled.first?.contains("not orthonormal") == true, "\(scaled)")
        let mirrored = ConfigTestSupport.problems("source: { mount: { magnetometer: [[1, 0, 0], [0, 1, 0], [0, 0, -1]] } }")
        #expect(mirrored.first?.contains("source.mount.magnetometer") == true && mirrored.first?.contains("determinant") == true, "\(mirrored)")
        let shape = ConfigTestSupport.problems("source: { mount: { accel_gyro: [[1, 0], [0, 1]] } }")
        #expect(shape.first?.contains("3 rows of 3 numbers") == true, "\(shape)")
        let word = ConfigTestSupport.problems("source: { mount: { accel_gyro: [[1, 0, 0], [0, one, 0], [0, 0, 1]] } }")
        #expect(word.first?.contains("source.mount.accel_gyro[1][1]") == true, "\(word)")
    }

    @Test func badRemapsNameTheAxis() {
        let axis = ConfigTestSupport.problems("source: { mount: { accel_gyro: {x: -w, y: x, z: z} } }")
        #expect(axis.first?.contains("source.mount.accel_gyro.x") == true && axis.first?.contains("-x, -y or -z") == true, "\(axis)")
        let twice = ConfigTestSupport.problems("source: { mount: { accel_gyro: {x: x, y: x, z: z} } }")
        #expect(twice.first?.contains("twice") == true, "\(twice)")
        let missing = ConfigTestSupport.problems("source: { mount: { accel_gyro: {x: y, y: x} } }")
        #expect(missing.first?.contains("missing z") == true, "\(missing)")
        let key = ConfigTestSupport.problems("source: { mount: { accel: learned } }")
        #expect(key.first?.contains("source.mount.accel") == true && key.first?.contains("accel_gyro") == true, "\(key)")
        let word = ConfigTestSupport.problems("source: { mount: { accel_gyro: upside_down } }")
        #expect(word.first?.contains("not a mount") == true, "\(word)")
    }

    @Test func outputFrameIsAChoice() throws {
        #expect(try load("fusion: { output_frame: ned }").fusion.outputFrame == .ned)
        #expect(try load("fusion: {}").fusion.outputFrame == .coreMotion)
        let bad = ConfigTestSupport.problems("fusion: { output_frame: nwu }")
        #expect(bad.first?.contains("fusion.output_frame") == true && bad.first?.contains("core_motion, enu, ned") == true, "\(bad)")
    }

    @Test func aDamagedLearnedMountFailsTheSharedCheckNamingTheFile() throws {
        let dir = NSTemporaryDirectory() + "edgemotion-mount-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let c = try load("state_directory: \(dir)\nmqtt: { broker: mqtt://127.0.0.1:1883 }")
        try ConfigurationCheck.check(c, file: "t.yaml")          // no file yet: identity, fine
        let file = dir + "/edgemotion-mount.txt"
        let good = MountFile.encode(try SensorMount.learned(fromRestingSpecificForce: Vector3(0, 1, 9.7)),
                                    restingSpecificForce: Vector3(0, 1, 9.7), samples: 100)
        try good.write(toFile: file, atomically: true, encoding: .utf8)
        try ConfigurationCheck.check(c, file: "t.yaml")
        try String(good.dropLast(30)).write(toFile: file, atomically: true, encoding: .utf8)   // truncated
        do {
            try ConfigurationCheck.check(c, file: "t.yaml")
            Issue.record("a damaged learned mount passed the check")
        } catch {
            let text = error.diagnostics.map(\.description).joined(separator: "\n")
            #expect(text.contains(file) && text.contains("source.mount") && text.contains("learn it again"), "\(text)")
        }
        // A fixed accel_gyro and magnetometer never read the file.
        let fixed = try load("state_directory: \(dir)\nmqtt: { broker: mqtt://127.0.0.1:1883 }\nsource: { mount: { accel_gyro: identity } }")
        try ConfigurationCheck.check(fixed, file: "t.yaml")
    }

    @Test func theMotionPayloadInNEDForAFlatBoardFacingNorth() throws {
        // Flat, top to north: Core Motion NWU attitude is −90° about z (the right side faces east).
        let q = Quaternion(w: (0.5).squareRoot(), x: 0, y: 0, z: -(0.5).squareRoot())
        let m = DeviceMotion(timestamp: 1, attitude: Attitude(quaternion: q), referenceFrame: .xMagneticNorthZVertical,
                             rotationRate: RotationRate(Vector3(0, 0, 0.1)), gravity: Acceleration(Vector3(0, 0, -1)),
                             userAcceleration: Acceleration(Vector3(0, 0.5, 0)), magneticField: .unavailable,
                             heading: 0, gyroBias: .zero, restDetected: true, magneticDisturbance: false)
        var w = JSONWriter(capacity: 4096)
        let states = [m]
        states.withUnsafeBufferPointer { buf in
            MotionBatchEncoder.encode(buf.span, sequence: 0, interval: 0.01, clock: WallClockMapping(offsetNanos: 0, floorUTCNanos: .min),
                                      frame: .ned, into: &w)
        }
        let json = try #require(try JSONSerialization.jsonObject(with: Data(w.buffer)) as? [String: Any])
        #expect(json["output_frame"] as? String == "ned")
        let s = try #require((json["samples"] as? [[String: Any]])?.first)
        let quat = try #require(s["quaternion"] as? [Double])
        #expect(abs(abs(quat[0]) - 1) < 1e-6, "facing north, flat: the NED identity, got \(quat)")
        #expect(s["gravity"] as? [Double] == [0, 0, 1])                 // FRD: down is +z
        #expect(s["user_acceleration"] as? [Double] == [0.5, 0, 0])     // toward the top = forward
        #expect(s["rotation_rate"] as? [Double] == [0, 0, -0.1])        // counter-clockwise seen from above is −z (down)
        #expect(abs((s["yaw"] as? Double ?? 1)) < 1e-6)
    }
}
