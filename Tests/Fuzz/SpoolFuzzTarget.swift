// libFuzzer target: the event spool reader (`SpoolReader.scan`: record framing, CRCs,
// resynchronisation after damage). Built and run by scripts/fuzz (swiftc -sanitize=fuzzer);
// not part of the package. Inputs are whole spool files; half of them get the real header so the
// fuzzer spends its time past it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSpool(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let first = bytes.first, first & 1 == 1 { bytes = SpoolFormat.magic + bytes.dropFirst() }
    let r = bytes.withUnsafeBytes { SpoolReader.scan($0) }
    // Invariants: what was recovered and skipped fits in the file.
    precondition(r.skippedBytes <= bytes.count)
    precondition(r.pending.count <= r.intactRecords)
    for e in r.pending { precondition(e.qos <= 2 && e.payload.count <= bytes.count) }
    return 0
}
