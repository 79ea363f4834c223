// Compiled into AgentTests (FuzzCorpusTests' `calibration-file` replayer) and into the libFuzzer
// `calibration-file` target (scripts/fuzz lists this file; there MotionCore is compiled into the
// same module, instrumented).
#if !EDGEMOTION_FUZZ
import MotionCore
#endif

/// What must hold for any text found as a sensor calibration file: one copy for the fuzzer and its
/// corpus replayer. Each check is a `precondition` (a crash is what the fuzzer reports).
enum CalibrationFileFuzzCheck {
    static func check(_ text: String) {
        // As read, and resealed with a valid checksum (past the checksum to the value checks).
        var body = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast(text.hasSuffix("\n") ? 1 : 0)
        where !line.drop(while: { $0 == " " }).hasPrefix("checksum") {
            body += line + "\n"
        }
        for candidate in [text, CalibrationFile.seal(body)] {
            guard let c = try? CalibrationFile.decode(candidate, source: "fuzz.txt") else { continue }
            // Every reading at a sensor's full scale (±35 rad/s, ±16 g, ±4912 µT) calibrates to a
            // value whose square is still far from overflow (fusion squares and multiplies them).
            for s in [-1.0, 1.0] {
                let g = c.gyroscope(Vector3(35, -35, 35) * s), a = c.accelerometer(Vector3(157, 157, -157) * s)
                let m = c.magnetometer(Vector3(4912, -4912, 4912) * s)
                precondition([g.x, g.y, g.z, a.x, a.y, a.z, m.x, m.y, m.z].allSatisfy { $0.isFinite && abs($0) <= 1e7 },
                             "a calibration that takes a full-scale reading beyond 1e7 was accepted: \(c)")
            }
            let again = try? CalibrationFile.decode(CalibrationFile.encode(c, sensor: "fuzz@0"), source: "again.txt")
            precondition(again == c, "encode/decode does not round-trip: \(c)")
        }
    }
}
