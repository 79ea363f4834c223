import Testing
@testable import Agent

/// `--from`/`--to` of `edgemotion recordings export` take the one RFC 3339 grammar or Unix seconds.
@Suite("Time options")
struct TimeOptionTests {
    // 2026-11-30T09:15:00Z by hand: 1970→2026 is 56 years with 14 leap days (1972…2024),
    // 56·365 + 14 = 20 454 days; Jan…Oct 2026 = 31+28+31+30+31+30+31+31+30+31 = 304 days, +29 → day 333;
    // (20 454 + 333) · 86 400 = 1 795 996 800 s; + 9 h 15 min = 33 300 s → 1 796 030 100 s.
    static let nineFifteen: Int64 = 1_796_030_100 * 1_000_000_000

    @Test func utcOffsetAndFractionalSecondsAreRead() {
        #expect(TimeOption.utcNanos("2026-11-30T09:15:00Z") == Self.nineFifteen)
        #expect(TimeOption.utcNanos("2026-11-30T10:15:00+01:00") == Self.nineFifteen)   // 10:15 at +01:00 is 09:15 UTC
        #expect(TimeOption.utcNanos("2026-11-30T04:15:00-05:00") == Self.nineFifteen)
        #expect(TimeOption.utcNanos("2026-11-30T09:15:00.250Z") == Self.nineFifteen + 250_000_000)
        #expect(TimeOption.utcNanos("1796030100") == Self.nineFifteen)                  // Unix seconds
    }

    // The last instant of Int64 nanoseconds, Int64.max = 9 223 372 036 854 775 807 ns, is
    // 2262-04-11T23:47:16.854775807Z (published: pandas' `Timestamp.max`); one nanosecond later,
    // or a later second, is refused, not a trap (`scripts/fuzz time-option` found the fraction's
    // overflow: `…16.854787507Z` crashed `recordings export`).
    @Test func theEndOfInt64NanosecondsIsReadAndOneNanosecondPastItRefused() {
        #expect(TimeOption.utcNanos("2262-04-11T23:47:16.854775807Z") == Int64.max)
        #expect(TimeOption.utcNanos("2262-04-11T23:47:16.854775808Z") == nil)
        #expect(TimeOption.utcNanos("2262-04-11T23:47:16.854787507Z") == nil)
        #expect(TimeOption.utcNanos("2262-04-11T23:47:17Z") == nil)
    }

    // What RFC3339.parse refuses, the option refuses too (the old hand parser took the first
    // three, normalised February 30 to March 2 and read a missing offset as UTC).
    @Test(arguments: ["2026-11-30", "2026-11-30 09:15", "2026-02-30T00:00:00Z", "2026-11-30T09:15:00",
                      "yesterday", "", "1e300", "inf"])
    func badTimesAreRefused(_ text: String) {
        #expect(TimeOption.utcNanos(text) == nil)
    }

}
