import MotionCore
import Sensors

/// A recorded BROAD trial, read in place from the shared data (never copied into the repo).
struct TrialData {
    var path: String
    var samples: [IMUSample]
    var rate: Double

    /// Loads every sample of `path` (or of the default trial under `../shared/data/fusion`).
    static func load(path: String?) throws -> TrialData {
        let file: String
        if let path {
            file = path
        } else if let root = SharedData.root {
            file = root + "/data/fusion/01_undisturbed_slow_rotation_A.csv.gz"
        } else {
            throw BenchError("no BROAD trial: pass --trial FILE or provide ../shared/data/fusion next to the package")
        }
        let source = try ReplaySource(path: file, speed: .asFastAsPossible)
        let configuration = try source.start(requestedRate: source.recordedRate)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 4096)
        defer { buffer.deallocate() }
        var samples: [IMUSample] = []
        loop: while true {
            switch try source.read(into: buffer, timeout: .seconds(1)) {
            case .samples(let n): samples.append(contentsOf: buffer[0..<n])
            case .timeout: continue
            case .endOfStream: break loop
            }
        }
        source.stop()
        return TrialData(path: file, samples: samples, rate: configuration.rate)
    }

    /// Smooth synthetic motion (rotation, bounded acceleration, a constant field) at `rate` Hz:
    /// no file to parse, for profiling runs under valgrind.
    static func synthetic(count: Int, rate: Double) -> TrialData {
        var samples: [IMUSample] = []
        samples.reserveCapacity(count)
        for i in 0..<count {
            let t = Double(i) / rate
            samples.append(IMUSample(
                timestampNanos: 1_000_000_000 + UInt64((t * 1e9).rounded()), sequence: UInt64(i),
                specificForce: Vector3(0.3 * (2 * t).sin, 0.2 * (3 * t).cos, 9.8), rotationRate: Vector3(0.2 * t.cos, -0.1, 0.3 * (0.5 * t).sin),
                magneticField: Vector3(5, 20, -40), contents: .all))
        }
        return TrialData(path: "synthetic", samples: samples, rate: rate)
    }

    /// The same samples re-timed to `rate` Hz (timestamps `i / rate`, starting at 1 s), so a
    /// stage sees the sample spacing of that output data rate.
    func retimed(rate: Double, count: Int? = nil) -> [IMUSample] {
        let n = count ?? samples.count
        var out: [IMUSample] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            var s = samples[i % samples.count]
            s.timestampNanos = 1_000_000_000 + UInt64((Double(i) * 1e9 / rate).rounded())
            s.sequence = UInt64(i)
            out.append(s)
        }
        return out
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}
