import CMallocCounter
import MotionCore
import Sensors
import Testing

/// The motion-event detectors run per sample on the processing thread: no heap allocation,
/// including samples where events fire and vibration windows end.
@Suite("Motion event allocations")
struct MotionEventAllocationTests {
    @Test func detectorsDoNotAllocatePerSampleIncludingEventsAndWindows() throws {
        var c = MotionEventConfiguration()
        c.tiltThresholds = [TiltThreshold(name: "door", onAbove: 60, offBelow: 20)]
        c.vibration.bands = [VibrationBand(name: "motor", low: 30, high: 80)]
        c.enabled.insert(.fall)
        var detectors = MotionEventDetectors(configuration: c, sampleRate: 400)
        // The tap scenario: taps, double taps, shocks, motion and stationary, vibration changes.
        let samples = try #require(EventScenario(named: "tap")).samples
        for s in samples.prefix(4000) {
            detectors.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: s.rotationRate) { _ in }
        }
        var events = 0
        let before = mc_thread_allocations()
        for i in 4000..<samples.count {
            let s = samples[i]
            detectors.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: s.rotationRate) { _ in events += 1 }
        }
        let allocations = mc_thread_allocations() - before
        #expect(events > 50, "events fired during the measurement (\(events))")
        #expect(allocations == 0, "\(allocations) heap allocations")
    }

    /// With the chip's motion engine deciding `motion` (flags from INT_STATUS.MOT_INT), the gate
    /// and the withheld software `motion` allocate nothing either, including when chip events fire.
    @Test func chipDecidedMotionDoesNotAllocatePerSample() throws {
        var c = MotionEventConfiguration()
        c.chipMotion = true
        var detectors = MotionEventDetectors(configuration: c, sampleRate: 400)
        let samples = try #require(EventScenario(named: "tap")).samples
        // Flag bursts of 0.5 s every 5 s (past stationary_s: each burst is a new episode).
        func flagged(_ t: Double) -> Bool { t.truncatingRemainder(dividingBy: 5) < 0.5 }
        for s in samples.prefix(4000) {
            detectors.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: s.rotationRate,
                             chipFlags: flagged(s.timestamp) ? .chipMotion : []) { _ in }
        }
        var chipEvents = 0
        let before = mc_thread_allocations()
        for i in 4000..<samples.count {
            let s = samples[i]
            detectors.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: s.rotationRate,
                             chipFlags: flagged(s.timestamp) ? .chipMotion : []) { e in if e.fromChip { chipEvents += 1 } }
        }
        let allocations = mc_thread_allocations() - before
        #expect(chipEvents > 2, "chip motion events fired during the measurement (\(chipEvents))")
        #expect(allocations == 0, "\(allocations) heap allocations")
    }

    /// With the chip deciding `free_fall`, `tap` and `double_tap` too (LSM6DSOX FF_IA, SINGLE_TAP,
    /// DOUBLE_TAP), the gates and the withheld software events allocate nothing, events firing.
    @Test func chipDecidedFreeFallAndTapsDoNotAllocatePerSample() throws {
        var c = MotionEventConfiguration()
        c.chipMotion = true
        c.chipFreeFall = true
        c.chipTap = true
        var detectors = MotionEventDetectors(configuration: c, sampleRate: 400)
        let samples = try #require(EventScenario(named: "tap")).samples
        // Every 5 s: a 0.3 s run of free-fall flags from 1 s, a tap at 2 s, a double tap at 3 s.
        // (The pair is built once: an array literal of flags allocates its array each time.)
        let pair = IMUSample.Flags.chipTap.union(.chipDoubleTap)
        func flags(_ t: Double) -> IMUSample.Flags {
            let p = t.truncatingRemainder(dividingBy: 5)
            if p >= 1, p < 1.3 { return .chipFreeFall }
            if abs(p - 2) < 0.001 { return .chipTap }
            if abs(p - 3) < 0.001 { return pair }
            return IMUSample.Flags(rawValue: 0)
        }
        for s in samples.prefix(4000) {
            detectors.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: s.rotationRate, chipFlags: flags(s.timestamp)) { _ in }
        }
        var falls = 0, taps = 0
        let before = mc_thread_allocations()
        for i in 4000..<samples.count {
            let s = samples[i]
            detectors.update(time: s.timestamp, specificForce: s.specificForce, rotationRate: s.rotationRate, chipFlags: flags(s.timestamp)) { e in
                if e.fromChip, e.type == .freeFall { falls += 1 }
                if e.fromChip, e.type == .tap || e.type == .doubleTap { taps += 1 }
            }
        }
        let allocations = mc_thread_allocations() - before
        #expect(falls > 1 && taps > 1, "chip events fired during the measurement (\(falls) falls, \(taps) taps)")
        #expect(allocations == 0, "\(allocations) heap allocations")
    }

    /// The LSM6DSOX's per-edge decoding of WAKE_UP_SRC and TAP_SRC into chip flags (run on the
    /// acquisition thread for every sample) allocates nothing.
    @Test func decodingTheChipsEventSourcesDoesNotAllocate() {
        let enabled = IMUSample.Flags.chipEvents
        var seen = IMUSample.Flags(rawValue: 0)
        let before = mc_thread_allocations()
        // (No `for … in` over an array here: its iterator allocates in debug builds.)
        for wakeUp in 0...255 {
            for tap in 0...0x7F where tap & 0x0F == 0 {                 // TAP_SRC with every combination of bits 4–6
                for d6d in 0...1 {                                      // D6D_SRC 0 or 0x60 (D6D_IA | ZH: face up)
                    seen.formUnion(LSM6DSx.decodeEventSources(wakeUpSource: UInt8(wakeUp), tapSource: UInt8(tap),
                                                              d6dSource: UInt8(d6d * 0x60), enabled: enabled))
                }
            }
        }
        let allocations = mc_thread_allocations() - before
        #expect(seen.intersection(.chipEvents) == enabled && seen.chipFace == .faceUp)
        #expect(allocations == 0, "\(allocations) heap allocations")
    }

    /// The BMI160's per-edge decoding of INT_STATUS_0/1 into chip flags (run on the acquisition
    /// thread for every sample, keeping the last tap bits) allocates nothing.
    @Test func decodingTheBMI160sStatusPairDoesNotAllocate() {
        var decoder = BMI160.EventDecoder(enabled: [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
        var seen = IMUSample.Flags(rawValue: 0)
        var decoded = 0
        let before = mc_thread_allocations()
        // (No `for … in` over an array here: its iterator allocates in debug builds.)
        for status0 in 0...255 {
            for status1 in 0...255 {
                seen.formUnion(decoder.decode(status0: UInt8(status0), status1: UInt8(status1)))
                decoded += 1
            }
        }
        let allocations = mc_thread_allocations() - before
        #expect(decoded == 65536)
        #expect(seen == [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
        #expect(allocations == 0, "\(allocations) heap allocations")
    }

    /// The chip deciding `orientation` (D6D_IA with a face every second, cycling through the six),
    /// the software detector withheld: no allocation per sample, chip events firing.
    @Test func chipDecidedOrientationDoesNotAllocatePerSample() {
        var c = MotionEventConfiguration()
        c.enabled.insert(.orientation)
        c.chipOrientation = true
        c.orientation.dwell = 0.2
        var detectors = MotionEventDetectors(configuration: c, sampleRate: 100)
        let faces = (IMUSample.Flags.chipOrientation(.faceUp), IMUSample.Flags.chipOrientation(.portrait),
                     IMUSample.Flags.chipOrientation(.landscapeLeft))
        func flags(_ i: Int) -> IMUSample.Flags {
            guard i % 100 == 0 else { return IMUSample.Flags(rawValue: 0) }
            switch (i / 100) % 3 {
            case 0: return faces.0
            case 1: return faces.1
            default: return faces.2
            }
        }
        let rest = Vector3(0, 0, 9.80665)
        for i in 0..<600 { detectors.update(time: Double(i) / 100, specificForce: rest, rotationRate: nil, chipFlags: flags(i)) { _ in } }
        var changes = 0
        let before = mc_thread_allocations()
        for i in 600..<1800 {
            detectors.update(time: Double(i) / 100, specificForce: rest, rotationRate: nil, chipFlags: flags(i)) { e in
                if e.fromChip, e.type == .orientation { changes += 1 }
            }
        }
        let allocations = mc_thread_allocations() - before
        #expect(changes == 12, "chip orientation changes during the measurement (\(changes))")
        #expect(allocations == 0, "\(allocations) heap allocations")
    }

    /// The 6D orientation, enabled, turning through all six faces (1 s each, changes firing):
    /// no allocation per sample.
    @Test func orientationDoesNotAllocatePerSample() {
        var c = MotionEventConfiguration()
        c.enabled.insert(.orientation)
        var detectors = MotionEventDetectors(configuration: c, sampleRate: 100)
        let faces = (Vector3(0, 0, 9.80665), Vector3(0, 9.80665, 0), Vector3(9.80665, 0, 0),
                     Vector3(0, 0, -9.80665), Vector3(0, -9.80665, 0), Vector3(-9.80665, 0, 0))
        func pose(_ i: Int) -> Vector3 {
            switch (i / 100) % 6 {
            case 0: faces.0
            case 1: faces.1
            case 2: faces.2
            case 3: faces.3
            case 4: faces.4
            default: faces.5
            }
        }
        for i in 0..<600 { detectors.update(time: Double(i) / 100, specificForce: pose(i), rotationRate: nil) { _ in } }
        var changes = 0
        let before = mc_thread_allocations()
        for i in 600..<1800 {
            detectors.update(time: Double(i) / 100, specificForce: pose(i), rotationRate: nil) { e in
                if e.type == .orientation { changes += 1 }
            }
        }
        let allocations = mc_thread_allocations() - before
        #expect(changes == 12, "one change per second (\(changes))")
        #expect(allocations == 0, "\(allocations) heap allocations")
    }

    /// The optional vibration spectrum: per sample one store into its preallocated ring; the
    /// transform and its result (two arrays) only once per interval, at the publish rate.
    @Test func theSpectrumDoesNotAllocatePerSample() {
        var c = VibrationSpectrumConfiguration()
        c.enabled = true
        c.interval = 1
        let a = VibrationSpectrumAnalyzer(configuration: c, sampleRate: 400)
        var perSample = 0, perSpectrum = 0, spectra = 0
        for k in 0..<8000 {
            let t = Double(k) / 400
            let f = Vector3(1.5 * (2 * Double.pi * 20 * t).sin, 0, 9.81)
            let before = mc_thread_allocations()
            let due = a.add(f, time: t)
            perSample += Int(mc_thread_allocations() - before)
            if due {
                let b = mc_thread_allocations()
                _ = a.compute(time: t)
                perSpectrum += Int(mc_thread_allocations() - b)
                spectra += 1
            }
        }
        #expect(perSample == 0, "\(perSample) heap allocations in add")
        #expect(spectra == 20, "one spectrum a second over 20 s: \(spectra)")
        #expect(perSpectrum <= 2 * spectra, "the result's array(s) only: \(perSpectrum) for \(spectra) spectra")
    }
}
