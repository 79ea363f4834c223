// libFuzzer target `csv-recording`: a recording in the shared CSV schema (`source.replay.file`,
// `edgemotion classify/steps/events/fusion --input`) over arbitrary bytes — header, columns, numbers,
// gzip — through `RecordingReader` and the detectors that consume its rows (`CsvRecordingFuzzCheck`).
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer, the reader's sources compiled in,
// MotionCore linked); not part of the package. The normal suite replays
// Tests/Fuzz/corpus/csv-recording through the same check (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCsvRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    CsvRecordingFuzzCheck.check(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
