import EdgeMotion
import Synchronization
#if canImport(Glibc)
import Glibc
import MotionCore
import Sensors
#endif

/// The simulator running a finite timeline as fast as the pipeline takes samples: a day of
/// activity in a few seconds. It ends (`.endOfStream`) when the timeline does, like a recording.
/// Nothing is produced before `open()`, so every handler can be registered first. Also an
/// example of an `IMUSource` of your own.
final class TimelineSource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: `simulator` and `seconds` are `let`s, `gate` an atomic; `produced` and
    // `rate` are touched only by `start`, `read` and `stop`, which the pipeline calls from one
    // thread at a time (`IMUSource`'s contract). A source of your own argues the same way.
    private let simulator: SimulatedIMU
    private let seconds: Double
    private var produced = 0
    private var rate = 0.0
    private let gate = Atomic<Bool>(false)

    init(scenario: SimulationScenario) {
        simulator = SimulatedIMU(options: SimulatorOptions(scenario: scenario, realTime: false))
        seconds = scenario.duration.isFinite ? scenario.duration : 600
    }

    var capabilities: SourceCapabilities { simulator.capabilities }

    func start(requestedRate: Double) throws -> SourceConfiguration {
        let configuration = try simulator.start(requestedRate: requestedRate)
        rate = configuration.rate
        produced = 0
        return configuration
    }

    /// Lets samples flow.
    func open() { gate.store(true, ordering: .releasing) }

    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard gate.load(ordering: .acquiring) else {
            usleep(1000)
            return .timeout
        }
        let remaining = Int(seconds * rate) - produced
        guard remaining > 0 else { return .endOfStream }
        let slice = UnsafeMutableBufferPointer(rebasing: buffer[0..<min(buffer.count, remaining)])
        let result = try simulator.read(into: slice, timeout: timeout)
        if case .samples(let n) = result { produced += n }
        return result
    }

    func stop() { simulator.stop() }
}
