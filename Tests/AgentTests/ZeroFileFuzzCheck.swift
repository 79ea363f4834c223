// Compiled into AgentTests (FuzzCorpusTests' `zero-file` replayer) and into the libFuzzer
// `zero-file` target (scripts/fuzz lists this file; there ZeroPoseFile is in the same module,
// compiled instrumented, and MotionCore is linked).
import MotionCore
#if !EDGEMOTION_FUZZ
@testable import Agent
#endif

/// What must hold for any text found in `<state_directory>/events-zero`: one copy for the fuzzer
/// and its corpus replayer. Each check is a `precondition` (a crash is what the fuzzer reports).
enum ZeroFileFuzzCheck {
    static func check(_ text: String) {
        guard let up = try? ZeroPoseFile.decode(text, path: "events-zero") else { return }
        // A decoded zero pose is a usable up-vector: finite, of length near 1.
        precondition(up.x.isFinite && up.y.isFinite && up.z.isFinite, "a non-finite up-vector was accepted")
        precondition(up.norm > 0.5 && up.norm < 1.5, "an up-vector of length \(up.norm) was accepted")
        // Written back as set_level writes it, it reads back to the same vector, bit for bit.
        let again = try? ZeroPoseFile.decode(ZeroPoseFile.encode(up), path: "events-zero")
        precondition(again == up, "encode/decode does not round-trip")
    }
}
