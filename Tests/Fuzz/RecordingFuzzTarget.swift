// libFuzzer target `recording`: the recording file reader (`.emr`: file header, every block's
// lengths, CRC and samples) over arbitrary bytes, read in memory.
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package. The normal
// suite replays Tests/Fuzz/corpus/recording through the same calls (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let reader = try? RecordingFileReader(bytes: bytes) {
        var n = 0
        while reader.next() != nil { n += 1 }
        _ = (n, reader.damagedBlocks, reader.tornTail, reader.header.rateHz)
    }
    return 0
}
