import Testing
@testable import MotionCore

/// Named physical poses of a device at rest, each with its attitude written out by hand from
/// Core Motion's documented conventions, checked in every reference frame.
///
/// Conventions (Core Motion's): device x to the right of the screen, y to its top, z out of the
/// screen. `xMagneticNorthZVertical` / `xTrueNorthZVertical`: x north, y west, z up (NWU), so a
/// device lying flat with its x axis to north *is* the frame: identity, yaw 0. The attitude
/// quaternion turns device-frame vectors into the reference frame. Euler angles: pitch about the
/// device x axis (positive: top edge up), roll about the device y axis (positive: right edge
/// down), yaw about the vertical (positive: counter-clockwise seen from above). Heading: the
/// compass direction the device's top (y) points, 0–360° clockwise from north (flat, x to north
/// → the top points west → 270°); negative in the arbitrary frames (Core Motion: invalid).
///
/// The sensor readings are the dot products of each device axis (given as a direction in
/// north-west-up words) with "up" and with the earth field: no quaternion code is involved in
/// making them, and the expected values below are not computed from the estimator's formulas.
@Suite("Reference-frame poses: attitude, Euler angles and heading written out by hand")
struct ReferenceFramePoseTests {
    /// A device at rest. Axes are unit vectors in north-west-up coordinates.
    struct Pose: CustomStringConvertible, Sendable {
        var name: String
        var x: Vector3
        var y: Vector3
        var z: Vector3
        /// Expected attitude in a north frame (w, x, y, z), sign-free.
        var quaternion: (Double, Double, Double, Double)
        /// Degrees; `nil` where the angle is undefined (pitch ±90°: roll and yaw share one axis).
        var roll: Double?
        var pitch: Double
        var yaw: Double?
        /// Degrees clockwise from north of the device's top; `nil` with the top vertical.
        var heading: Double?
        var description: String { name }
    }

    static let h = 0.5.squareRoot()
    static let north = Vector3(1, 0, 0), south = Vector3(-1, 0, 0)
    static let west = Vector3(0, 1, 0), east = Vector3(0, -1, 0)
    static let up = Vector3(0, 0, 1), down = Vector3(0, 0, -1)

    static let poses: [Pose] = [
        // Lying flat, screen up, x to north: the frame itself. Top points west.
        Pose(name: "flat, x to north", x: north, y: west, z: up,
             quaternion: (1, 0, 0, 0), roll: 0, pitch: 0, yaw: 0, heading: 270),
        // Flat, x to east: turned 90° clockwise seen from above (yaw −90°); the top points north.
        Pose(name: "flat, x to east", x: east, y: north, z: up,
             quaternion: (h, 0, 0, -h), roll: 0, pitch: 0, yaw: -90, heading: 0),
        // Flat, x to west: yaw +90°; the top points south.
        Pose(name: "flat, x to west", x: west, y: south, z: up,
             quaternion: (h, 0, 0, h), roll: 0, pitch: 0, yaw: 90, heading: 180),
        // Flat, x to south: yaw 180°; the top points east.
        Pose(name: "flat, x to south", x: south, y: east, z: up,
             quaternion: (0, 0, 0, 1), roll: 0, pitch: 0, yaw: 180, heading: 90),
        // Flat, x to north-east (yaw −45°, cos 22.5°, −sin 22.5° about z); the top points north-west.
        Pose(name: "flat, x to north-east", x: Vector3(h, -h, 0), y: Vector3(h, h, 0), z: up,
             quaternion: (0.9238795325112867, 0, 0, -0.3826834323650898), roll: 0, pitch: 0, yaw: -45, heading: 315),
        // Standing on its left edge (x up), top to north, screen facing west: roll −90°, then
        // yaw −90°; a 120° turn about −(1,1,1) (x→z, y→x, z→y).
        Pose(name: "on its left edge, top to north", x: up, y: north, z: west,
             quaternion: (0.5, -0.5, -0.5, -0.5), roll: -90, pitch: 0, yaw: -90, heading: 0),
        // Standing on its right edge (x down), top to north, screen facing east: roll +90°,
        // yaw −90°.
        Pose(name: "on its right edge, top to north", x: down, y: north, z: east,
             quaternion: (0.5, 0.5, 0.5, -0.5), roll: 90, pitch: 0, yaw: -90, heading: 0),
        // Top raised 30° from flat, x to north: pitch +30° (cos 15°, sin 15° about x); the top
        // still points west.
        Pose(name: "nose up 30°, x to north", x: north, y: Vector3(0, 0.8660254037844386, 0.5),
             z: Vector3(0, -0.5, 0.8660254037844386),
             quaternion: (0.9659258262890683, 0.25881904510252074, 0, 0), roll: 0, pitch: 30, yaw: 0, heading: 270),
        // Standing on its bottom edge (top up), x to north, screen facing east: pitch +90°.
        Pose(name: "nose up, x to north", x: north, y: up, z: east,
             quaternion: (h, h, 0, 0), roll: nil, pitch: 90, yaw: nil, heading: nil),
        // Screen down, x to north: a half turn about x; the top points east. Roll 180°, yaw 180°.
        Pose(name: "upside down, x to north", x: north, y: east, z: down,
             quaternion: (0, 1, 0, 0), roll: 180, pitch: 0, yaw: 180, heading: 90),
    ]

    /// Earth field in magnetic north-west-up, µT (20 µT north, 40 µT down).
    static let magneticField = Vector3(20, 0, -40)

    func dot(_ a: Vector3, _ b: Vector3) -> Double { a.x * b.x + a.y * b.y + a.z * b.z }

    /// The readings of a device at rest in `pose` (axes relative to the frame's north) when the
    /// earth field is `field` in the same north-west-up coordinates.
    func sample(_ pose: Pose, field: Vector3, k: Int) -> IMUSample {
        let g = standardGravity
        let acc = Vector3(dot(pose.x, Self.up) * g, dot(pose.y, Self.up) * g, dot(pose.z, Self.up) * g)
        let mag = Vector3(dot(pose.x, field), dot(pose.y, field), dot(pose.z, field))
        return IMUSample(timestampNanos: UInt64(k + 1) * 10_000_000, sequence: UInt64(k),
                         specificForce: acc, rotationRate: .zero, magneticField: mag, contents: .all)
    }

    /// 30 s at rest at 100 Hz, the last device motion.
    func settle(_ pose: Pose, frame: AttitudeReferenceFrame, declination: Double? = nil, field: Vector3) -> DeviceMotion {
        var estimator = DeviceMotionEstimator<DefaultAttitudeFilter>(samplePeriod: 0.01, referenceFrame: frame,
                                                                     declination: declination)
        var last: DeviceMotion?
        for k in 0..<3000 { last = estimator.update(sample(pose, field: field, k: k)) }
        return last!
    }

    /// Smallest difference of two angles, degrees.
    func angle(_ a: Double, _ b: Double) -> Double {
        var d = (a - b).truncatingRemainder(dividingBy: 360)
        if d > 180 { d -= 360 }
        if d < -180 { d += 360 }
        return abs(d)
    }

    /// Angle between the estimate and the expected attitude, degrees (q and −q are one attitude).
    func attitudeError(_ q: Quaternion, _ e: (Double, Double, Double, Double)) -> Double {
        let d = abs(q.w * e.0 + q.x * e.1 + q.y * e.2 + q.z * e.3)
        return 2 * min(1, d).acos.degrees
    }

    func expectNorthFrame(_ m: DeviceMotion, _ pose: Pose, frame: AttitudeReferenceFrame) {
        #expect(m.referenceFrame == frame, "\(pose): frame")
        let q = m.attitude.quaternion
        #expect(attitudeError(q, pose.quaternion) < 1,
                "\(pose): quaternion \(q) expected \(pose.quaternion)")
        #expect(abs(m.attitude.pitch.degrees - pose.pitch) < 1, "\(pose): pitch \(m.attitude.pitch.degrees)")
        if let roll = pose.roll {
            #expect(angle(m.attitude.roll.degrees, roll) < 1, "\(pose): roll \(m.attitude.roll.degrees)")
        }
        if let yaw = pose.yaw {
            #expect(angle(m.attitude.yaw.degrees, yaw) < 1, "\(pose): yaw \(m.attitude.yaw.degrees)")
        }
        if let heading = pose.heading {
            #expect(m.heading >= 0 && m.heading < 360)
            #expect(angle(m.heading, heading) < 1, "\(pose): heading \(m.heading)")
        }
        expectGravity(m, pose)
    }

    /// Gravity in g, device frame: −1 g along the device's own "up" components.
    func expectGravity(_ m: DeviceMotion, _ pose: Pose) {
        let g = m.gravity
        #expect(abs(g.x + dot(pose.x, Self.up)) < 0.02 && abs(g.y + dot(pose.y, Self.up)) < 0.02
                && abs(g.z + dot(pose.z, Self.up)) < 0.02, "\(pose): gravity \(g)")
    }

    @Test("xMagneticNorthZVertical: attitude relative to magnetic north-west-up", arguments: poses)
    func magneticNorth(_ pose: Pose) {
        let m = settle(pose, frame: .xMagneticNorthZVertical, field: Self.magneticField)
        expectNorthFrame(m, pose, frame: .xMagneticNorthZVertical)
    }

    @Test("xTrueNorthZVertical: attitude relative to true north, declination 10° east", arguments: poses)
    func trueNorth(_ pose: Pose) {
        // The pose's axes are relative to true north; magnetic north lies 10° east of it, i.e.
        // at (cos 10°, −sin 10°) in true north-west coordinates.
        let field = Vector3(20 * 0.984807753012208, -20 * 0.17364817766693033, -40)
        let m = settle(pose, frame: .xTrueNorthZVertical, declination: 10.0.radians, field: field)
        expectNorthFrame(m, pose, frame: .xTrueNorthZVertical)
    }

    @Test("xTrueNorthZVertical without a declination: magnetic north, and the frame says so", arguments: poses)
    func trueNorthWithoutDeclination(_ pose: Pose) {
        let m = settle(pose, frame: .xTrueNorthZVertical, field: Self.magneticField)
        expectNorthFrame(m, pose, frame: .xMagneticNorthZVertical)
    }

    @Test("Arbitrary frames: roll, pitch and gravity as the pose, no heading", arguments: poses)
    func arbitrary(_ pose: Pose) {
        for frame in [AttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical] {
            let m = settle(pose, frame: frame, field: Self.magneticField)
            #expect(m.referenceFrame == frame)
            #expect(m.heading < 0, "\(pose) \(frame): heading \(m.heading) must be negative (invalid)")
            #expect(abs(m.attitude.pitch.degrees - pose.pitch) < 1, "\(pose) \(frame): pitch \(m.attitude.pitch.degrees)")
            if let roll = pose.roll {
                #expect(angle(m.attitude.roll.degrees, roll) < 1, "\(pose) \(frame): roll \(m.attitude.roll.degrees)")
            }
            // The device's z axis seen in the frame does not depend on the arbitrary x: its
            // vertical component is z·up whatever the yaw.
            let zUp = m.attitude.quaternion.rotate(Vector3(0, 0, 1)).z
            #expect(abs(zUp - dot(pose.z, Self.up)) < 0.02, "\(pose) \(frame): z·up \(zUp)")
            expectGravity(m, pose)
        }
    }

    @Test("In a magnetic shield (the magnetometer reads its own noise, < 1 µT) north frames have no heading",
          arguments: [AttitudeReferenceFrame.xMagneticNorthZVertical, .xTrueNorthZVertical])
    func shieldedMagnetometerHasNoHeading(_ frame: AttitudeReferenceFrame) {
        let pose = Self.poses[0]   // flat, x to north
        let m = settle(pose, frame: frame, declination: 10.0.radians, field: Vector3(0.3, -0.2, 0.4))
        #expect(m.heading < 0, "heading \(m.heading) from a 0.5 µT field")
        #expect(m.magneticField.accuracy == .uncalibrated)
        // Tilt still comes from gravity: flat is roll 0, pitch 0, gravity −1 g on z.
        #expect(abs(m.attitude.roll.degrees) < 1 && abs(m.attitude.pitch.degrees) < 1)
        expectGravity(m, pose)
    }

    @Test("The hand-written quaternions turn the device axes onto the pose's directions")
    func handWrittenQuaternionsAreConsistent() {
        for pose in Self.poses {
            let q = Quaternion(w: pose.quaternion.0, x: pose.quaternion.1, y: pose.quaternion.2, z: pose.quaternion.3)
            for (axis, expected) in [(Vector3(1, 0, 0), pose.x), (Vector3(0, 1, 0), pose.y), (Vector3(0, 0, 1), pose.z)] {
                let r = q.rotate(axis)
                #expect(abs(r.x - expected.x) < 1e-9 && abs(r.y - expected.y) < 1e-9 && abs(r.z - expected.z) < 1e-9,
                        "\(pose): \(axis) → \(r), expected \(expected)")
            }
        }
    }
}
