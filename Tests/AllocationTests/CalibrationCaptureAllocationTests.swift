import Testing
import CMallocCounter
import MotionCore
@testable import EdgeMotion
@testable import Agent

/// The calibration page's accel and mag steps on the processing thread: its consumers
/// (`CalibrationCapture`) fold samples into the six-face calibrator and the magnetometer buffer
/// without allocating, while faces change and once the buffer is full.
@Suite("Allocation-free calibration page capture")
struct CalibrationCaptureAllocationTests {
    /// 200 Hz: 5 s on each face in turn (+z, +x, −y, −x, +y, −z), then 1 s turning; the field
    /// turns with the board.
    static let g = 9.80665
    static let faces = [Vector3(0, 0, g), Vector3(g, 0, 0), Vector3(0, -g, 0), Vector3(-g, 0, 0), Vector3(0, g, 0), Vector3(0, 0, -g)]
    static func sample(_ i: Int) -> IMUSample {
        let k = i / 1200, inFace = i % 1200
        let turning = inFace >= 1000
        let f = Self.faces[k % 6]
        return IMUSample(timestampNanos: 1_000_000_000 + UInt64(i) * 5_000_000, sequence: UInt64(i),
                         specificForce: f + Vector3(0.01 * Double(i % 5), 0, 0), rotationRate: turning ? Vector3(1, 0, 0) : Vector3(0.001, 0, 0),
                         magneticField: Vector3(20 + f.x, -10 + f.y, 40 + f.z), contents: .all)
    }

    @Test func theAccelAndMagStepsDoNotAllocatePerSample() {
        let rate = 200.0
        let config = MotionService.libraryConfiguration(for: GatedSourceStub(rate: rate), rate: rate)
        var processor = MotionProcessor<ComplementaryFilter>(
            configuration: config, sourceRate: rate, schedules: [:],
            motionSchedule: EffectiveSchedule(.disabled, sourceRate: rate), sensors: .all)
        let accel = CalibrationCapture(kind: .accel, sourceRate: rate), mag = CalibrationCapture(kind: .mag, sourceRate: rate)
        processor.apply([.add(PipelineConsumerID(rawValue: 1), accel, accel.schedule),
                         .add(PipelineConsumerID(rawValue: 2), mag, mag.schedule)])
        let outputs: [any PipelineOutput] = []
        for i in 0..<2000 { processor.process(Self.sample(i), outputs: outputs) }   // warm-up
        // 60 000 samples: five minutes, every face several times, 7 500 magnetometer readings
        // at 25 Hz (past the 6 000 the buffer keeps).
        let samples = 60_000
        let before = mc_thread_allocations()
        for i in 2000..<(2000 + samples) { processor.process(Self.sample(i), outputs: outputs) }
        let allocations = mc_thread_allocations() - before
        print("allocations per sample with the calibration page's accel and mag steps: \(Double(allocations) / Double(samples)) (\(allocations) in \(samples) samples)")
        #expect(allocations == 0)
        #expect(accel.faces.covered == 0b11_1111, "every face seen: \(accel.faces.covered)")
        let (readings, notKept) = mag.magnetometerReadings
        #expect(readings.count == CalibrationCapture.maximumMagnetometerReadings && notKept > 0)
    }
}
