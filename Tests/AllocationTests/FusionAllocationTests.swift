import Testing
import CMallocCounter
import MotionCore

@Suite("Allocation-free fusion")
struct FusionAllocationTests {
    func sample(_ i: Int) -> IMUSample {
        let t = Double(i) / 285.7
        return IMUSample(
            timestampNanos: 1_000_000_000 + UInt64(i) * 3_500_000, sequence: UInt64(i),
            specificForce: Vector3(0.3 * t.sin, 0.1, 9.8), rotationRate: Vector3(0.01, -0.02, 0.3 * t.cos),
            magneticField: Vector3(5 + 30 * (0.1 * t).sin, 20, -40), contents: .all)
    }

    @Test func robustFilterAndDeviceMotionDoNotAllocatePerSample() {
        var estimator = DeviceMotionEstimator<RobustAttitudeFilter>(
            samplePeriod: 0.0035, referenceFrame: .xTrueNorthZVertical, declination: 0.05,
            calibration: SensorCalibration(gyroBias: .zero, magnetometerOffset: .zero, magnetometerSoftIron: .identity))
        var checksum = 0.0
        for i in 0..<100 { checksum += estimator.update(sample(i)).attitude.quaternion.w }
        let before = mc_thread_allocations()
        // 60 s of samples: start-up, rest, disturbance detection and relearning paths all run.
        for i in 100..<17_000 { checksum += estimator.update(sample(i)).attitude.quaternion.w }
        let allocations = mc_thread_allocations() - before
        #expect(allocations == 0, "\(allocations) allocations in 16 900 samples")
        #expect(checksum.isFinite)
    }
}
