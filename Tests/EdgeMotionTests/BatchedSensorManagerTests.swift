import Dispatch
import Testing
import TestSupport
import Synchronization
import MotionCore
import Sensors
@testable import EdgeMotion

@Suite("BatchedSensorManager", .hangLimit, .ownThread)
struct BatchedSensorManagerTests {
    @Test func fullRateSamplesArriveAsOneArrayPerBatchInterval() {
        let source = GatedSource(rate: 1000, count: 3000)
        let service = MotionService(source: source, configuration: MotionService.libraryConfiguration(for: source, rate: 1000))
        let manager = BatchedSensorManager(service: service, batchInterval: 0.5)
        #expect(manager.isAccelerometerSupported && manager.isDeviceMotionSupported)
        #expect(manager.accelerometerDataFrequency == 1000)
        let batches = Mutex<[[AccelerometerData]]>([])
        manager.startAccelerometerUpdates { batch, error in
            #expect(error == nil)
            batches.withLock { $0.append(batch) }
        }
        manager.startDeviceMotionUpdates()
        #expect(manager.isAccelerometerActive && manager.isDeviceMotionActive)
        #expect(manager.accelerometerBatch == nil)
        source.open()
        #expect(eventually { batches.withLock { $0.count } == 6 })
        let got = batches.withLock { $0 }
        #expect(got.allSatisfy { $0.count == 500 })
        let times = got.flatMap { $0 }.map(\.timestamp)
        #expect(zip(times.dropFirst(), times).allSatisfy { abs($0 - $1 - 0.001) < 1e-6 })
        #expect(manager.accelerometerBatch?.count == 500)
        #expect(eventually { manager.deviceMotionBatch?.count == 500 })
        manager.stopAccelerometerUpdates()
        manager.stopDeviceMotionUpdates()
        #expect(!manager.isAccelerometerActive)
    }

    @Test func theBatchSequenceFinishesOnStop() async throws {
        let source = GatedSource(rate: 400, open: true)
        let manager = BatchedSensorManager(source: source, batchInterval: 0.05)
        var batches = 0
        for try await batch in manager.accelerometerUpdates() {
            #expect(batch.count == 20)
            batches += 1
            if batches == 3 { manager.stopAccelerometerUpdates() }
            if batches > 100 { break }
        }
        #expect(batches >= 3 && batches < 100)
    }
}
