import Testing
@testable import MotionCore

/// ENU and NED output, checked against poses written out by hand (axes named in words, not
/// produced by the conversion under test).
@Suite struct OutputFrameTests {
    let deg = Double.pi / 180

    /// The Core Motion attitude (board → NWU world) whose board axes point along the given
    /// NWU directions (the columns of the rotation matrix).
    func coreMotion(x: Vector3, y: Vector3, z: Vector3) -> Quaternion {
        RotationMatrix(m11: x.x, m12: y.x, m13: z.x, m21: x.y, m22: y.y, m23: z.y, m31: x.z, m32: y.z, m33: z.z).quaternion
    }

    func same(_ a: Quaternion, _ b: Quaternion, _ tol: Double = 1e-9) -> Bool {
        let d = abs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z)   // q and −q are one rotation
        return abs(d - 1) < tol
    }

    @Test func flatBoardFacingNorth() {
        // Flat, top (board y) to north, right (board x) to east. NWU: east = (0, −1, 0).
        let q = coreMotion(x: Vector3(0, -1, 0), y: Vector3(1, 0, 0), z: Vector3(0, 0, 1))
        // NED/FRD: forward north, right east, down down: the identity.
        #expect(same(OutputFrame.ned.attitude(q), .identity))
        // ENU/FLU: forward (north) is world y; a +90° turn about z from the identity (ROS: yaw 90°).
        let enu = OutputFrame.enu.attitude(q)
        #expect(same(enu, Quaternion(w: (0.5).squareRoot(), x: 0, y: 0, z: (0.5).squareRoot())))
        #expect(abs(OutputFrame.enu.eulerAngles(enu).yaw - 90 * deg) < 1e-9)
        // Gravity (Core Motion: board frame, g, −z when face up).
        #expect(OutputFrame.ned.vector(Vector3(0, 0, -1)) == Vector3(0, 0, 1))   // FRD: down is +z
        #expect(OutputFrame.enu.vector(Vector3(0, 0, -1)) == Vector3(0, 0, -1))  // FLU: up is +z
        #expect(OutputFrame.coreMotion.attitude(q) == q)
    }

    @Test func flatBoardFacingEastHasNEDYaw90() {
        // Top to east (NWU (0, −1, 0)), right to south (NWU (−1, 0, 0)).
        let q = coreMotion(x: Vector3(-1, 0, 0), y: Vector3(0, -1, 0), z: Vector3(0, 0, 1))
        let ned = OutputFrame.ned.attitude(q)
        let e = OutputFrame.ned.eulerAngles(ned)
        #expect(abs(e.yaw - 90 * deg) < 1e-9 && abs(e.pitch) < 1e-9 && abs(e.roll) < 1e-9)
        // ENU: facing east is yaw 0 (counter-clockwise from east).
        #expect(same(OutputFrame.enu.attitude(q), .identity))
    }

    @Test func noseUp30FacingNorth() {
        // Top tilted up 30° while facing north: top = (cos30, 0, sin30) NWU, right = east, face =
        // right × top = (−sin30, 0, cos30).
        let c = (30 * deg).cos, s = (30 * deg).sin
        let q = coreMotion(x: Vector3(0, -1, 0), y: Vector3(c, 0, s), z: Vector3(-s, 0, c))
        let ned = OutputFrame.ned.eulerAngles(OutputFrame.ned.attitude(q))
        #expect(abs(ned.pitch - 30 * deg) < 1e-9 && abs(ned.roll) < 1e-9 && abs(ned.yaw) < 1e-9)   // nose up is +pitch
        let enu = OutputFrame.enu.eulerAngles(OutputFrame.enu.attitude(q))
        #expect(abs(enu.pitch + 30 * deg) < 1e-9 && abs(enu.roll) < 1e-9 && abs(enu.yaw - 90 * deg) < 1e-9)  // FLU: nose up is −pitch
        // Gravity in board axes: the top points 30° up, so gravity has −sin30 along the top.
        let gravity = Vector3(0, -s, -c)
        let frd = OutputFrame.ned.vector(gravity)
        #expect(abs(frd.x + s) < 1e-12 && abs(frd.y) < 1e-12 && abs(frd.z - c) < 1e-12)   // forward component −sin30, down cos30
    }
}
