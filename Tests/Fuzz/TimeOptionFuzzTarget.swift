// libFuzzer target `time-option`: the `--from` / `--to` values of `edgemotion recordings export`
// (`TimeOption.utcNanos`: Unix seconds, or RFC 3339 through `RFC3339.parseNanos`) and
// `RFC3339.parse`, `.format` on whatever parses (`TimeOptionFuzzCheck`: the two parses agree, a
// number is never a date-time, format and parse round-trip to the millisecond).
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer, RFC3339.swift compiled in); not part
// of the package. The normal suite replays Tests/Fuzz/corpus/time-option through the same check
// (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTimeOption(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    TimeOptionFuzzCheck.check(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
