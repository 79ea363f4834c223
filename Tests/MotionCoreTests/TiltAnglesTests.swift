import Testing
@testable import MotionCore

/// `TiltDetector`'s roll and pitch follow Core Motion (`CMAttitude`): pitch about the device x
/// axis, positive when the top (+y) edge rises; roll about the device y axis, positive when the
/// right (+x) edge goes down. The truth is worked by hand from the rotation of each pose.
///
/// A resting accelerometer reads the specific force +g along "up"; in the sensor frame
/// up = Rᵀ·(0, 0, 1) for the attitude R (sensor → reference).
/// - Rx(θ) = [[1,0,0],[0,cos θ,−sin θ],[0,sin θ,cos θ]]: its third row gives up = (0, sin θ, cos θ);
///   the device's +y axis in the reference frame is R·(0,1,0) = (0, cos θ, sin θ), so the top edge
///   rises (z = sin θ > 0): Core Motion pitch +θ.
/// - Ry(θ) = [[cos θ,0,sin θ],[0,1,0],[−sin θ,0,cos θ]]: up = (−sin θ, 0, cos θ); the device's +x
///   axis is R·(1,0,0) = (cos θ, 0, −sin θ), so the right edge goes down: Core Motion roll +θ.
@Suite("Tilt angles follow Core Motion")
struct TiltAnglesTests {
    private let g = standardGravity

    /// Feeds a constant specific force (m/s², sensor frame) for 1 s at 100 Hz.
    private func resting(_ f: Vector3) -> TiltDetector {
        var d = TiltDetector(sampleRate: 100)
        for i in 0..<100 { d.update(specificForce: f, time: Double(i) / 100) { _ in } }
        return d
    }

    @Test func theTopEdgeRaised30DegreesAboutXIsPitchPlus30() {
        // Rx(30°): up = (0, sin 30°, cos 30°) = (0, 0.5, 0.866); specific force = g·up.
        let d = resting(Vector3(0, g * 0.5, g * 0.75.squareRoot()))
        #expect(abs(d.pitch - 30) < 0.01, "pitch \(d.pitch)")
        #expect(abs(d.roll) < 0.01, "roll \(d.roll)")
        #expect(abs(d.tilt - 30) < 0.01)
        // The top edge lowered instead: Rx(−30°), up = (0, −0.5, 0.866) → pitch −30°.
        #expect(abs(resting(Vector3(0, -g * 0.5, g * 0.75.squareRoot())).pitch + 30) < 0.01)
    }

    @Test func theRightEdgeLowered30DegreesAboutYIsRollPlus30() {
        // Ry(30°): up = (−sin 30°, 0, cos 30°) = (−0.5, 0, 0.866).
        let d = resting(Vector3(-g * 0.5, 0, g * 0.75.squareRoot()))
        #expect(abs(d.roll - 30) < 0.01, "roll \(d.roll)")
        #expect(abs(d.pitch) < 0.01, "pitch \(d.pitch)")
        // The right edge raised: Ry(−30°), up = (0.5, 0, 0.866) → roll −30°.
        #expect(abs(resting(Vector3(g * 0.5, 0, g * 0.75.squareRoot())).roll + 30) < 0.01)
    }

    @Test func upsideDownIsRoll180AndStandingOnTheBottomEdgeIsPitch90() {
        // Ry(180°): up = (−sin 180°, 0, cos 180°) = (0, 0, −1): roll ±180° (the same pose), pitch 0.
        let flipped = resting(Vector3(0, 0, -g))
        #expect(abs(abs(flipped.roll) - 180) < 0.01, "roll \(flipped.roll)")
        #expect(abs(flipped.pitch) < 0.01)
        #expect(abs(flipped.tilt - 180) < 0.01)
        // Rx(90°): up = (0, 1, 0), the board stands on its bottom edge, top up: pitch +90°.
        #expect(abs(resting(Vector3(0, g, 0)).pitch - 90) < 0.01)
    }

    /// `summary` (and the Home Assistant Roll/Pitch) publish `Attitude.roll`/`pitch` of the fused
    /// quaternion; `state/tilt` publishes `TiltDetector.roll`/`pitch` from the accelerometer. On
    /// the same resting pose, built as Core Motion's `Rz(yaw)·Rx(pitch)·Ry(roll)`, both give the
    /// angles the pose was built with (the heading does not matter to the accelerometer).
    @Test func stateTiltAndTheAttitudeAgreeOnTheSamePose() {
        for (roll, pitch, yaw) in [(20.0, 10.0, 50.0), (-35, 25, -120), (150, -40, 10), (-100, 60, 170)] {
            let pose = Attitude(roll: roll.radians, pitch: pitch.radians, yaw: yaw.radians)
            // The accelerometer reads up (reference +z) in the sensor frame, times g.
            let d = resting(pose.quaternion.inverseRotate(Vector3(0, 0, g)))
            #expect(abs(d.roll - roll) < 0.01 && abs(d.pitch - pitch) < 0.01,
                    "pose roll \(roll)° pitch \(pitch)°: state/tilt roll \(d.roll)° pitch \(d.pitch)°")
            #expect(abs(pose.roll.degrees - roll) < 0.01 && abs(pose.pitch.degrees - pitch) < 0.01,
                    "summary's angles of the same pose")
        }
    }
}
