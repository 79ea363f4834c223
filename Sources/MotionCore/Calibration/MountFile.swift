/// The text form of a learned mount (`<state_directory>/edgemotion-mount.txt`), written by
/// `edgemotion mount learn` and the `cmd/mount` command: versioned and checksummed like the
/// calibration file.
///
/// ```
/// # EdgeMotion learned mount
/// format = edgemotion-mount
/// version = 1
/// rotation = 0.94 0 -0.34 0 1 0 0.34 0 0.94      (row-major chip → board, proper rotation)
/// resting_specific_force = -3.35 0 9.21          (m/s², chip axes, what it was learned from)
/// samples = 200
/// checksum = 5f3c…
/// ```
///
/// Decoding is all or nothing: any problem throws `MountFileError` naming the line.
public enum MountFile {
    public static let format = "edgemotion-mount"
    public static let version = 1
    /// Largest file read, bytes.
    public static let maximumBytes = 4096

    public static func encode(_ mount: SensorMount, restingSpecificForce f: Vector3, samples: Int) -> String {
        let m = mount.matrix
        var body = "# EdgeMotion learned mount (written by `edgemotion mount learn` or cmd/mount; learn again to change it)\n"
        body += "format = \(format)\nversion = \(version)\n"
        body += "rotation = \(m.a11) \(m.a12) \(m.a13) \(m.a21) \(m.a22) \(m.a23) \(m.a31) \(m.a32) \(m.a33)\n"
        body += "resting_specific_force = \(f.x) \(f.y) \(f.z)\nsamples = \(samples)\n"
        return seal(body)
    }

    /// `body` (whole lines, each ending in a newline) with its checksum line appended.
    public static func seal(_ body: String) -> String {
        KeyValueFileText.sealed(body)
    }

    /// The rotation in `text`; `source` names the file in errors.
    public static func decode(_ text: String, source: String) throws(MountFileError) -> SensorMount {
        func fail(_ line: Int?, _ problem: String) -> MountFileError { MountFileError(source: source, line: line, problem: problem) }
        guard text.utf8.count <= maximumBytes else { throw fail(nil, "larger than \(maximumBytes) bytes; not a mount file") }
        let entries: [KeyValueFileText.Entry]
        do {
            entries = try KeyValueFileText.read(text)
        } catch {
            switch error {
            case .textAfterChecksum(let line): throw fail(line, "text after the checksum line")
            case .notKeyValue(let line): throw fail(line, "expected 'key = value'")
            case .noChecksum: throw fail(nil, "no checksum line: the file is truncated or was not written by edgemotion")
            case .checksumMismatch: throw fail(nil, "checksum mismatch: the file was changed or damaged; learn the mount again (edgemotion mount learn, or cmd/mount)")
            }
        }
        var rotation: KeyValueFileText.Entry?
        var sawFormat = false, sawVersion = false
        for entry in entries {
            switch entry.key {
            case "format":
                guard entry.value == format else { throw fail(entry.line, "format '\(entry.value)' is not \(format)") }
                sawFormat = true
            case "version":
                guard Int(entry.value) == version else { throw fail(entry.line, "version \(entry.value) is not supported (this agent reads \(version)); learn the mount again") }
                sawVersion = true
            case "rotation": rotation = entry
            case "resting_specific_force", "samples": break
            default: throw fail(entry.line, "unknown key '\(entry.key)'")
            }
        }
        guard sawFormat, sawVersion else { throw fail(nil, "missing 'format = \(format)' or 'version = \(version)'") }
        guard let rotation else { throw fail(nil, "no 'rotation' line") }
        let (n, bad) = KeyValueFileText.numbers(rotation)
        if let bad { throw fail(rotation.line, "'rotation': '\(bad)' is not a finite number") }
        guard n.count == 9 else { throw fail(rotation.line, "'rotation' needs 9 numbers (row-major 3×3), found \(n.count)") }
        do {
            return try SensorMount(matrix: Matrix3(n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8]), tolerance: 1e-6)
        } catch {
            throw fail(rotation.line, "\(error)")
        }
    }
}

/// A learned-mount file that cannot be used, with where and why.
public struct MountFileError: Error, CustomStringConvertible, Sendable, Equatable {
    public var source: String
    public var line: Int?
    public var problem: String

    public init(source: String, line: Int?, problem: String) {
        self.source = source
        self.line = line
        self.problem = problem
    }

    public var description: String {
        "\(source)\(line.map { ":\($0)" } ?? ""): learned mount rejected: \(problem)"
    }
}
