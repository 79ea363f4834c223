// libFuzzer target `zero-file`: the zero pose read back at start from
// `<state_directory>/events-zero` (`ZeroPoseFile.decode`: three finite numbers, length 0.5 … 1.5)
// over arbitrary text; what decodes must be a usable up-vector and round-trip through
// `ZeroPoseFile.encode` (`ZeroFileFuzzCheck`).
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer, ZeroPoseFile.swift compiled in,
// MotionCore linked); not part of the package. The normal suite replays
// Tests/Fuzz/corpus/zero-file through the same check (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzZeroFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    ZeroFileFuzzCheck.check(String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self))
    return 0
}
