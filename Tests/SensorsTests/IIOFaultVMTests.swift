import Testing
import Foundation
@testable import Sensors
import MotionCore

extension VMTests {
    /// The IIO device disappears under a running source (driver unbound) and comes back.
    @Suite struct IIOFault {
        static let driver = "/sys/bus/i2c/drivers/bmi160_i2c"

        static func write(_ text: String, to path: String) throws {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
        }

        @Test func unbindingTheDriverIsAReadErrorAndAFreshStartWorksAfterRebind() throws {
            let client = "\(VMFixtures.i2cBus)-0069"
            try IIO.resetStubData()
            let source = IIOSource(device: "bmi160", trigger: "hrtimer", useBuffer: true, bufferLength: 2)
            _ = try source.start(requestedRate: 100)
            var buf = [IMUSample](repeating: IMUSample(timestampNanos: 0, sequence: 0, contents: []), count: 4)
            #expect(try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .seconds(2)) } != .timeout)

            try Self.write(client, to: Self.driver + "/unbind")
            var rebound = false
            defer { if !rebound { try? Self.write(client, to: Self.driver + "/bind") } }
            var failure: SensorError?
            for _ in 0..<20 where failure == nil {
                do { _ = try buf.withUnsafeMutableBufferPointer { try source.read(into: $0, timeout: .milliseconds(200)) } }
                catch let e as SensorError { failure = e }
            }
            #expect(failure != nil, "reads kept succeeding after the driver was unbound")
            print("iio unbind: \(failure.map(String.init(describing:)) ?? "no error")")
            #expect(failure?.description.contains("bmi160") == true || failure?.description.contains("iio") == true)
            source.stop()
            // While unbound, a start names the missing device.
            let gone = #expect(throws: SensorError.self) { try IIOSource(device: "bmi160", trigger: "hrtimer").start(requestedRate: 100) }
            #expect(gone?.kind == .notFound)

            try Self.write(client, to: Self.driver + "/bind")
            rebound = true
            let again = IIOSource(device: "bmi160", trigger: "hrtimer", useBuffer: true, bufferLength: 2)
            _ = try again.start(requestedRate: 100)
            defer { again.stop() }
            let r = try buf.withUnsafeMutableBufferPointer { try again.read(into: $0, timeout: .seconds(2)) }
            #expect(r != .timeout)
            #expect(abs(buf[0].specificForce.z - 16384 * IIO.accelScale) < 1e-9)
        }
    }
}
