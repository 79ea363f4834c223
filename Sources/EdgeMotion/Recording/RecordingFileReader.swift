import MotionCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads a recording file written by `RecordingWriter`: the header, then every sample of every
/// intact block, in order. The whole file is read into memory (a 1-hour 200 Hz file is ~31 MB;
/// `recorder.max_file_mb` bounds it).
///
/// Crash safety: reading stops at the first block that is incomplete, has a bad magic or a
/// CRC mismatch; `tornTail` is then true and `ignoredBytes` says how much was skipped. Samples of
/// the intact blocks before it are all returned.
public final class RecordingFileReader {
    public let path: String
    public let header: RecordingHeader
    /// The file ended in (or contained) a damaged block; samples after it were not read.
    public private(set) var tornTail = false
    /// Bytes after the last intact block.
    public private(set) var ignoredBytes = 0
    /// Intact blocks read so far.
    public private(set) var blocksRead = 0
    private let bytes: [UInt8]
    private var offset: Int
    private var blockEnd = 0
    private var blockRemaining = 0
    private var baseTimestamp: UInt64 = 0
    private var baseSequence: UInt64 = 0

    /// Opens `path` and checks the file header. Throws when the file is unreadable, not a
    /// recording, or of a newer format version.
    public init(path: String) throws(RecordingError) {
        self.path = path
        let data = try Self.readAll(path)
        bytes = data
        let fixed = RecordingFormat.magic.count + 8
        guard data.count >= fixed, Array(data[0..<8]) == RecordingFormat.magic else {
            throw RecordingError(path: path, detail: "not an EdgeMotion recording (no EDGEMREC signature); CSV recordings are replayed with 'edgemotion replay FILE.csv'")
        }
        let version = UInt16(data[8]) | UInt16(data[9]) << 8
        guard version <= RecordingFormat.version else {
            throw RecordingError(path: path, detail: "format version \(version) is newer than this agent reads (\(RecordingFormat.version)); update edgemotion")
        }
        let length = Int(Self.u32(data, 12))
        guard data.count >= fixed + length + 4 else {
            throw RecordingError(path: path, detail: "the file header is cut short (\(data.count) bytes); the file is damaged")
        }
        let text = Array(data[fixed..<(fixed + length)])
        guard Self.u32(data, fixed + length) == CRC32.checksum(text) else {
            throw RecordingError(path: path, detail: "the file header's checksum does not match; the file is damaged")
        }
        header = RecordingHeader.decode(text)
        offset = fixed + length + 4
    }

    /// The next sample, or `nil` at the end of the intact data.
    public func next() -> IMUSample? {
        if blockRemaining == 0 {
            guard openBlock() else { return nil }
        }
        let dt = UInt64(Self.u32(bytes, offset))
        let dseq = UInt64(UInt16(bytes[offset + 4]) | UInt16(bytes[offset + 5]) << 8)
        let bits = bytes[offset + 6]
        offset += 7
        let contents = IMUSample.Contents(rawValue: UInt32(bits & 0x7))
        let flags = IMUSample.Flags(rawValue: UInt32(bits >> 3) & 0x3)
        var s = IMUSample(timestampNanos: baseTimestamp &+ dt, sequence: baseSequence &+ dseq, contents: contents, flags: flags)
        if contents.contains(.accelerometer) { s.specificForce = vector() }
        if contents.contains(.gyroscope) { s.rotationRate = vector() }
        if contents.contains(.magnetometer) { s.magneticField = vector() }
        blockRemaining -= 1
        if blockRemaining == 0 { offset = blockEnd }
        return s
    }

    /// Every remaining sample.
    public func readAll() -> [IMUSample] {
        var out: [IMUSample] = []
        while let s = next() { out.append(s) }
        return out
    }

    private func openBlock() -> Bool {
        let h = RecordingFormat.blockHeaderSize
        guard offset < bytes.count else { return false }
        func torn() -> Bool {
            tornTail = true
            ignoredBytes = bytes.count - offset
            offset = bytes.count
            return false
        }
        guard offset + h <= bytes.count, Self.u32(bytes, offset) == RecordingFormat.blockMagic else { return torn() }
        let length = Int(Self.u32(bytes, offset + 4))
        let count = Int(Self.u32(bytes, offset + 8))
        let crc = Self.u32(bytes, offset + 12)
        let start = offset + h
        guard length >= RecordingFormat.payloadBaseSize, count > 0, start + length <= bytes.count else { return torn() }
        let actual = bytes.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<(start + length)])) }
        guard actual == crc else { return torn() }
        baseTimestamp = Self.u64(bytes, start)
        baseSequence = Self.u64(bytes, start + 8)
        offset = start + RecordingFormat.payloadBaseSize
        blockEnd = start + length
        blockRemaining = count
        blocksRead += 1
        return true
    }

    private func vector() -> Vector3 {
        let v = Vector3(Double(Float(bitPattern: Self.u32(bytes, offset))),
                        Double(Float(bitPattern: Self.u32(bytes, offset + 4))),
                        Double(Float(bitPattern: Self.u32(bytes, offset + 8))))
        offset += 12
        return v
    }

    static func u32(_ b: [UInt8], _ o: Int) -> UInt32 {
        UInt32(b[o]) | UInt32(b[o + 1]) << 8 | UInt32(b[o + 2]) << 16 | UInt32(b[o + 3]) << 24
    }

    static func u64(_ b: [UInt8], _ o: Int) -> UInt64 {
        UInt64(u32(b, o)) | UInt64(u32(b, o + 4)) << 32
    }

    static func readAll(_ path: String) throws(RecordingError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw RecordingError.system(path, "open the recording") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw RecordingError.system(path, "stat the recording") }
        var out = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        while got < out.count {
            let n = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RecordingError.system(path, "read the recording")
            }
            if n == 0 { break }
            got += n
        }
        if got < out.count { out.removeLast(out.count - got) }
        return out
    }
}
