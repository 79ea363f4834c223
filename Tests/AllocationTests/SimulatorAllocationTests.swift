import Testing
import CMallocCounter
import MotionCore
import Sensors
import TestSupportPaths

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

@Suite("Replay allocations")
struct ReplayAllocationTests {
    @Test(.enabled(if: SharedDataPath.root != nil, "../shared/data not found next to the package"))
    func replayReadDoesNotAllocateInSteadyState() throws {
        let root = try #require(SharedDataPath.root)
        let source = try ReplaySource(path: root + "/data/fusion/06_undisturbed_fast_rotation_A.csv.gz", speed: .asFastAsPossible)
        _ = try source.start(requestedRate: 0)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 256)
        defer { buffer.deallocate() }
        for _ in 0..<2 { _ = try source.read(into: buffer, timeout: .zero) }  // past the look-ahead
        let before = mc_thread_allocations()
        var delivered = 0
        for _ in 0..<100 {
            if case .samples(let n) = try source.read(into: buffer, timeout: .zero) { delivered += n }
        }
        let allocations = mc_thread_allocations() - before
        #expect(delivered == 25_600)
        #expect(allocations == 0, "\(allocations) allocations for \(delivered) replayed samples")
    }
}
