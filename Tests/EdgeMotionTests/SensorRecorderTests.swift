#if canImport(Glibc)
import Glibc
#endif
import Testing
import MotionCore
import Sensors
@testable import EdgeMotion
import TestSupport

@Suite("SensorRecorder", .ownThread)
struct SensorRecorderTests {
    @Test func recordedSamplesComeBackForTheAskedRangeAt50Hz() throws {
        let source = GatedSource(rate: 200, count: 1000)   // 5 s of a level device
        let recorder = SensorRecorder(source: source)
        #expect(recorder.isAccelerometerRecordingAvailable())
        #expect(recorder.rate == 50)
        try recorder.recordAccelerometer(forDuration: 60)
        #expect(recorder.isRecording)
        source.open()
        #expect(eventually { recorder.accelerometerData(from: MonotonicInstant(secondsSinceBoot: 0), to: MonotonicInstant(secondsSinceBoot: 100)).count == 250 })
        let all = recorder.accelerometerData(from: MonotonicInstant(secondsSinceBoot: 0), to: MonotonicInstant(secondsSinceBoot: 100))
        #expect(all.map(\.identifier) == Array(stride(from: 0, to: 1000, by: 4)).map(UInt64.init))
        #expect(all.allSatisfy { abs($0.acceleration.z + 1) < 1e-9 })
        // Sample k is at 1 s + k/200 s; [2, 3) holds 50 of them.
        let second = recorder.accelerometerData(from: MonotonicInstant(secondsSinceBoot: 2), to: MonotonicInstant(secondsSinceBoot: 3))
        #expect(second.count == 50)
        #expect(second.first?.timestamp == 2 && second.allSatisfy { $0.timestamp < 3 })
        // The same range in UTC.
        let offset = Double(WallClockMapping.current().offsetNanos) * 1e-9
        let utc = recorder.accelerometerData(from: UTCInstant(secondsSince1970: offset + 2.01), to: UTCInstant(secondsSince1970: offset + 3.01))
        #expect(utc.count == 50 && utc.first?.identifier == 204)
        #expect(abs((utc.first?.startDate ?? 0) - (offset + 2.02)) < 0.01)
        #expect(recorder.accelerometerData(from: MonotonicInstant(secondsSinceBoot: 10), to: MonotonicInstant(secondsSinceBoot: 20)).isEmpty)
        recorder.stopRecording()
        #expect(!recorder.isRecording)
    }

    @Test func theInMemoryStoreKeepsOnlyTheNewestDurationTimesRate() throws {
        let source = GatedSource(rate: 200, count: 1000)
        let store = InMemoryAccelerometerStore()
        let recorder = SensorRecorder(service: MotionService(source: source), store: store, maximumDuration: 2)
        try recorder.recordAccelerometer(forDuration: 3600)   // capped at 2 s: 100 samples + one batch
        #expect(store.capacity == 150)
        source.open()
        #expect(eventually { recorder.accelerometerData(from: MonotonicInstant(secondsSinceBoot: 0), to: MonotonicInstant(secondsSinceBoot: 100)).last?.identifier == 996 })
        let kept = recorder.accelerometerData(from: MonotonicInstant(secondsSinceBoot: 0), to: MonotonicInstant(secondsSinceBoot: 100))
        #expect(kept.count == 150)
        #expect(kept.first?.identifier == 400)   // the 100 oldest of 250 were overwritten
    }

    @Test func recordingEndsAfterItsDuration() throws {
        let recorder = SensorRecorder(source: GatedSource(rate: 100, open: true))
        try recorder.recordAccelerometer(forDuration: 0.2)
        #expect(recorder.isRecording)
        usleep(300_000)
        #expect(!recorder.isRecording)
    }

    @Test func aSourceWithoutAnAccelerometerCannotRecord() {
        let recorder = SensorRecorder(source: GatedSource(sensors: .gyroscope))
        #expect(!recorder.isAccelerometerRecordingAvailable())
        #expect(throws: MotionError.notAvailable) { try recorder.recordAccelerometer(forDuration: 10) }
        let good = SensorRecorder(source: GatedSource())
        #expect(throws: MotionError.invalidParameter) { try good.recordAccelerometer(forDuration: 0) }
    }
}

@Suite("Typed instants: the two clocks are different types", .ownThread)
struct TypedInstantTests {
    @Test func monotonicAndUTCConvertThroughOneClockPairing() {
        // A pairing that says the board booted at 2026-01-01T00:00:00Z (1 767 225 600 s).
        let mapping = WallClockMapping(offsetNanos: 1_767_225_600_000_000_000)
        let tenSecondsAfterBoot = MonotonicInstant(secondsSinceBoot: 10)
        #expect(tenSecondsAfterBoot.utc(mapping) == UTCInstant(secondsSince1970: 1_767_225_610))
        #expect(UTCInstant(secondsSince1970: 1_767_225_610).monotonic(mapping) == tenSecondsAfterBoot)
        #expect(tenSecondsAfterBoot - 4 == MonotonicInstant(secondsSinceBoot: 6))
        #expect(tenSecondsAfterBoot - MonotonicInstant(secondsSinceBoot: 4) == 6)
        #expect(MonotonicInstant.now < MonotonicInstant.now + 1)
    }
}
