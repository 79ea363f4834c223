import EdgeMotion
import MotionCore
import Platform
import Sensors

/// The computation of one `edgemotion run` wake-up on the simulator, as the agent does it at 1 kHz
/// with FIFO bursts of 10: read a burst from the simulated IMU (walking, noise, 3 sensors), push it
/// through the ring, and process it (fusion, DeviceMotion, batching, JSON encoding of the four
/// streams at 100 msg/s each; no send). Thread CPU is counted from the wake-up to the end of the
/// burst's work only, never the sleep.
///
/// Run three ways in the same process (`Pacing`): bursts back to back (what the other stages
/// measure: code and data stay in the caches); one burst per `intervalNanos` (10 ms by default) as in real
/// time, sleeping in between as the agent does (the core goes idle or runs the broker, the kernel
/// and other processes); and the same interval spent spinning on the clock instead of sleeping
/// (no context switch, no idle state: what is left is time away from the work). The difference
/// between back to back and paced is the cost of coming back cold — what the stages under-count
/// and the C floor (a few hundred bytes of code) hardly pays (scripts/bench-peers' `cpu_vs_floor_paced`).
enum PacedPath {
    static let burst = 10
    /// The agent run's wake-up interval: bursts of 10 at 1 kHz.
    static let defaultIntervalNanos: UInt64 = 10_000_000

    enum Pacing { case backToBack, spinning, sleeping }

    static func measure(_ pacing: Pacing, bursts: Int, repeats: Int, intervalNanos: UInt64 = defaultIntervalNanos) -> StageResult {
        let processor = WholePathCase.everySample(rate: 1000, publishRate: 100).processor(filter: RobustAttitudeFilter.self)
        let output = EncodingOutput()
        let outputs: [any PipelineOutput] = [output]
        let ring = SampleRing<IMUSample>(minimumCapacity: 64)
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .walking, realTime: false))
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: burst)
        defer { buffer.deallocate() }
        let every = intervalNanos % 1_000_000 == 0 ? "\(intervalNanos / 1_000_000) ms" : "\(intervalNanos / 1000) µs"
        let (name, key) = switch pacing {
        case .backToBack: ("wake-up work, bursts of \(burst) back to back (warm caches)", "awake_hot")
        case .spinning: ("wake-up work, one burst per \(every), spinning in between", "awake_spinning")
        case .sleeping: ("wake-up work, one burst per \(every), sleeping in between (as the agent)", "awake_paced")
        }
        guard (try? imu.start(requestedRate: 1000)) != nil else {
            return StageResult(name: name, key: key, runs: [], note: "simulator did not start")
        }
        defer { imu.stop() }

        /// One wake-up's work; thread CPU ns it took.
        func wakeUp() -> UInt64 {
            let t0 = threadCPUNanos()
            if case .samples(let k)? = try? imu.read(into: buffer, timeout: .seconds(1)) {
                for i in 0..<k { ring.push(buffer[i]) }
                processor.drain(ring, outputs: outputs)
            }
            return threadCPUNanos() &- t0
        }
        func pass() -> Double {
            var cpu: UInt64 = 0
            var deadline = MonotonicClock.nowNanos()
            for _ in 0..<bursts {
                deadline &+= intervalNanos
                switch pacing {
                case .backToBack: break
                case .spinning: while MonotonicClock.nowNanos() < deadline {}
                case .sleeping: MonotonicClock.sleep(untilNanos: deadline)
                }
                cpu &+= wakeUp()
            }
            return Double(cpu) / Double(bursts * burst)
        }
        _ = pass()  // warm-up: first touches, lazily allocated buffers
        var runs: [Double] = []
        for _ in 0..<repeats { runs.append(pass()) }
        blackHole(output.bytes)
        return StageResult(name: name, key: key, runs: runs, allocationsPerSample: nil,
                           note: "thread CPU from wake-up to the end of the burst's work, per sample; \(bursts) bursts per repeat")
    }
}
