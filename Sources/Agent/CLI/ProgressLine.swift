#if canImport(Glibc)
import Glibc
#endif
import Platform

/// One updating line on standard error for long work — `fusion: 42 % (1.2 M of 2.9 M samples,
/// 850 k/s)` — redrawn at most 5 times a second, and only when standard error is a terminal:
/// redirected to a file or a pipe (scripts, tests, systemd) it writes nothing.
struct ProgressLine {
    private let label: String
    private let unit: String
    private let total: Int?
    /// Whether the line is drawn at all (standard error is a terminal).
    let enabled: Bool
    private let start = MonotonicClock.nowNanos()
    private var lastDraw: UInt64 = 0
    private var drawn = false

    /// `total`: the amount at 100 % (nil when unknown: then only the count and rate are shown).
    init(_ label: String, unit: String, total: Int? = nil, enabled: Bool = isatty(2) == 1) {
        self.label = label
        self.unit = unit
        self.total = total
        self.enabled = enabled
    }

    /// Reports `done` units finished; cheap when not due (one clock read).
    /// `detail` is appended (e.g. `coverage 63 %`).
    mutating func update(_ done: Int, detail: String = "") {
        guard enabled else { return }
        let now = MonotonicClock.nowNanos()
        guard now - lastDraw >= 200_000_000 else { return }
        lastDraw = now
        drawn = true
        let seconds = max(Double(now - start) * 1e-9, 1e-9)
        var text = "\r\u{1B}[K\(label): "
        if let total, total > 0 {
            text += "\(Int(Double(done) * 100 / Double(total))) % (\(Self.count(done)) of \(Self.count(total)) \(unit), "
        } else {
            text += "\(Self.count(done)) \(unit) ("
        }
        text += "\(Self.count(Int(Double(done) / seconds)))/s)" + (detail.isEmpty ? "" : ", " + detail)
        _ = text.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    /// Clears the line (the command prints its result next).
    mutating func finish() {
        guard enabled, drawn else { return }
        let clear = "\r\u{1B}[K"
        _ = clear.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        drawn = false
    }

    /// `950`, `12.3 k`, `4.5 M`.
    static func count(_ n: Int) -> String {
        func one(_ v: Double) -> String { "\((v * 10).rounded() / 10)" }
        if n >= 1_000_000 { return one(Double(n) / 1e6) + " M" }
        if n >= 10_000 { return one(Double(n) / 1e3) + " k" }
        return "\(n)"
    }
}
