// libFuzzer target `config`: the YAML configuration loader (libyaml, the tree builder, every key
// check) on arbitrary text, and the configuration advice on what loads.
// Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package. The normal
// suite replays Tests/Fuzz/corpus/config through the same calls (FuzzCorpusTests).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let c = try? ConfigurationLoader.parse(yaml: text, fileName: "fuzz.yaml") {
        _ = c.resolvedTopicPrefix
        // Every mount that loads is a proper rotation.
        let m = c.source.mount.resolved(learned: nil)
        precondition(abs(m.inertial.matrix.determinant - 1) < 1e-3 && abs(m.magnetometer.matrix.determinant - 1) < 1e-3)
        // The advice `check-config` and `run` give on what loads: every item says something.
        precondition(ConfigurationAdvice.warnings(for: c).allSatisfy { !$0.message.isEmpty && !$0.event.isEmpty })
    }
    return 0
}
