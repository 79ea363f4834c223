import Dispatch
import Testing
import Synchronization
import EdgeMotion
import TestSupport

/// The library's CMAltimeter without a barometer (with one: the VM suite `VMAuxiliarySensorTests`).
@Suite("Altimeter", .ownThread)
struct AltimeterTests {
    @Test("a barometer that is not there: not available, and one (nil, .notAvailable) to the handler")
    func unavailable() async throws {
        let altimeter = Altimeter(device: "no-such-barometer")
        #expect(!altimeter.isRelativeAltitudeAvailable())
        let calls = Mutex<[(AltitudeData?, MotionError?)]>([])
        let queue = DispatchQueue(label: "test.altimeter")
        altimeter.startRelativeAltitudeUpdates(to: queue) { d, e in calls.withLock { $0.append((d, e)) } }
        // Wait for the start to have run on the altimeter's queue, then for the handler's queue.
        for _ in 0..<200 where calls.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(10)) }
        altimeter.stopRelativeAltitudeUpdates()
        queue.sync {}
        let got = calls.withLock { $0 }
        #expect(got.count == 1)
        #expect(got.first?.0 == nil)
        #expect(got.first?.1?.code == .notAvailable)
    }
}
