#if canImport(Glibc)
import Glibc
#endif
import EdgeMotion
import Messaging
import MotionCore

/// Runs every in-process benchmark and renders a table or JSON.
struct StageReport {
    var trial: TrialData
    var repeats: Int
    var sections: [(String, [StageResult])] = []
    var loadAverage: String = ""

    static func run(trial: TrialData, repeats: Int, passSamples: Int) throws -> StageReport {
        var r = StageReport(trial: trial, repeats: repeats)
        r.loadAverage = Self.loadAverage()
        r.sections.append(("Stages (one thread, \(trial.samples.count)-sample BROAD trial at \(Int(trial.rate)) Hz, cycled to \(passSamples))",
                           StageBenchmarks(trial: trial, repeats: repeats, passSamples: passSamples).run()))

        var path: [StageResult] = []
        for c in [WholePathCase.defaults(rate: 200), .defaults(rate: 1000), .everySample(rate: 1000, publishRate: 10),
                  .everySample(rate: 1000, publishRate: 1000)] {
            var a = c.measure(filter: RobustAttitudeFilter.self, trial: trial, items: passSamples, repeats: repeats)
            a.name += " (Robust)"; a.key += "_robust"
            var b = c.measure(filter: ComplementaryFilter.self, trial: trial, items: passSamples, repeats: repeats)
            b.name += " (Complementary)"; b.key += "_complementary"
            path += [a, b]
        }
        r.sections.append(("Whole per-sample path, one thread: ring + MotionProcessor + JSON encoding of every batch (no send)", path))

        var rates: [StageResult] = []
        for rate in [100.0, 200, 500, 1000, 2000, 4000, 8000] {
            var a = WholePathCase.everySample(rate: rate, publishRate: 10).measure(filter: RobustAttitudeFilter.self, trial: trial, items: passSamples, repeats: repeats)
            a.key = "rate_\(Int(rate))"
            rates.append(a)
        }
        r.sections.append(("Scaling with rate: 4 streams at the source rate, 10 msg/s each (Robust)", rates))

        var streams: [StageResult] = []
        for k in 1...4 {
            var a = WholePathCase.everySample(rate: 1000, publishRate: 10, streams: k).measure(filter: RobustAttitudeFilter.self, trial: trial, items: passSamples, repeats: repeats)
            a.key = "streams_\(k)"
            streams.append(a)
        }
        r.sections.append(("Scaling with streams (accelerometer, +gyroscope, +magnetometer, +motion) at 1 kHz (Robust)", streams))

        var threads: [StageResult] = []
        for c in [WholePathCase.defaults(rate: 1000), .everySample(rate: 1000, publishRate: 10)] {
            threads.append(try PipelineRun.measure(c, trial: trial, samples: 4 * passSamples, repeats: max(3, repeats / 2)))
        }
        r.sections.append(("Real MotionPipeline (two threads, pipeline's default filter), process CPU per sample", threads))
        r.sections.append(Self.awakeSection(repeats: max(3, repeats / 2)))
        return r
    }

    /// One `edgemotion run` wake-up's computation on the simulator (1 kHz, bursts of 10, 4 streams
    /// at 100 msg/s), back to back and paced at 100 wake-ups/s, spinning or sleeping (`PacedPath`).
    static func awakeSection(repeats: Int, bursts: Int = 200, intervalNanos: UInt64 = PacedPath.defaultIntervalNanos) -> (String, [StageResult]) {
        ("One wake-up's computation (simulator + whole path, 1 kHz, bursts of 10, 4 streams at 100 msg/s), thread CPU per sample",
         [PacedPath.measure(.backToBack, bursts: bursts, repeats: repeats),
          PacedPath.measure(.spinning, bursts: bursts, repeats: repeats, intervalNanos: intervalNanos),
          PacedPath.measure(.sleeping, bursts: bursts, repeats: repeats, intervalNanos: intervalNanos)])
    }

    static func loadAverage() -> String {
        guard let f = fopen("/proc/loadavg", "r") else { return "?" }
        defer { fclose(f) }
        var buf = [UInt8](repeating: 0, count: 128)
        let n = fread(&buf, 1, 127, f)
        return String(decoding: buf[0..<n], as: UTF8.self).split(separator: " ").prefix(3).joined(separator: " ")
    }

    func table() -> String {
        var out = "edgemotion-bench stages — thread CPU ns per sample, min / median of \(repeats); load average \(loadAverage)\n"
        out += "trial: \(trial.path)\n"
        func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }
        func lpad(_ s: String, _ n: Int) -> String { s.count >= n ? s : String(repeating: " ", count: n - s.count) + s }
        func f(_ v: Double) -> String { v.isNaN ? "n/a" : v < 100 ? "\((v * 10).rounded() / 10)" : String(Int(v.rounded())) }
        for (title, rows) in sections {
            out += "\n" + title + "\n"
            out += pad("", 74) + lpad("min", 9) + lpad("median", 9) + lpad("allocs", 9) + "\n"
            for r in rows {
                let allocs = r.allocationsPerSample.map { $0 == 0 ? "0" : String(format3: $0) } ?? "-"
                out += pad(r.name, 74) + lpad(f(r.minimum), 9) + lpad(f(r.median), 9) + lpad(allocs, 9)
                out += r.note.isEmpty || !r.runs.isEmpty ? "\n" : "  " + r.note + "\n"
            }
        }
        return out
    }

    func json() -> String {
        func q(_ s: String) -> String { "\"" + s.replacingAll("\\", "\\\\").replacingAll("\"", "\\\"") + "\"" }
        func num(_ v: Double) -> String { v.isFinite ? "\((v * 1000).rounded() / 1000)" : "null" }
        var parts: [String] = []
        for (title, rows) in sections {
            for r in rows {
                var o = "\(q(r.key)):{\"name\":\(q(r.name)),\"section\":\(q(title)),\"min\":\(num(r.minimum)),\"median\":\(num(r.median))"
                o += ",\"runs\":[\(r.runs.map(num).joined(separator: ","))]"
                o += ",\"allocs_per_sample\":\(r.allocationsPerSample.map(num) ?? "null")"
                if !r.note.isEmpty { o += ",\"note\":\(q(r.note))" }
                parts.append(o + "}")
            }
        }
        return "{\"unit\":\"ns/sample\",\"repeats\":\(repeats),\"load_average\":\(q(loadAverage)),\"trial\":\(q(trial.path)),"
            + "\"trial_samples\":\(trial.samples.count),\"trial_rate_hz\":\(num(trial.rate)),\"results\":{"
            + parts.joined(separator: ",") + "}}"
    }
}

extension String {
    func replacingAll(_ a: Character, _ b: String) -> String {
        var out = ""
        for c in self { if c == a { out += b } else { out.append(c) } }
        return out
    }

    init(format3 v: Double) {
        let r = (v * 1000).rounded() / 1000
        self = "\(r)"
    }
}
