import Foundation
import Testing
@testable import CoreMotion
import TestSupport

/// `CMAltimeter` finds the board's barometer the documented ways and, without one, says so as
/// Core Motion does (availability false, one `CMErrorNotAvailable`).
@Suite("CMAltimeter", .ownThread)
struct CMAltimeterTests {
    @Test func aNamedBarometerThatIsNotThereIsNoBarometer() {
        #expect(SystemBarometer.resolve(environment: ["EDGEMOTION_BAROMETER": "no-such-barometer"]) == nil)
    }

    /// A configured device that is not there is skipped: the result is what probing the board
    /// alone finds (nothing on a build machine, the bmp280 in the emulated-hardware VM).
    @Test func aConfigurationWhoseAuxiliaryDevicesAreMissingFallsBackToTheProbe() throws {
        let path = NSTemporaryDirectory() + "cmaltimeter-\(UUID().uuidString).yaml"
        try "auxiliary: { devices: [no-such-bmp280] }\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let configured = SystemBarometer.resolve(environment: ["EDGEMOTION_CONFIG": path])
        #expect(configured?.device != "no-such-bmp280")
        #expect(configured == SystemBarometer.resolve(environment: ["EDGEMOTION_CONFIG": "/nonexistent.yaml"]))
    }

    @Test(.enabled(if: SystemBarometer.shared == nil, "this machine has a barometer"))
    func withoutABarometerAStartReportsNotAvailableOnce() throws {
        #expect(!CMAltimeter.isRelativeAltitudeAvailable())
        #expect(!CMAltimeter.isAbsoluteAltitudeAvailable())
        let calls = AltitudeCalls()
        let queue = OperationQueue()
        CMAltimeter().startRelativeAltitudeUpdates(to: queue) { data, error in calls.add(data, error) }
        queue.waitUntilAllOperationsAreFinished()
        let got = calls.all
        #expect(got.count == 1 && got.first?.0 == nil)
        #expect((got.first?.1 as NSError?)?.code == Int(CMErrorNotAvailable.rawValue))
    }
}

/// On the emulated board (hardware/emulation): the kernel's bmp280 driver on i2c-stub is found
/// without any configuration (step 3) and its updates arrive through Core Motion's API.
@Suite("CMAltimeter on the emulated bmp280", .ownThread)
struct CMAltimeterVMTests {
    @Test(.enabled(if: ProcessInfo.processInfo.environment["EDGEMOTION_VM"] == "1", "needs the emulated-hardware VM (hardware/emulation/run-vm-tests)"))
    func theBoardsBarometerGivesRelativeAltitudeUpdates() async throws {
        #expect(CMAltimeter.isRelativeAltitudeAvailable())
        let calls = AltitudeCalls()
        let altimeter = CMAltimeter()
        altimeter.startRelativeAltitudeUpdates(to: OperationQueue()) { data, error in calls.add(data, error) }
        for _ in 0..<100 where calls.all.count < 2 { try await Task.sleep(for: .milliseconds(100)) }
        altimeter.stopRelativeAltitudeUpdates()
        let got = calls.all
        #expect(got.count >= 2 && got.allSatisfy { $0.1 == nil }, "\(got)")
        let first = try #require(got.first?.0)
        #expect(first.relativeAltitude.doubleValue == 0, "the first update is the reference")
        // BMP280 data sheet worked example 100.653 kPa (another VM suite may have raised it by
        // ≈ 0.2 kPa meanwhile): in kPa, not Pa or hPa.
        #expect(abs(first.pressure.doubleValue - 100.653) < 0.5, "pressure \(first.pressure) kPa")
        #expect(first.timestamp > 0)
    }
}

/// Handler calls, recorded from any queue.
final class AltitudeCalls: @unchecked Sendable {   // every access holds `lock`
    private let lock = NSLock()
    private var calls: [(CMAltitudeData?, (any Error)?)] = []
    func add(_ d: CMAltitudeData?, _ e: (any Error)?) { lock.lock(); calls.append((d, e)); lock.unlock() }
    var all: [(CMAltitudeData?, (any Error)?)] { lock.lock(); defer { lock.unlock() }; return calls }
}
