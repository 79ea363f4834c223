// libFuzzer target: the run-time command payload parser (`<prefix>/cmd/stream`).
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCommand(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if case .success(let c) = StreamCommand.parse(bytes) {
        _ = c.applied(to: StreamSettings(), sourceRate: 200)
    }
    return 0
}
