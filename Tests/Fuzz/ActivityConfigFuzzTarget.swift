// libFuzzer target `activity-config`: the JSON file `edgemotion classify --config` reads
// (`ActivityConfigFile.parse`: model parameters and detector settings, strict) over arbitrary
// bytes; what is accepted must run the activity detector to probability distributions
// (`ActivityConfigFuzzCheck`). Built and run by scripts/fuzz (swiftc -sanitize=fuzzer,
// ActivityConfigFile.swift and JSONValue.swift compiled in, Platform and MotionCore linked); not
// part of the package. The normal suite replays Tests/Fuzz/corpus/activity-config through the
// same check (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivityConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    ActivityConfigFuzzCheck.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
