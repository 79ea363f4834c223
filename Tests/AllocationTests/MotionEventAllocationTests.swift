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
}
