#if canImport(Glibc)
import Glibc
#endif
import MotionCore
import Sensors
import Synchronization

/// A deterministic `IMUSource` for the manager tests: a device lying still and level that
/// produces nothing until `open()` is called, then either `count` samples as fast as the
/// pipeline takes them (lossless, then end of stream) or, with `count == nil`, samples paced at
/// `rate` in real time for ever. The magnetic field is configurable, so a field without a
/// horizontal part (no heading possible) can be scripted.
final class GatedSource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: the settings are `let`s, `gate` and `starts` atomics; `produced` and
    // `startNanos` are touched only by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract).
    let capabilities: SourceCapabilities
    let rate: Double
    let count: Int?
    let field: Vector3
    private let gate = Atomic<Bool>(false)
    let starts = Atomic<Int>(0)
    private var produced = 0
    private var startNanos: UInt64 = 0

    init(rate: Double = 200, count: Int? = nil, sensors: IMUSample.Contents = .all,
         field: Vector3 = Vector3(0, 20, -40), open: Bool = false) {
        self.rate = rate
        self.count = count
        self.field = field
        capabilities = SourceCapabilities(name: "gated", sensors: sensors, maximumRate: rate)
        gate.store(open, ordering: .relaxed)
    }

    func open() { gate.store(true, ordering: .releasing) }

    func start(requestedRate: Double) throws -> SourceConfiguration {
        starts.wrappingAdd(1, ordering: .relaxed)
        produced = 0
        startNanos = 0
        return SourceConfiguration(rate: rate, timing: .simulated, lossless: count != nil)
    }

    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard gate.load(ordering: .acquiring) else {
            usleep(2_000)
            return .timeout
        }
        if startNanos == 0 { startNanos = MonotonicClock.nowNanos() }
        var n = buffer.count
        if let count {
            guard produced < count else { return .endOfStream }
            n = min(n, count - produced)
        } else {
            let elapsed = Double(MonotonicClock.nowNanos() - startNanos) * 1e-9
            let due = Int(elapsed * rate) + 1 - produced
            if due <= 0 {
                usleep(UInt32(1e6 / rate))
                return .timeout
            }
            n = min(n, due)
        }
        for k in 0..<n {
            buffer[k] = IMUSample(
                timestampNanos: 1_000_000_000 + UInt64((Double(produced) / rate * 1e9).rounded()),
                sequence: UInt64(produced),
                specificForce: Vector3(0, 0, standardGravity),
                rotationRate: Vector3(0.001, 0, 0),
                magneticField: field,
                contents: capabilities.sensors)
            produced += 1
        }
        return .samples(n)
    }

    func stop() {}
}
