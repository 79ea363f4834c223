import Testing
@testable import MotionCore

/// Learning the mount from a resting reading: the board lies still in its final place, the
/// averaged specific force becomes board +z; anything that is not rest is refused.
@Suite struct MountLearnerTests {
    let g = 9.80665

    /// Deterministic noise in [-a, a] (a small LCG; not a formula of the code under test).
    struct Noise {
        var state: UInt64 = 12345
        mutating func next(_ a: Double) -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return (Double(state >> 11) / Double(1 << 53) * 2 - 1) * a
        }
    }

    @Test func tiltedBoardAtRestLearnsTheRotationToUp() throws {
        // The board sits 25° about its x axis, by hand: gravity's reaction reads g·(0, sin25°, cos25°).
        let a = 25.0 * .pi / 180
        let truth = Vector3(0, g * a.sin, g * a.cos)
        var noise = Noise()
        var learner = MountLearner(samples: 200)
        for _ in 0..<200 {
            learner.add(specificForce: truth + Vector3(noise.next(0.05), noise.next(0.05), noise.next(0.05)),
                        rotationRate: Vector3(0.01 + noise.next(0.002), -0.004, noise.next(0.002)))   // a bias, not motion
        }
        let r = try learner.result().get()
        let up = r.mount.apply(truth)
        #expect(abs(up.x) < 0.02 && abs(up.y) < 0.02 && abs(up.z - g) < 0.01)
        // Rotating about x only: the x axis is untouched.
        #expect(abs(r.mount.matrix.a11 - 1) < 1e-3)
        #expect(r.samples == 200)
    }

    @Test func movingBoardIsRefused() {
        var learner = MountLearner(samples: 100)
        for k in 0..<100 {   // carried: ±1 m/s² sway at 2 Hz, sampled at 100 Hz
            let s = (2 * .pi * 2 * Double(k) / 100).sin
            learner.add(specificForce: Vector3(s, 0, g), rotationRate: .zero)
        }
        guard case .failure(.moving) = learner.result() else { Issue.record("a swaying board was accepted"); return }
    }

    @Test func turningBoardIsRefusedByTheGyroscope() {
        var learner = MountLearner(samples: 100)
        for k in 0..<100 {   // accelerometer still, but the board turns back and forth at 0.5 rad/s
            learner.add(specificForce: Vector3(0, 0, g), rotationRate: Vector3(0, 0, 0.5 * (Double(k) / 5).sin))
        }
        guard case .failure(.moving(_, let gyro?)) = learner.result() else { Issue.record("a turning board was accepted"); return }
        #expect(gyro > 0.3)
    }

    @Test func freeFallAndTooFewSamplesAreRefused() {
        var falling = MountLearner(samples: 10)
        for _ in 0..<10 { falling.add(specificForce: Vector3(0, 0, 0.5), rotationRate: nil) }
        guard case .failure(.notGravity) = falling.result() else { Issue.record("free fall accepted"); return }
        var short = MountLearner(samples: 10)
        short.add(specificForce: Vector3(0, 0, g), rotationRate: nil)
        #expect(short.result() == .failure(.tooFewSamples(got: 1, wanted: 10)))
        #expect(MountLearner(samples: 5).result() == .failure(.noAccelerometer))
        var broken = MountLearner(samples: 2)
        broken.add(specificForce: Vector3(.nan, 0, g), rotationRate: nil)
        broken.add(specificForce: Vector3(0, 0, g), rotationRate: nil)
        guard case .failure = broken.result() else { Issue.record("NaN accepted"); return }
    }
}

@Suite struct MountFileTests {
    @Test func roundTripsAndRejectsDamage() throws {
        let m = try SensorMount(remapX: SignedAxis(.y, negated: true), y: SignedAxis(.x), z: SignedAxis(.z))
        let text = MountFile.encode(m, restingSpecificForce: Vector3(0, 0, 9.8), samples: 200)
        #expect(try MountFile.decode(text, source: "m.txt") == m)
        // One digit changed: the checksum no longer matches.
        let damaged = text.replacing("rotation = 0.0 -1.0", with: "rotation = 0.0 -2.0")
        #expect(damaged != text)
        #expect(throws: MountFileError.self) { try MountFile.decode(damaged, source: "m.txt") }
        #expect(throws: MountFileError.self) { try MountFile.decode(String(text.prefix(40)), source: "m.txt") }
        #expect(throws: MountFileError.self) { try MountFile.decode("", source: "m.txt") }
    }

    @Test func aReflectionWithAValidChecksumIsRejectedAtItsLine() {
        var body = "format = edgemotion-mount\nversion = 1\nrotation = 1 0 0 0 1 0 0 0 -1\n"
        body = KeyValueFileText.sealed(body)
        do {
            _ = try MountFile.decode(body, source: "m.txt")
            Issue.record("a reflection was accepted")
        } catch {
            #expect(error.line == 3)
            #expect(error.description.contains("m.txt:3"))
        }
    }
}
