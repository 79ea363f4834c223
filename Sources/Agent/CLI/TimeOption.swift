import Platform

/// The `--from` / `--to` values of `edgemotion recordings export`: a point in time typed by a
/// person. Fuzzed by `scripts/fuzz time-option` (Tests/Fuzz/TimeOptionFuzzTarget.swift).
enum TimeOption {
    /// An RFC 3339 date-time (`2026-11-30T09:15:00Z`, `…09:15:00.250Z`, `…10:15:00+01:00`: the one
    /// grammar, `RFC3339.parseNanos`) or Unix seconds → UTC ns since the epoch; `nil` otherwise.
    static func utcNanos(_ text: String) -> Int64? {
        if let seconds = Double(text) { return abs(seconds) < 9e9 ? Int64(seconds * 1e9) : nil }  // ±285 years: no Int64 overflow
        return RFC3339.parseNanos(text)
    }
}
