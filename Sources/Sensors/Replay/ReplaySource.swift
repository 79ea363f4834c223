#if canImport(Glibc)
import Glibc
#endif
import Platform
import MotionCore

/// Plays a recording in the shared CSV schemas (`../shared/data/fusion`,
/// `../shared/data/activity`; plain or gzip) through the `IMUSource` interface.
///
/// Row `k` becomes a sample with sequence number `k` and timestamp
/// `startNanos + (t_s − t_s of the first row)` on `CLOCK_MONOTONIC`. At `.recorded` speed `read`
/// sleeps until each sample's time; at `.asFastAsPossible` it fills whole buffers at once (the
/// timestamps still follow the recording, so the consumer sees the recorded timing). The source
/// is lossless: consumers wait for space instead of dropping. At the end of the file `read`
/// returns `.endOfStream`, or with `loop` starts over with timestamps that keep increasing.
///
/// Capabilities come from the file: the gyroscope and magnetometer count as present when their
/// columns exist *and* hold values in the first rows (the activity data keeps empty `gx,gy,gz`
/// columns when there was no gyroscope); the rate is estimated from the median interval of the
/// first rows. Reading does not allocate in steady state (zlib streaming into a reused buffer);
/// reopening the file for a loop does. A malformed row ends playback with a `SensorError` naming
/// `file:line` (from `init` when it is among the first rows, else from `read`, after the rows
/// before it have been delivered).
public final class ReplaySource: IMUSource, @unchecked Sendable {
    // @unchecked Sendable: the public `let`s (`capabilities` among them, read once in `init`) are
    // immutable and Sendable; every `var` (the reader, the lookahead, the pacing and the
    // `lastRow`/`samplesDelivered`/`loopsCompleted` progress) is touched only by `start`, `read` and `stop` (one thread at a time, `IMUSource`'s contract), and the
    // progress accessors are for the reading thread (or after `stop`).
    /// How fast to play.
    public enum Speed: String, Sendable, Hashable {
        /// Samples are released at their recorded times.
        case recorded
        /// Samples are released as fast as the consumer reads them.
        case asFastAsPossible = "as-fast-as-possible"
    }

    public let path: String
    public let speed: Speed
    public let loop: Bool
    public let capabilities: SourceCapabilities
    /// Sample rate estimated from the first rows, Hz.
    public let recordedRate: Double
    /// Whether rows carry ground-truth orientation (`qw..qz`) / activity labels.
    public let hasTruth: Bool
    public let hasLabels: Bool

    /// The row of the last sample `read` returned (ground truth, label, `movement`, line), for
    /// tools that score against the recording. Read it on the thread that calls `read`.
    public private(set) var lastRow: RecordingRow?
    /// Samples delivered so far (also the next sequence number).
    public private(set) var samplesDelivered: UInt64 = 0
    /// How many times playback has wrapped around (`loop`).
    public private(set) var loopsCompleted = 0

    private var reader: RecordingReader
    /// Rows read ahead by `init` to estimate the rate, played before the reader continues.
    private var lookahead: [RecordingRow]
    private var lookaheadIndex = 0
    private var pending: RecordingRow?
    private let firstTime: Double
    /// Seconds added to recording time after each wrap-around.
    private var loopOffset = 0.0
    private var lastTime: Double
    private var startNanos: UInt64 = 0
    private var started = false
    private var running = false
    /// A reader error met after some samples of a read were ready; thrown by the next read.
    private var deferredError: SensorError?

    /// Opens `path` and reads its first rows. Throws `SensorError` naming the file (and line)
    /// when it is missing, empty, or malformed.
    public init(path: String, speed: Speed = .recorded, loop: Bool = false) throws(SensorError) {
        self.path = path
        self.speed = speed
        self.loop = loop
        let reader = try RecordingReader(path: path)
        self.reader = reader
        var rows: [RecordingRow] = []
        rows.reserveCapacity(64)
        while rows.count < 64, let row = try reader.next() { rows.append(row) }
        guard let first = rows.first else {
            throw SensorError(.invalidData, subject: path,
                              detail: "the recording has a header but no rows; record some samples or pick another file")
        }
        lookahead = rows
        firstTime = first.time
        lastTime = first.time
        hasTruth = reader.hasTruth
        hasLabels = reader.hasLabels
        recordedRate = Self.estimateRate(rows)
        var sensors: IMUSample.Contents = .accelerometer
        if reader.hasGyroscope, rows.contains(where: { $0.rotationRate != nil }) { sensors.insert(.gyroscope) }
        if reader.hasMagnetometer, rows.contains(where: { $0.magneticField != nil }) { sensors.insert(.magnetometer) }
        let file = path.split(separator: "/").last.map(String.init) ?? path
        capabilities = SourceCapabilities(name: "replay:\(file)", sensors: sensors,
                                          supportedRates: [recordedRate], maximumRate: recordedRate)
    }

    /// Median positive interval of the rows, as a rate (1 Hz for a single row).
    static func estimateRate(_ rows: [RecordingRow]) -> Double {
        var intervals: [Double] = []
        for k in rows.indices.dropFirst() {
            let d = rows[k].time - rows[k - 1].time
            if d > 0 { intervals.append(d) }
        }
        guard !intervals.isEmpty else { return 1 }
        intervals.sort()
        return 1 / intervals[intervals.count / 2]
    }

    /// Starts playback now. The recording's own rate is used whatever `requestedRate` says.
    public func start(requestedRate: Double) throws -> SourceConfiguration {
        startNanos = MonotonicClock.nowNanos()
        started = true
        running = true
        return SourceConfiguration(rate: recordedRate, timing: .recorded, lossless: true)
    }

    public func read(into buffer: UnsafeMutableBufferPointer<IMUSample>, timeout: Duration) throws -> ReadResult {
        guard started else {
            throw SensorError(.unsupported, subject: path, detail: "read before start; call start(requestedRate:) first")
        }
        guard running else { return .endOfStream }
        guard buffer.count > 0 else { return .samples(0) }
        var n = 0
        let pacer = ReplayPacer(paced: speed == .recorded, timeout: timeout)
        if let error = deferredError {
            deferredError = nil
            running = false
            throw error
        }
        rows: while n < buffer.count {
            let next: RecordingRow?
            do {
                next = try peek()
            } catch {
                // Deliver the good rows first; the error follows on the next call.
                guard n == 0 else {
                    deferredError = error
                    break
                }
                running = false
                throw error
            }
            guard let row = next else { break }
            let stamp = timestampNanos(of: row)
            switch pacer.admit(stamp, taken: n) {
            case .take: break
            case .stop: break rows
            case .timeout: return .timeout
            }
            pending = nil
            buffer[n] = sample(from: row, timestampNanos: stamp)
            lastRow = row
            lastTime = row.time
            samplesDelivered += 1
            n += 1
        }
        return n == 0 ? .endOfStream : .samples(n)
    }

    public func stop() {
        running = false
    }

    // MARK: Rows

    /// The next row without consuming it; wraps around when looping; `nil` at the end.
    private func peek() throws(SensorError) -> RecordingRow? {
        if let p = pending { return p }
        if lookaheadIndex < lookahead.count {
            pending = lookahead[lookaheadIndex]
            lookaheadIndex += 1
            return pending
        }
        if let row = try reader.next() {
            pending = row
            return row
        }
        guard loop, samplesDelivered > 0 else { return nil }
        // Start over: the first row follows the last one by one nominal period.
        loopOffset += (lastTime - firstTime) + 1 / recordedRate
        // The fresh reader yields the look-ahead rows again, so they are not replayed from memory.
        reader = try RecordingReader(path: path)
        loopsCompleted += 1
        guard let row = try reader.next() else { return nil }
        pending = row
        return row
    }

    private func timestampNanos(of row: RecordingRow) -> UInt64 {
        // Within UInt64 nanoseconds whatever the rows say (the reader bounds each time to ±1e10 s).
        let seconds = Swift.min(1.8e10, Swift.max(0, row.time - firstTime + loopOffset))
        return startNanos &+ UInt64((seconds * 1e9).rounded())
    }

    private func sample(from row: RecordingRow, timestampNanos: UInt64) -> IMUSample {
        var contents: IMUSample.Contents = .accelerometer
        if row.rotationRate != nil { contents.insert(.gyroscope) }
        if row.magneticField != nil { contents.insert(.magnetometer) }
        return IMUSample(timestampNanos: timestampNanos, sequence: samplesDelivered,
                         specificForce: row.specificForce, rotationRate: row.rotationRate ?? .zero,
                         magneticField: row.magneticField ?? .zero, contents: contents)
    }

}
