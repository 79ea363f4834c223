import MotionCore

extension MountSettings {
    static let keys = ["accel_gyro", "magnetometer"]

    init(reading section: ConfigSection, with reader: inout ConfigReader) {
        self.init()
        inertial = reader.mountRotation(section, "accel_gyro")
        magnetometer = reader.mountRotation(section, "magnetometer")
    }
}

extension ConfigReader {
    /// One rotation of `source.mount`: `learned`, `identity`, an axis remap mapping
    /// (`{x: -y, y: x, z: z}`) or a 3×3 matrix (three rows of three numbers). Must be a proper
    /// rotation; `nil` when absent or wrong (reported).
    mutating func mountRotation(_ section: ConfigSection, _ key: String) -> MountSettings.Rotation? {
        guard let node = section[key], !node.isNull else { return nil }
        let path = section.path(key)
        let forms = "learned, identity, an axis remap such as {x: -y, y: x, z: z}, or a rotation matrix [[1, 0, 0], [0, 1, 0], [0, 0, 1]]"
        switch node.content {
        case .scalar(let text, _):
            switch text {
            case "learned": return .learned
            case "identity": return .fixed(.identity)
            default:
                report(path, at: node.mark, "\(node.summary) is not a mount; use \(forms)")
                return nil
            }
        case .mapping(let pairs):
            var axes: [String: (SignedAxis, YAMLNode)] = [:]
            for pair in pairs {
                guard let k = pair.key.scalar, ["x", "y", "z"].contains(k) else {
                    report(path, at: pair.key.mark, "an axis remap has keys x, y and z only, found \(pair.key.summary)")
                    return nil
                }
                guard axes[k] == nil else {
                    report(path + "." + k, at: pair.key.mark, "duplicate key; give each of x, y, z once")
                    return nil
                }
                guard let text = pair.value.scalar, let a = SignedAxis(parsing: text) else {
                    report(path + "." + k, at: pair.value.mark, "expected a chip axis: x, y, z, -x, -y or -z, found \(pair.value.summary)")
                    return nil
                }
                axes[k] = (a, pair.value)
            }
            guard let x = axes["x"], let y = axes["y"], let z = axes["z"] else {
                let missing = ["x", "y", "z"].filter { axes[$0] == nil }.joined(separator: ", ")
                report(path, at: node.mark, "an axis remap needs x, y and z; missing \(missing)")
                return nil
            }
            do {
                return .fixed(try SensorMount(remapX: x.0, y: y.0, z: z.0))
            } catch {
                report(path, at: node.mark, "\(error)")
                return nil
            }
        case .sequence(let rows):
            var numbers: [Double] = []
            guard rows.count == 3 else {
                report(path, at: node.mark, "a rotation matrix has 3 rows of 3 numbers, found \(rows.count) rows")
                return nil
            }
            for (i, row) in rows.enumerated() {
                guard case .sequence(let items) = row.content, items.count == 3 else {
                    report(path + "[\(i)]", at: row.mark, "expected a row of 3 numbers, e.g. [0, -1, 0], found \(row.summary)")
                    return nil
                }
                for (j, item) in items.enumerated() {
                    guard let text = item.scalar, !item.isNull, let d = ScalarSyntax.double(text), d.isFinite else {
                        report(path + "[\(i)][\(j)]", at: item.mark, "expected a number, found \(item.summary)")
                        return nil
                    }
                    numbers.append(d)
                }
            }
            let m = Matrix3(numbers[0], numbers[1], numbers[2], numbers[3], numbers[4], numbers[5],
                            numbers[6], numbers[7], numbers[8])
            do {
                // 1e-4 per element: three or four decimals written by hand still pass.
                return .fixed(try SensorMount(matrix: m, tolerance: 1e-4))
            } catch {
                report(path, at: node.mark, "\(error)")
                return nil
            }
        }
    }
}
