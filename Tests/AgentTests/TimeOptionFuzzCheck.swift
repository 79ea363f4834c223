// Compiled into AgentTests (FuzzCorpusTests' `time-option` replayer) and into the libFuzzer
// `time-option` target (scripts/fuzz lists this file; there TimeOption and RFC3339 are in the
// same module, compiled instrumented).
#if !EDGEMOTION_FUZZ
import Platform
@testable import Agent
#endif

/// What must hold for any text given to `--from` / `--to`: one copy for the fuzzer and its
/// corpus replayer. Each check is a `precondition` (a crash is what the fuzzer reports).
enum TimeOptionFuzzCheck {
    static func check(_ text: String) {
        let option = TimeOption.utcNanos(text)
        let nanos = RFC3339.parseNanos(text)
        let seconds = RFC3339.parse(text)
        let unix = Double(text)
        // The two grammars are disjoint: a number is never a date-time.
        precondition(unix == nil || seconds == nil, "both a number and a date-time")
        // Not a number: the option is exactly the RFC 3339 grammar.
        if unix == nil { precondition(option == nanos, "the option and RFC3339.parseNanos disagree") }
        // The two parses accept the same texts, except whole nanoseconds past Int64 (≈ 9.22e9 s, 2262).
        precondition((nanos == nil) == (seconds == nil) || abs(seconds ?? 0) > 9.2e9, "parse and parseNanos disagree")
        if let nanos, let seconds {
            // The same instant: within the Double's own rounding (1 µs, or 4 ulp of the value).
            precondition(abs(seconds - Double(nanos) / 1e9) <= max(1e-6, 4 * seconds.ulp), "parse and parseNanos differ")
            // Written out (to the millisecond, truncated) and read back: the same millisecond.
            let millis = nanos >= 0 ? nanos / 1_000_000 : (nanos - 999_999) / 1_000_000
            precondition(RFC3339.parseNanos(RFC3339.format(unixNanos: nanos)) == millis * 1_000_000, "format does not round-trip")
        }
    }
}
