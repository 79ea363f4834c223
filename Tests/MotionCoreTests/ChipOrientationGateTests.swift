import Testing
import MotionCore

/// `orientation` decided by the chip's 6D engine (`IMUSample.Flags.chipOrientation` with the
/// reported face): the same event as `OrientationDetector`'s after the same dwell, `fromChip`;
/// the software detector's own withheld while the chip decides, and the reference when it does not.
@Suite("Chip orientation gate")
struct ChipOrientationGateTests {
    static let faceUpForce = Vector3(0, 0, 9.81)
    static let portraitForce = Vector3(0, 9.81, 0)

    /// 100 Hz samples for `seconds`; `flags(i)` the chip flags of sample i (t = i / 100 s).
    func run(chip: Bool, seconds: Double, dwell: Double = 0.5, flags: (Int) -> IMUSample.Flags = { _ in [] },
             force: (Int) -> Vector3 = { _ in faceUpForce }) -> [MotionEvent] {
        var c = MotionEventConfiguration()
        c.enabled.insert(.orientation)
        c.chipOrientation = chip
        c.orientation.dwell = dwell
        var d = MotionEventDetectors(configuration: c, sampleRate: 100)
        var events: [MotionEvent] = []
        for i in 0..<Int(seconds * 100) {
            d.update(time: Double(i) / 100, specificForce: force(i), rotationRate: nil, chipFlags: flags(i)) { events.append($0) }
        }
        return events.filter { $0.type == .orientation }
    }

    @Test func theFaceFieldCarriesTheReportedFace() {
        // Bit 6 chipOrientation, face in bits 8…10: portrait is DeviceFace raw 3 → 0x340.
        #expect(IMUSample.Flags.chipOrientation(.portrait).rawValue == 0x340)
        #expect(IMUSample.Flags(rawValue: 0x340).chipFace == .portrait)
        #expect(IMUSample.Flags(rawValue: 0x300).chipFace == nil)        // face bits without the flag: no report
    }

    @Test func aReportedFaceHeldForTheDwellIsOneChipEvent() throws {
        // Reports: face up at 1.00 s, portrait at 3.00 s; dwell 0.5 s → events at 1.50 s
        // (unknown → face_up, onset 1.00) and 3.50 s (face_up → portrait, onset 3.00).
        let events = run(chip: true, seconds: 5, flags: {
            switch $0 {
            case 100: .chipOrientation(.faceUp)
            case 300: .chipOrientation(.portrait)
            default: []
            }
        })
        #expect(events.map(\.face) == [.faceUp, .portrait])
        #expect(events.map(\.previousFace) == [.unknown, .faceUp])
        #expect(events.map { ($0.time * 100).rounded() } == [150, 350])
        #expect(events.map { ($0.onset * 100).rounded() } == [100, 300])
        #expect(events.allSatisfy { $0.fromChip })
    }

    @Test func aChangeBackWithinTheDwellOrTheSameFaceAgainGivesNothing() {
        // Face up held (event at 0.60 s), then portrait at 2.00 s and face up again at 2.20 s
        // (before 2.50 s: cancelled), face up again at 4.00 s (already held): one event only.
        let events = run(chip: true, seconds: 6, flags: {
            switch $0 {
            case 10, 220, 400: .chipOrientation(.faceUp)
            case 200: .chipOrientation(.portrait)
            default: []
            }
        })
        #expect(events.map(\.face) == [.faceUp])
    }

    @Test func aReportBetweenFacesCancelsTheCandidate() {
        // Portrait reported at 1.00 s, then D6D_IA with no single position bit at 1.20 s (`.unknown`).
        let events = run(chip: true, seconds: 3, flags: {
            switch $0 {
            case 100: .chipOrientation(.portrait)
            case 120: .chipOrientation(.unknown)
            default: []
            }
        })
        #expect(events.isEmpty)
    }

    /// The board turns from face up to portrait at 2 s, with no chip report.
    static func turned(_ i: Int) -> Vector3 { i < 200 ? faceUpForce : portraitForce }

    @Test func whileTheChipDecidesTheSoftwareOrientationIsWithheldAndOtherwiseItIsTheReference() {
        let software = run(chip: false, seconds: 4, force: Self.turned)
        #expect(software.map(\.face) == [.faceUp, .portrait] && software.allSatisfy { !$0.fromChip })
        #expect(run(chip: true, seconds: 4, force: Self.turned).isEmpty)
        // Without the chip deciding, its reports are ignored.
        #expect(run(chip: false, seconds: 4, flags: { $0 == 300 ? .chipOrientation(.faceDown) : [] }).allSatisfy { !$0.fromChip })
    }
}
