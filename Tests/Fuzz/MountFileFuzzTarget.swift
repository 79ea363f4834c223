// libFuzzer target `mount-file`: the learned-mount file read back at start, reload and
// check-config (`<state_directory>/edgemotion-mount.txt`, `MountFile.decode`: size cap, lines,
// keys, checksum, nine numbers, the orthonormality and determinant checks) over arbitrary bytes.
// A decoded mount must be a proper rotation (the agent applies it to every sample).
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer, MotionCore compiled in); not part of
// the package. The normal suite replays Tests/Fuzz/corpus/mount-file through the same calls
// (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMountFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    // Also through a valid checksum, so the fuzzer gets past it to the rotation checks.
    for candidate in [text, MountFileFuzzing.resealed(text)] {
        if let m = try? MountFile.decode(candidate, source: "fuzz.txt") {
            let d = m.matrix.transposed * m.matrix - .identity
            precondition([d.a11, d.a12, d.a13, d.a21, d.a22, d.a23, d.a31, d.a32, d.a33].allSatisfy { abs($0) <= 1e-5 })
            precondition(abs(m.matrix.determinant - 1) <= 1e-5)
        }
    }
    return 0
}

enum MountFileFuzzing {
    /// `text` without its checksum lines, sealed with the right checksum (`MountFile.seal`).
    static func resealed(_ text: String) -> String {
        var body = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
        where !line.drop(while: { $0 == " " }).hasPrefix("checksum") {
            body += line + "\n"
        }
        return MountFile.seal(body)
    }
}
