import CMallocCounter
import MotionCore
import Testing

/// The activity detector and the pedometer must not touch the heap per sample (they run on the
/// processing thread). Counts this thread's mallocs while feeding steady-state samples.
@Suite("Activity allocations")
struct ActivityAllocationTests {
    static func gait(_ i: Int, rate: Double, amplitude: Double, cadence: Double) -> (Double, Vector3, Vector3) {
        let t = Double(i) / rate
        let phase = 2 * Double.pi * cadence * t
        let v = amplitude * (phase.sin + 0.3 * (2 * phase).sin + 0.2 * (0.5 * phase).sin)
        return (t, Vector3(0.3 * v, 9.8 + v, 0.2 * v), Vector3(0.5 * (0.5 * phase).sin, 0.1, 0))
    }

    @Test func detectorAndPedometerDoNotAllocatePerSampleIncludingDecisionsAndChanges() {
        let detector = ActivityDetector()
        var pedometer = Pedometer()
        let rate = 100.0
        // Warm up (first decision, first activity) outside the measurement.
        for i in 0..<3000 {
            let (t, f, w) = Self.gait(i, rate: rate, amplitude: 0.01, cadence: 1.8)
            _ = detector.update(time: t, specificForce: f, rotationRate: w)
            _ = pedometer.update(time: t, specificForce: f)
        }
        var changes = 0, events = 0
        let before = mc_thread_allocations()
        for i in 3000..<12000 {
            let (t, f, w) = Self.gait(i, rate: rate, amplitude: i < 6000 ? 0.01 : 3.5, cadence: 1.8)
            if detector.update(time: t, specificForce: f, rotationRate: w) != nil { changes += 1 }
            if pedometer.update(time: t, specificForce: f) != nil { events += 1 }
        }
        let allocations = mc_thread_allocations() - before
        #expect(detector.decisionCount > 100)
        #expect(changes >= 1, "the measured stretch includes a change (stationary → walking)")
        #expect(events >= 1, "and a pedometer resume")
        #expect(allocations == 0, "\(allocations) heap allocations in 9000 samples")
    }
}
