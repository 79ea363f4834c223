import Testing
@testable import MotionCore

@Suite("Quaternion maths")
struct QuaternionTests {
    func close(_ a: Vector3, _ b: Vector3, _ tol: Double = 1e-12) -> Bool { (a - b).norm < tol }

    @Test func productOfQuarterTurnsAboutZIsAHalfTurn() {
        let q = Quaternion.aboutZ(.pi / 2) * Quaternion.aboutZ(.pi / 2)
        #expect(abs(q.w) < 1e-12)
        #expect(abs(abs(q.z) - 1) < 1e-12)
    }

    @Test func hamiltonProductMatchesHandComputedValue() {
        // (1 + 2i + 3j + 4k)(5 + 6i + 7j + 8k) = −60 + 12i + 30j + 24k
        let a = Quaternion(w: 1, x: 2, y: 3, z: 4), b = Quaternion(w: 5, x: 6, y: 7, z: 8)
        #expect(a * b == Quaternion(w: -60, x: 12, y: 30, z: 24))
    }

    @Test func rotatingXByQuarterTurnAboutZGivesY() {
        #expect(close(Quaternion.aboutZ(.pi / 2).rotate(Vector3(1, 0, 0)), Vector3(0, 1, 0)))
        #expect(close(Quaternion.aboutX(.pi / 2).rotate(Vector3(0, 1, 0)), Vector3(0, 0, 1)))
        #expect(close(Quaternion.aboutY(.pi / 2).rotate(Vector3(0, 0, 1)), Vector3(1, 0, 0)))
    }

    @Test func inverseRotateUndoesRotate() {
        let q = Quaternion(axis: Vector3(1, -2, 0.5), angle: 1.234)
        let v = Vector3(0.3, -0.7, 2)
        #expect(close(q.inverseRotate(q.rotate(v)), v))
    }

    @Test func rotationMatrixAgreesWithQuaternionRotation() {
        let q = Quaternion(axis: Vector3(0.2, 1, -0.4), angle: 2.1)
        let v = Vector3(1, 2, 3)
        #expect(close(RotationMatrix(q) * v, q.rotate(v)))
    }

    @Test func matrixToQuaternionRoundTrips() {
        for angle in [0.1, 1.0, 2.5, 3.1] {
            let q = Quaternion(axis: Vector3(1, 1, -2), angle: angle)
            let back = RotationMatrix(q).quaternion
            // q and −q are the same rotation.
            let d = min((Vector3(back.x, back.y, back.z) - q.vector).norm + abs(back.w - q.w),
                        (Vector3(back.x, back.y, back.z) + q.vector).norm + abs(back.w + q.w))
            #expect(d < 1e-9)
        }
    }

    @Test func handComputedMatrixOfQuarterTurnAboutZ() {
        let r = RotationMatrix(Quaternion.aboutZ(.pi / 2))
        #expect(abs(r.m11) < 1e-12 && abs(r.m12 + 1) < 1e-12 && abs(r.m21 - 1) < 1e-12 && abs(r.m33 - 1) < 1e-12)
    }

    @Test(arguments: [(0.3, -0.2, 1.0), (-1.2, 0.7, -2.5), (2.0, 1.2, 0.1)])
    func eulerAnglesRoundTripThroughCoreMotionOrder(roll: Double, pitch: Double, yaw: Double) {
        let a = Attitude(roll: roll, pitch: pitch, yaw: yaw)
        #expect(abs(a.roll - roll) < 1e-9)
        #expect(abs(a.pitch - pitch) < 1e-9)
        #expect(abs(a.yaw - yaw) < 1e-9)
    }

    @Test func pitchIsRotationAboutDeviceX() {
        // Tilting the top edge (+y) up by 30° is a positive pitch in Core Motion.
        let a = Attitude(quaternion: Quaternion.aboutX(30.0.radians))
        #expect(abs(a.pitch - 30.0.radians) < 1e-12)
        #expect(abs(a.roll) < 1e-12 && abs(a.yaw) < 1e-12)
    }
}
