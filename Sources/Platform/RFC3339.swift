#if canImport(Glibc)
import Glibc
#endif

/// RFC 3339 / ISO 8601 internet date-times, parsed strictly and written in UTC, without
/// Foundation: `2026-11-30T08:00:00Z`, `2026-11-30T08:00:00.250Z`, `2026-11-30T09:00:00+01:00`.
/// The one home of UTC time formatting (log lines, payloads, file names).
public enum RFC3339 {
    /// Seconds since the Unix epoch, or `nil` unless `text` is a complete date-time with a
    /// `Z` or `±hh:mm` offset and in-range fields (February 30 is refused, not normalised).
    /// The fraction is `parseNanos`' (digits past the ninth dropped), as a `Double` rounded once:
    /// `….3Z` is the `Double` nearest 0.3 s past the second.
    public static func parse(_ text: String) -> Double? {
        guard let p = parts(text) else { return nil }
        return Double(p.whole) + Double(p.fractionNanos) / 1e9
    }

    /// The same date-time grammar as `parse`, as whole nanoseconds since the Unix epoch (exact:
    /// no `Double` rounding; digits past the ninth decimal are dropped); `nil` when `parse` is.
    public static func parseNanos(_ text: String) -> Int64? {
        guard let p = parts(text) else { return nil }
        // Int64 nanoseconds end at 2262-04-11T23:47:16.854775807Z: past it (also by the fraction
        // alone, which the fuzzer found trapping) the time is not representable, so `nil`.
        let (whole, overflow) = Int64(p.whole).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return nil }
        let (nanos, past) = whole.addingReportingOverflow(p.fractionNanos)
        return past ? nil : nanos
    }

    /// Whole UTC seconds and the fraction in whole nanoseconds (the one accumulation of its digits).
    private static func parts(_ text: String) -> (whole: Int, fractionNanos: Int64)? {
        var s = Substring(text)
        func digits(_ n: Int) -> Int? {
            guard s.count >= n else { return nil }
            var v = 0
            for c in s.prefix(n) {
                guard let d = c.wholeNumberValue, c.isASCII else { return nil }
                v = v * 10 + d
            }
            s = s.dropFirst(n)
            return v
        }
        func expect(_ c: Character...) -> Bool {
            guard let f = s.first, c.contains(f) else { return false }
            s = s.dropFirst()
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
              expect("T", "t", " "), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
              let second = digits(2) else { return nil }
        var fractionNanos: Int64 = 0
        if expect(".") {
            var nanoScale: Int64 = 100_000_000
            var any = false
            while let c = s.first, c.isASCII, let d = c.wholeNumberValue {
                fractionNanos += Int64(d) * nanoScale
                nanoScale /= 10
                any = true
                s = s.dropFirst()
            }
            guard any else { return nil }
        }
        var offset = 0
        if expect("Z", "z") {
        } else if let sign = s.first, sign == "+" || sign == "-" {
            s = s.dropFirst()
            guard let oh = digits(2), expect(":"), let om = digits(2), oh < 24, om < 60 else { return nil }
            offset = (sign == "+" ? 1 : -1) * (oh * 3600 + om * 60)
        } else {
            return nil
        }
        guard s.isEmpty, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 61 else { return nil }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month - 1)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour)
        t.tm_min = Int32(minute)
        t.tm_sec = Int32(second)
        return (Int(timegm(&t)) - offset, fractionNanos)
    }

    /// `2026-11-30T08:00:00.250Z` (milliseconds, UTC) for seconds since the Unix epoch. Total:
    /// a time outside years 0001–9999 (or not a number) is written at the nearer end of that range.
    public static func format(_ seconds: Double) -> String {
        let clamped = seconds.isNaN ? 0 : Swift.min(Swift.max(seconds, earliest), latest)
        return format(unixMillis: Int64((clamped * 1000).rounded(.down)))
    }

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z, Unix seconds: the years RFC 3339 writes.
    public static let earliest = -62_135_596_800.0
    public static let latest = 253_402_300_799.999

    /// The same for nanoseconds since the Unix epoch (truncated to the millisecond, exactly).
    public static func format(unixNanos: Int64) -> String {
        let millis = unixNanos >= 0 ? unixNanos / 1_000_000 : (unixNanos - 999_999) / 1_000_000
        return format(unixMillis: millis)
    }

    private static func format(unixMillis millis: Int64) -> String {
        var whole = time_t(millis >= 0 ? millis / 1000 : (millis - 999) / 1000)
        let ms = millis - Int64(whole) * 1000
        var parts = tm()
        gmtime_r(&whole, &parts)
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(Int64(parts.tm_year) + 1900, 4))-\(pad(Int64(parts.tm_mon) + 1, 2))-\(pad(Int64(parts.tm_mday), 2))T"
            + "\(pad(Int64(parts.tm_hour), 2)):\(pad(Int64(parts.tm_min), 2)):\(pad(Int64(parts.tm_sec), 2)).\(pad(ms, 3))Z"
    }

    /// ISO 8601 basic format to the second, `20261130T080000Z`, for file names (no `:`), for
    /// whole seconds since the Unix epoch.
    public static func basicStamp(unixSeconds: Int64) -> String {
        var t = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
