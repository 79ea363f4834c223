/// The text form of a `SensorCalibration`: versioned, bound to one sensor, checksummed.
///
/// ```
/// # EdgeMotion sensor calibration
/// format = edgemotion-calibration
/// version = 1
/// sensor = mpu9250@i2c-1:0x68
/// gyro.bias = 0.001 -0.002 0.0005
/// mag.offset = 12.1 -3.4 40.2
/// mag.soft_iron = 1 0 0 0 1 0 0 0 1
/// …
/// checksum = 5f3c…   (FNV-1a 64 of every line above it, each with its newline)
/// ```
///
/// Decoding is all or nothing: any problem (format, version, sensor mismatch, unknown key, bad
/// number, checksum) throws `CalibrationFileError` and no value is returned, so a damaged file is
/// never half-applied.
public enum CalibrationFile {
    public static let format = "edgemotion-calibration"
    public static let version = 1

    /// The file text for `calibration` of `sensor` (an identity string such as driver@bus:address).
    public static func encode(_ calibration: SensorCalibration, sensor: String) -> String {
        func v(_ x: Vector3) -> String { "\(x.x) \(x.y) \(x.z)" }
        var body = "# EdgeMotion sensor calibration (written by `edgemotion calibrate`; edit only by recalibrating)\n"
        body += "format = \(format)\nversion = \(version)\nsensor = \(sensor)\n"
        if let b = calibration.gyroBias { body += "gyro.bias = \(v(b))\n" }
        if let o = calibration.accelerometerOffset { body += "accel.offset = \(v(o))\n" }
        if let s = calibration.accelerometerScale { body += "accel.scale = \(v(s))\n" }
        if let o = calibration.magnetometerOffset { body += "mag.offset = \(v(o))\n" }
        if let m = calibration.magnetometerSoftIron {
            body += "mag.soft_iron = \(m.a11) \(m.a12) \(m.a13) \(m.a21) \(m.a22) \(m.a23) \(m.a31) \(m.a32) \(m.a33)\n"
        }
        if let r = calibration.magnetometerFieldStrength { body += "mag.field_strength = \(r)\n" }
        return body + "checksum = \(hex(fnv1a(body)))\n"
    }

    /// Parses file text. `expectedSensor`, when given, must equal the file's `sensor`.
    /// `source` names the file in errors.
    public static func decode(_ text: String, expectedSensor: String? = nil, source: String) throws(CalibrationFileError) -> SensorCalibration {
        var hashed = ""
        var checksum: String?
        var values: [(line: Int, key: String, value: String)] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = String(raw)
            if checksum != nil {
                if line.allSatisfy({ $0 == " " || $0 == "\r" }) { continue }
                throw CalibrationFileError(source: source, line: lineNumber, problem: "text after the checksum line")
            }
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed.hasPrefix("checksum") , let eq = trimmed.firstIndex(of: "=") {
                checksum = String(trimmed[trimmed.index(after: eq)...]).filter { $0 != " " && $0 != "\r" }
                continue
            }
            hashed += line + "\n"
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            guard let eq = trimmed.firstIndex(of: "=") else {
                throw CalibrationFileError(source: source, line: lineNumber, problem: "expected 'key = value'")
            }
            let key = String(trimmed[..<eq]).filter { $0 != " " }
            let value = String(trimmed[trimmed.index(after: eq)...]).trimmingSpaces
            values.append((lineNumber, key, value))
        }
        guard let checksum else {
            throw CalibrationFileError(source: source, line: nil, problem: "no checksum line: the file is truncated or was not written by edgemotion calibrate")
        }
        guard checksum == hex(fnv1a(hashed)) else {
            throw CalibrationFileError(source: source, line: nil, problem: "checksum mismatch: the file was changed or damaged; run edgemotion calibrate again")
        }
        var result = SensorCalibration()
        var sawFormat = false, sawVersion = false
        for (line, key, value) in values {
            func numbers(_ count: Int) throws(CalibrationFileError) -> [Double] {
                let parts = value.split(separator: " ")
                var out: [Double] = []
                for p in parts {
                    guard let d = Double(p), d.isFinite else {
                        throw CalibrationFileError(source: source, line: line, problem: "'\(key)': '\(p)' is not a finite number")
                    }
                    out.append(d)
                }
                guard out.count == count else {
                    throw CalibrationFileError(source: source, line: line, problem: "'\(key)' needs \(count) numbers, found \(out.count)")
                }
                return out
            }
            switch key {
            case "format":
                guard value == format else {
                    throw CalibrationFileError(source: source, line: line, problem: "format '\(value)' is not \(format)")
                }
                sawFormat = true
            case "version":
                guard Int(value) == version else {
                    throw CalibrationFileError(source: source, line: line, problem: "version \(value) is not supported (this agent reads version \(version)); recalibrate")
                }
                sawVersion = true
            case "sensor":
                if let expectedSensor, value != expectedSensor {
                    throw CalibrationFileError(source: source, line: line, problem: "made for sensor '\(value)', but this is '\(expectedSensor)'; recalibrate this sensor (edgemotion calibrate … --config FILE) or point fusion.calibration_file elsewhere")
                }
            case "gyro.bias":
                let n = try numbers(3); result.gyroBias = Vector3(n[0], n[1], n[2])
            case "accel.offset":
                let n = try numbers(3); result.accelerometerOffset = Vector3(n[0], n[1], n[2])
            case "accel.scale":
                let n = try numbers(3)
                guard n.allSatisfy({ $0 > 0.5 && $0 < 2 }) else {
                    throw CalibrationFileError(source: source, line: line, problem: "accel.scale must lie between 0.5 and 2 per axis")
                }
                result.accelerometerScale = Vector3(n[0], n[1], n[2])
            case "mag.offset":
                let n = try numbers(3); result.magnetometerOffset = Vector3(n[0], n[1], n[2])
            case "mag.soft_iron":
                let n = try numbers(9)
                let m = Matrix3(n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8])
                guard m.determinant > 0 else {
                    throw CalibrationFileError(source: source, line: line, problem: "mag.soft_iron is singular or mirrors the axes")
                }
                result.magnetometerSoftIron = m
            case "mag.field_strength":
                result.magnetometerFieldStrength = try numbers(1)[0]
            default:
                throw CalibrationFileError(source: source, line: line, problem: "unknown key '\(key)'")
            }
        }
        guard sawFormat, sawVersion else {
            throw CalibrationFileError(source: source, line: nil, problem: "missing 'format = \(format)' or 'version = \(version)'")
        }
        return result
    }

    /// FNV-1a, 64 bit, over the UTF-8 bytes.
    static func fnv1a(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x0000_0100_0000_01b3
        }
        return h
    }

    static func hex(_ v: UInt64) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// A calibration file that cannot be used, with where and why.
public struct CalibrationFileError: Error, CustomStringConvertible, Sendable, Equatable {
    public var source: String
    public var line: Int?
    public var problem: String

    public var description: String {
        "\(source)\(line.map { ":\($0)" } ?? ""): calibration rejected, nothing applied: \(problem)"
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" || c == "\r" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\r" { s.removeLast() }
        return String(s)
    }
}
