import MotionCore
import Sensors
#if canImport(Glibc)
import Glibc
#endif
import Platform

/// An `IMUSource` playing back a recording file (`.emr`) through the whole pipeline, at the
/// recorded pace or as fast as the pipeline takes samples. Sequence numbers are the recorded
/// ones, so gaps the field device had show up as `source_gaps` again; timestamps keep their
/// recorded spacing, shifted to start now.
public final class RecordedFileSource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: `path`, `capabilities` and `header` are immutable `let`s; the file
    // reader and every `var` (the pending sample, the time shift, the run state) are touched only
    // by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract).
    public let path: String
    public let asFastAsPossible: Bool
    public let capabilities: SourceCapabilities
    public let header: RecordingHeader
    private let reader: RecordingFileReader
    private var pending: IMUSample?
    private var firstRecorded: UInt64 = 0
    private var startNanos: UInt64 = 0
    private var started = false
    private var running = false

    public init(path: String, asFastAsPossible: Bool = false) throws(RecordingError) {
        self.path = path
        self.asFastAsPossible = asFastAsPossible
        reader = try RecordingFileReader(path: path)
        header = reader.header
        guard let first = reader.next() else {
            throw RecordingError(path: path, detail: reader.tornTail ? "no intact block: the file is damaged from its first block" : "the recording holds no samples")
        }
        pending = first
        firstRecorded = first.timestampNanos
        var sensors: IMUSample.Contents = []
        for name in (header["sensors"] ?? "").split(separator: ",") {
            switch name {
            case "accelerometer": sensors.insert(.accelerometer)
            case "gyroscope": sensors.insert(.gyroscope)
            case "magnetometer": sensors.insert(.magnetometer)
            default: break
            }
        }
        if sensors.isEmpty { sensors = first.contents }
        let rate = header.rateHz ?? 100
        let file = path.split(separator: "/").last.map(String.init) ?? path
        capabilities = SourceCapabilities(name: "replay:\(file)", sensors: sensors, supportedRates: [rate], maximumRate: rate)
    }

    /// Whether the file ended in a damaged block (known once playback reached it).
    public var tornTail: Bool { reader.tornTail }

    public func start(requestedRate: Double) throws -> SourceConfiguration {
        startNanos = MonotonicClock.nowNanos()
        started = true
        running = true
        return SourceConfiguration(rate: capabilities.maximumRate, timing: .recorded, lossless: true)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard started else { throw RecordingError(path: path, detail: "read before start") }
        guard running, buffer.count > 0 else { return running ? .samples(0) : .endOfStream }
        let pacer = ReplayPacer(paced: !asFastAsPossible, timeout: timeout)
        var n = 0
        samples: while n < buffer.count {
            guard var s = pending ?? reader.next() else { break }
            pending = s
            let stamp = startNanos &+ (s.timestampNanos &- firstRecorded)
            switch pacer.admit(stamp, taken: n) {
            case .take: break
            case .stop: break samples
            case .timeout: return .timeout
            }
            pending = nil
            s.timestampNanos = stamp
            buffer[n] = s
            n += 1
        }
        if n == 0 { running = false }
        return n == 0 ? .endOfStream : .samples(n)
    }

    public func stop() { running = false }
}
