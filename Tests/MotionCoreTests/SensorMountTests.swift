import Testing
@testable import MotionCore

@Suite struct SensorMountTests {
    let g = 9.80665

    @Test func remapMinusYWrittenOut() throws {
        // x: -y, y: x, z: z — board x is chip −y, board y is chip x (a quarter turn about z).
        let m = try SensorMount(remapX: SignedAxis(.y, negated: true), y: SignedAxis(.x), z: SignedAxis(.z))
        let out = m.apply(Vector3(1, 2, 3))
        #expect(out == Vector3(-2, 1, 3))
    }

    @Test func boardOnItsSideMapsGravityToUp() throws {
        // Chip mounted with its +x axis pointing up: at rest it reads +g on x.
        // Board z = chip x, board x = chip y, board y = chip z (proper: det +1).
        let m = try SensorMount(remapX: SignedAxis(.y), y: SignedAxis(.z), z: SignedAxis(.x))
        let out = m.apply(Vector3(g, 0, 0))
        #expect(abs(out.x) < 1e-12 && abs(out.y) < 1e-12 && abs(out.z - g) < 1e-12)
    }

    @Test func reflectionRejected() {
        #expect(throws: SensorMountError.notProperRotation(determinant: -1)) {
            try SensorMount(remapX: SignedAxis(.y), y: SignedAxis(.x), z: SignedAxis(.z))
        }
        #expect(throws: SensorMountError.notProperRotation(determinant: -1)) {
            try SensorMount(matrix: Matrix3(1, 0, 0, 0, 1, 0, 0, 0, -1))
        }
    }

    @Test func nonOrthonormalAndRepeatedAxisRejected() {
        #expect(throws: SensorMountError.self) { try SensorMount(matrix: Matrix3(2, 0, 0, 0, 1, 0, 0, 0, 0.5)) }
        #expect(throws: SensorMountError.repeatedAxis) {
            try SensorMount(remapX: SignedAxis(.x), y: SignedAxis(.x, negated: true), z: SignedAxis(.z))
        }
    }

    @Test func remapParsing() {
        #expect(SignedAxis(parsing: "-y") == SignedAxis(.y, negated: true))
        #expect(SignedAxis(parsing: "z") == SignedAxis(.z))
        #expect(SignedAxis(parsing: "w") == nil)
    }

    @Test func learnFromRestOnTiltedBoard() throws {
        // Board tilted 30° about x then 20° about y, by hand: resting specific force in chip axes.
        let a = 30.0 * .pi / 180, b = 20.0 * .pi / 180
        let f = Vector3(-g * b.sin, g * a.sin * b.cos, g * a.cos * b.cos)
        let m = try SensorMount.learned(fromRestingSpecificForce: f)
        let up = m.apply(f)
        let angle = (up.z / up.norm).acos * 180 / .pi
        #expect(angle < 0.5)
        #expect(abs(m.matrix.determinant - 1) < 1e-9)
        #expect(throws: SensorMountError.noGravity) { try SensorMount.learned(fromRestingSpecificForce: .zero) }
        // Upside-down board.
        let flipped = try SensorMount.learned(fromRestingSpecificForce: Vector3(0, 0, -g))
        #expect(abs(flipped.apply(Vector3(0, 0, -g)).z - g) < 1e-12)
    }
}
