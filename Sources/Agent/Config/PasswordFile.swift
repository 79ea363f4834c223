/// Reads a secret from a file (e.g. a systemd credential), without its trailing newline.
enum PasswordFile {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func read(_ path: String, key: String = "mqtt.password_file") throws -> String {
        var bytes: [UInt8]
        do throws(FileError) { bytes = try WholeFile.bytes(atPath: path, limit: 64 << 10) } catch {
            throw Failure(description: "\(key): cannot read '\(path)': \(error)")
        }
        if let newline = bytes.firstIndex(of: 0x0A) { bytes.removeSubrange(newline...) }
        while let last = bytes.last, last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
