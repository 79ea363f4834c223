import Testing
import CMallocCounter
import MotionCore
import Sensors

@Suite("Simulator allocations")
struct SimulatorAllocationTests {
    @Test func theCounterSeesAnAllocation() {
        let before = mc_thread_allocations()
        let p = UnsafeMutablePointer<Double>.allocate(capacity: 1000)
        p.initialize(repeating: 1, count: 1000)
        let after = mc_thread_allocations()
        p.deallocate()
        #expect(after > before)
    }

    @Test(arguments: ["stationary", "rotation", "walking", "running", "cycling", "automotive",
                      "walking:2,running:2,cycling:2,automotive"])
    func simulatorReadDoesNotAllocate(scenario name: String) throws {
        let scenario = try #require(SimulationScenario(named: name))
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: scenario, realTime: false))
        _ = try imu.start(requestedRate: 200)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        _ = try imu.read(into: buffer, timeout: .zero)  // warm-up
        let before = mc_thread_allocations()
        for _ in 0..<50 {  // 16 s of samples, across every segment boundary
            _ = try imu.read(into: buffer, timeout: .zero)
        }
        let after = mc_thread_allocations()
        #expect(after - before == 0, "\(name): \(after - before) allocations in 50 reads")
    }

    @Test func realTimeReadDoesNotAllocateWhileWaiting() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .walking, realTime: true))
        _ = try imu.start(requestedRate: 1000)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        _ = try imu.read(into: buffer, timeout: .milliseconds(10))
        let before = mc_thread_allocations()
        for _ in 0..<40 {
            _ = try imu.read(into: buffer, timeout: .milliseconds(10))
        }
        #expect(mc_thread_allocations() - before == 0)
    }
}
