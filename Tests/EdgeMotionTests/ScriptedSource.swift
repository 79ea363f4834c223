import MotionCore
#if canImport(Glibc)
import Glibc
#endif
import Sensors
import Synchronization

/// A deterministic `IMUSource` for pipeline tests: a device lying still and level, producing
/// `count` samples at `rate` as fast as possible, optionally failing once at sample `failAt` and then
/// refusing `failedStarts` re-opens (a device that stays away for a while).
/// (The simulator and replay sources are tested on their own; this isolates the pipeline.)
final class ScriptedSource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: the script is `let`s, `starts` an atomic; `refusedStarts`, `produced`
    // and `failed` are touched only by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract).
    let capabilities: SourceCapabilities
    let count: Int
    let rate: Double
    let failAt: Int?
    let failedStarts: Int
    /// Sleep per read, µs: 0 = as fast as possible; otherwise a source that paces itself.
    let readDelayMicroseconds: UInt32
    private var refusedStarts = 0
    private var produced = 0
    private var failed = false
    let starts = Atomic<Int>(0)

    init(count: Int, rate: Double, sensors: IMUSample.Contents = .all, failAt: Int? = nil, failedStarts: Int = 0,
         readDelayMicroseconds: UInt32 = 0) {
        self.readDelayMicroseconds = readDelayMicroseconds
        self.count = count
        self.rate = rate
        self.failAt = failAt
        self.failedStarts = failedStarts
        capabilities = SourceCapabilities(name: "scripted", sensors: sensors, maximumRate: rate)
    }

    func start(requestedRate: Double) throws -> SourceConfiguration {
        starts.wrappingAdd(1, ordering: .relaxed)
        if failed, refusedStarts < failedStarts {
            refusedStarts += 1
            throw SensorError(.notFound, subject: "scripted", detail: "still unplugged (start \(refusedStarts) of \(failedStarts) refused)")
        }
        return SourceConfiguration(rate: rate, timing: .simulated, lossless: true)
    }

    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        if let f = failAt, !failed, produced >= f {
            failed = true
            throw SensorError(.io, subject: "scripted", detail: "injected failure")
        }
        guard produced < count else { return .endOfStream }
        if readDelayMicroseconds > 0 { usleep(readDelayMicroseconds) }
        var n = 0
        while n < buffer.count, produced < count {
            if let f = failAt, !failed, produced >= f { break }
            buffer[n] = IMUSample(
                timestampNanos: 1_000_000_000 + UInt64(Double(produced) / rate * 1e9),
                sequence: UInt64(produced),
                specificForce: Vector3(0, 0, standardGravity),
                rotationRate: Vector3(0.001, 0, 0),
                magneticField: Vector3(0, 20, -40),
                contents: capabilities.sensors)
            produced += 1
            n += 1
        }
        return .samples(n)
    }

    func stop() {}
}
