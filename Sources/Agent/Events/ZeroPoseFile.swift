import MotionCore

/// `<state_directory>/events-zero`, the zero pose "set level" keeps: the unit up-vector in the
/// sensor frame as `x y z` on one line. Written at `set_level`, read back at start; fuzzed by
/// `scripts/fuzz zero-file` (Tests/Fuzz/ZeroFileFuzzTarget.swift).
enum ZeroPoseFile {
    /// An `events-zero` file that exists but cannot be used, named with what is wrong.
    struct Damaged: Error, CustomStringConvertible {
        let description: String
    }

    /// Where the agent keeps it: `<state_directory>/events-zero`.
    static func path(stateDirectory: String) -> String { stateDirectory + "/events-zero" }

    /// The kept zero pose of the agent with this state directory; `nil` when none was ever set
    /// (no file). Throws, naming the file, when it is unreadable or `decode` refuses it.
    static func read(stateDirectory: String) throws(Damaged) -> Vector3? {
        let path = path(stateDirectory: stateDirectory)
        let text: String
        do throws(FileError) {
            text = try WholeFile.text(atPath: path, limit: 256)
        } catch {
            if error.isMissing { return nil }
            throw Damaged(description: "\(path): \(error)")
        }
        return try decode(text, path: path)
    }

    /// The file's text for `up`.
    static func encode(_ up: Vector3) -> String { "\(up.x) \(up.y) \(up.z)\n" }

    /// The up-vector in `text` (read from `path`, named in the error). Throws unless it holds
    /// exactly three finite numbers whose vector has length 0.5 … 1.5.
    static func decode(_ text: String, path: String) throws(Damaged) -> Vector3 {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\n" })
        let parts = words.compactMap { Double(String($0)) }
        guard words.count == 3, parts.count == 3, parts.allSatisfy(\.isFinite) else {
            throw Damaged(description: "\(path): expected three numbers 'x y z' (the zero pose's up-vector), found '\(text.prefix(80))'")
        }
        let v = Vector3(parts[0], parts[1], parts[2])
        guard v.norm > 0.5 && v.norm < 1.5 else {
            throw Damaged(description: "\(path): the up-vector (\(parts[0]), \(parts[1]), \(parts[2])) has length \(v.norm), not ≈ 1")
        }
        return v
    }
}
