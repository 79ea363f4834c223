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
        body + "checksum = \(CalibrationFile.hex(CalibrationFile.fnv1a(body)))\n"
    }

    /// The rotation in `text`; `source` names the file in errors.
    public static func decode(_ text: String, source: String) throws(MountFileError) -> SensorMount {
        func fail(_ line: Int?, _ problem: String) -> MountFileError { MountFileError(source: source, line: line, problem: problem) }
        guard text.utf8.count <= maximumBytes else { throw fail(nil, "larger than \(maximumBytes) bytes; not a mount file") }
        var hashed = ""
        var checksum: String?
        var rotation: (line: Int, value: String)?
        var sawFormat = false, sawVersion = false
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = String(raw)
            if checksum != nil {
                if line.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
                throw fail(lineNumber, "text after the checksum line")
            }
            let trimmed = line.trimmingSpaces
            if trimmed.hasPrefix("checksum"), let eq = trimmed.firstIndex(of: "=") {
                checksum = String(trimmed[trimmed.index(after: eq)...]).trimmingSpaces
                continue
            }
            hashed += line + "\n"
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let eq = trimmed.firstIndex(of: "=") else { throw fail(lineNumber, "expected 'key = value'") }
            let key = String(trimmed[..<eq]).trimmingSpaces
            let value = String(trimmed[trimmed.index(after: eq)...]).trimmingSpaces
            switch key {
            case "format":
                guard value == format else { throw fail(lineNumber, "format '\(value)' is not \(format)") }
                sawFormat = true
            case "version":
                guard Int(value) == version else { throw fail(lineNumber, "version \(value) is not supported (this agent reads \(version)); learn the mount again") }
                sawVersion = true
            case "rotation": rotation = (lineNumber, value)
            case "resting_specific_force", "samples": break
            default: throw fail(lineNumber, "unknown key '\(key)'")
            }
        }
        guard let checksum else { throw fail(nil, "no checksum line: the file is truncated or was not written by edgemotion") }
        guard checksum == CalibrationFile.hex(CalibrationFile.fnv1a(hashed)) else {
            throw fail(nil, "checksum mismatch: the file was changed or damaged; learn the mount again (edgemotion mount learn, or cmd/mount)")
        }
        guard sawFormat, sawVersion else { throw fail(nil, "missing 'format = \(format)' or 'version = \(version)'") }
        guard let rotation else { throw fail(nil, "no 'rotation' line") }
        let parts = rotation.value.split(separator: " ")
        var n: [Double] = []
        for p in parts {
            guard let d = Double(p), d.isFinite else { throw fail(rotation.line, "'rotation': '\(p)' is not a finite number") }
            n.append(d)
        }
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
