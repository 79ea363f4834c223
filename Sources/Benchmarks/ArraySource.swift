import MotionCore
import Sensors

/// An `IMUSource` that replays preloaded samples as fast as the pipeline takes them (lossless),
/// re-timing them so timestamps keep increasing across wrap-arounds: the cheapest possible
/// source, so a pipeline run measures the pipeline, not sample synthesis or CSV parsing.
final class ArraySource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: every stored property is an immutable `let` of a Sendable type except
    // `next`, touched only by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract).
    let capabilities: SourceCapabilities
    private let samples: [IMUSample]
    private let total: Int
    private let rate: Double
    private var next = 0

    init(samples: [IMUSample], rate: Double, total: Int, sensors: IMUSample.Contents = .all) {
        self.samples = samples
        self.total = total
        self.rate = rate
        capabilities = SourceCapabilities(name: "bench:array", sensors: sensors, maximumRate: 100_000)
    }

    func start(requestedRate: Double) throws -> SourceConfiguration {
        next = 0
        return SourceConfiguration(rate: rate, timing: .simulated, lossless: true)
    }

    func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard next < total else { return .endOfStream }
        let n = min(buffer.count, total - next)
        let period = 1e9 / rate
        for k in 0..<n {
            var s = samples[(next + k) % samples.count]
            s.sequence = UInt64(next + k)
            s.timestampNanos = 1_000_000_000 &+ UInt64(Double(next + k) * period)
            buffer[k] = s
        }
        next += n
        return .samples(n)
    }

    func stop() {}
}
