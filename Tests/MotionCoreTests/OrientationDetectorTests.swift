import MotionCore
import Testing

/// The software 6D orientation: hand-written poses (gravity vectors written out for each face,
/// tilts just inside and outside each threshold's cone), the dwell, and the dead band between
/// cones that keeps a face from chattering.
@Suite("Orientation detector")
struct OrientationDetectorTests {
    static let g = 9.80665

    /// Events from holding each pose (unit vector of the up direction, board axes) for its
    /// seconds, at 100 Hz, one sample every 0.01 s from t = 0.
    static func run(_ poses: [(up: Vector3, seconds: Double)], threshold: Double = 60, dwell: Double = 0.5) -> [MotionEvent] {
        var c = OrientationConfiguration()
        c.threshold = threshold
        c.dwell = dwell
        var d = OrientationDetector(configuration: c, sampleRate: 100)
        var events: [MotionEvent] = []
        var i = 0
        for p in poses {
            let n = Int((p.seconds * 100).rounded())
            for _ in 0..<n {
                d.update(specificForce: p.up * g, time: Double(i) / 100) { events.append($0) }
                i += 1
            }
        }
        return events
    }

    /// Each face from gravity straight along its axis (specific force +1 g on the axis that
    /// points up): one event at t = 0.5 s (the dwell), onset 0, previous `unknown`.
    @Test(arguments: [
        (Vector3(0, 0, 1), DeviceFace.faceUp), (Vector3(0, 0, -1), .faceDown),
        (Vector3(0, 1, 0), .portrait), (Vector3(0, -1, 0), .portraitUpsideDown),
        (Vector3(1, 0, 0), .landscapeLeft), (Vector3(-1, 0, 0), .landscapeRight),
    ])
    func eachFaceFromItsAxis(up: Vector3, face: DeviceFace) throws {
        let events = Self.run([(up, 2)])
        #expect(events.count == 1)
        let e = try #require(events.first)
        #expect(e.type == .orientation && e.face == face && e.previousFace == .unknown)
        #expect(abs(e.time - 0.5) < 1e-9 && abs(e.onset) < 1e-9)
        #expect(!e.fromChip)
    }

    /// Tilts 1° inside and 1° outside each threshold's cone (half-angle 90° − threshold), tilted
    /// from +z towards +x: (sin a, 0, cos a). Inside gives face_up, outside (in the dead band,
    /// no axis above sin(threshold)) gives no face at all.
    @Test(arguments: [
        // threshold, inside (a = cone − 1°), outside (a = cone + 1°); sin θ: 0.76604, 0.86603, 0.93969, 0.98481
        (50.0, Vector3(0.62932, 0, 0.77715), Vector3(0.65606, 0, 0.75471)),   // 39°, 41°
        (60.0, Vector3(0.48481, 0, 0.87462), Vector3(0.51504, 0, 0.85717)),   // 29°, 31°
        (70.0, Vector3(0.32557, 0, 0.94552), Vector3(0.35837, 0, 0.93358)),   // 19°, 21°
        (80.0, Vector3(0.15643, 0, 0.98769), Vector3(0.19081, 0, 0.98163)),   // 9°, 11°
    ])
    func justInsideAndJustOutsideTheThreshold(threshold: Double, inside: Vector3, outside: Vector3) {
        let inEvents = Self.run([(inside, 2)], threshold: threshold)
        #expect(inEvents.map(\.face) == [.faceUp], "threshold \(threshold)°")
        #expect(Self.run([(outside, 2)], threshold: threshold).isEmpty, "threshold \(threshold)°")
        // The same tilts towards −y around −x (landscape_right): (−cos a, −sin a, 0).
        let side = Vector3(-inside.z, -inside.x, 0), sideOut = Vector3(-outside.z, -outside.x, 0)
        #expect(Self.run([(side, 2)], threshold: threshold).map(\.face) == [.landscapeRight])
        #expect(Self.run([(sideOut, 2)], threshold: threshold).isEmpty)
    }

    /// Face up, then through the dead band (45° between +z and +y: no face) to 61° from +z
    /// (+y reads cos 29° = 0.87462 > sin 60°): one change face_up → portrait, its onset when
    /// gravity entered the portrait cone (t = 4), decided 0.5 s later; back to the dead band
    /// keeps portrait.
    @Test func theDeadBandKeepsTheFaceAndAChangeNeedsTheNextCone() {
        let events = Self.run([(Vector3(0, 0, 1), 2), (Vector3(0, 0.70711, 0.70711), 2),
                               (Vector3(0, 0.87462, 0.48481), 2), (Vector3(0, 0.70711, 0.70711), 2)],
                              dwell: 0.5)
        #expect(events.map(\.face) == [.faceUp, .portrait])
        #expect(events.map(\.previousFace) == [.unknown, .faceUp])
        let change = events.last!
        // The 2 Hz low-pass delays the crossing of sin 60° after the step at t = 4 by under 0.3 s.
        #expect(change.onset > 4 && change.onset < 4.3, "onset \(change.onset)")
        #expect(abs(change.time - change.onset - 0.5) < 0.005)
    }

    /// Gravity swinging between the portrait cone (29° from +y) and the dead band (45°) every
    /// 0.3 s, shorter than the 0.5 s dwell: the board stays face up, no chatter.
    @Test func aSwingShorterThanTheDwellChangesNothing() {
        var poses: [(up: Vector3, seconds: Double)] = [(Vector3(0, 0, 1), 2)]
        for _ in 0..<10 { poses += [(Vector3(0, 0.87462, 0.48481), 0.3), (Vector3(0, 0.70711, 0.70711), 0.3)] }
        #expect(Self.run(poses).map(\.face) == [.faceUp])
    }

    /// Held 0.4 s (< 0.5 s dwell) from the start: nothing; 0.6 s: the face.
    @Test func theDwell() {
        #expect(Self.run([(Vector3(0, -1, 0), 0.4), (Vector3(0.70711, 0, 0.70711), 2)]).isEmpty)
        #expect(Self.run([(Vector3(0, -1, 0), 0.6)]).map(\.face) == [.portraitUpsideDown])
    }

    /// A falling board (0.05 g) has no face: gravity is not normalised, as the chip's axis
    /// comparison does not.
    @Test func aFallingBoardHasNoFace() {
        #expect(Self.run([(Vector3(0, 0, 0.05), 2)]).isEmpty)
    }

    /// Through `MotionEventDetectors`: off by default, reported when enabled.
    @Test func offByDefaultAndOnWhenEnabled() {
        func events(_ c: MotionEventConfiguration) -> [MotionEvent] {
            var d = MotionEventDetectors(configuration: c, sampleRate: 100)
            var out: [MotionEvent] = []
            for i in 0..<300 {
                let up = i < 100 ? Vector3(0, 0, 1) : Vector3(1, 0, 0)
                d.update(time: Double(i) / 100, specificForce: up * Self.g, rotationRate: nil) { if $0.type == .orientation { out.append($0) } }
            }
            return out
        }
        var c = MotionEventConfiguration()
        #expect(!c.enabled.contains(.orientation))
        #expect(events(c).isEmpty)
        c.enabled.insert(.orientation)
        let e = events(c)
        #expect(e.map(\.face) == [.faceUp, .landscapeLeft])
        #expect(e.map(\.previousFace) == [.unknown, .faceUp])
    }

    @Test func namesAndValidation() {
        #expect(DeviceFace.allCases.map(\.name) == ["unknown", "face_up", "face_down", "portrait", "portrait_upside_down",
                                                     "landscape_left", "landscape_right"])
        #expect(MotionEventType(name: "orientation") == .orientation)
        var c = MotionEventConfiguration()
        c.orientation.threshold = 65
        #expect(c.validationError()?.contains("orientation") == true)
    }
}
