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
/// number, checksum, a value no sensor needs) throws `CalibrationFileError` and no value is
/// returned, so a damaged file is never half-applied. Values are bounded to what a real sensor's
/// calibration can be, so every calibrated reading of a reading within full scale is finite and
/// fusion stays finite: gyro bias ≤ 10 rad/s per axis (a gyroscope's bias is a few °/s), accelerometer
/// offset ≤ 20 m/s², magnetometer offset ≤ 10 000 µT, soft-iron entries ≤ 100 with a determinant of
/// 0.01 … 100 (`edgemotion calibrate` writes 1), field strength 0 … 10 000 µT.
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
        return seal(body)
    }

    /// `body` (lines, each with its newline) followed by its checksum line.
    public static func seal(_ body: String) -> String { KeyValueFileText.sealed(body) }

    /// Parses file text. `expectedSensor`, when given, must equal the file's `sensor`.
    /// `source` names the file in errors.
    public static func decode(_ text: String, expectedSensor: String? = nil, source: String) throws(CalibrationFileError) -> SensorCalibration {
        let values: [KeyValueFileText.Entry]
        do {
            values = try KeyValueFileText.read(text)
        } catch {
            let (line, problem): (Int?, String) = switch error {
            case .textAfterChecksum(let line): (line, "text after the checksum line")
            case .notKeyValue(let line): (line, "expected 'key = value'")
            case .noChecksum: (nil, "no checksum line: the file is truncated or was not written by edgemotion calibrate")
            case .checksumMismatch: (nil, "checksum mismatch: the file was changed or damaged; run edgemotion calibrate again")
            }
            throw CalibrationFileError(source: source, line: line, problem: problem)
        }
        var result = SensorCalibration()
        var sawFormat = false, sawVersion = false
        for entry in values {
            let (line, key, value) = (entry.line, entry.key, entry.value)
            func numbers(_ count: Int) throws(CalibrationFileError) -> [Double] {
                let (out, bad) = KeyValueFileText.numbers(entry)
                if let bad {
                    throw CalibrationFileError(source: source, line: line, problem: "'\(key)': '\(bad)' is not a finite number")
                }
                guard out.count == count else {
                    throw CalibrationFileError(source: source, line: line, problem: "'\(key)' needs \(count) numbers, found \(out.count)")
                }
                return out
            }
            func bounded(_ count: Int, _ limit: Double, _ unit: String) throws(CalibrationFileError) -> [Double] {
                let n = try numbers(count)
                guard n.allSatisfy({ abs($0) <= limit }) else {
                    throw CalibrationFileError(source: source, line: line, problem: "'\(key)' must lie within ±\(limit) \(unit) per value; recalibrate")
                }
                return n
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
                let n = try bounded(3, 10, "rad/s"); result.gyroBias = Vector3(n[0], n[1], n[2])
            case "accel.offset":
                let n = try bounded(3, 20, "m/s²"); result.accelerometerOffset = Vector3(n[0], n[1], n[2])
            case "accel.scale":
                let n = try numbers(3)
                guard n.allSatisfy({ $0 > 0.5 && $0 < 2 }) else {
                    throw CalibrationFileError(source: source, line: line, problem: "accel.scale must lie between 0.5 and 2 per axis")
                }
                result.accelerometerScale = Vector3(n[0], n[1], n[2])
            case "mag.offset":
                let n = try bounded(3, 10_000, "µT"); result.magnetometerOffset = Vector3(n[0], n[1], n[2])
            case "mag.soft_iron":
                let n = try bounded(9, 100, "")
                let m = Matrix3(n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8])
                guard m.determinant > 0 else {
                    throw CalibrationFileError(source: source, line: line, problem: "mag.soft_iron is singular or mirrors the axes")
                }
                guard m.determinant >= 0.01, m.determinant <= 100 else {
                    throw CalibrationFileError(source: source, line: line, problem: "mag.soft_iron has determinant \(m.determinant); edgemotion calibrate writes 1 (0.01 … 100 accepted); recalibrate")
                }
                result.magnetometerSoftIron = m
            case "mag.field_strength":
                let r = try numbers(1)[0]
                guard r > 0, r <= 10_000 else {
                    throw CalibrationFileError(source: source, line: line, problem: "'mag.field_strength' must lie within 0 … 10000 µT; recalibrate")
                }
                result.magnetometerFieldStrength = r
            default:
                throw CalibrationFileError(source: source, line: line, problem: "unknown key '\(key)'")
            }
        }
        guard sawFormat, sawVersion else {
            throw CalibrationFileError(source: source, line: nil, problem: "missing 'format = \(format)' or 'version = \(version)'")
        }
        return result
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
