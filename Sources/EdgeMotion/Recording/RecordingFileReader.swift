import MotionCore
#if canImport(Glibc)
import Glibc
#endif
import Platform

/// Reads a recording file written by `RecordingWriter`: the header, then every sample of every
/// intact block, in order. The whole file is read into memory (a 1-hour 200 Hz file is ~31 MB;
/// `recorder.max_file_mb` bounds it). Reads format versions 1 and 2 (`RecordingFormat`).
///
/// Nothing read from disk is trusted: a block is used only when its CRC matches (in version 2
/// the CRC also covers `payload_length` and `sample_count`) and its samples, walked before any is
/// returned, fill its payload exactly. A block that fails is skipped — the reader looks for the
/// next block signature and carries on — and counted in `damagedBlocks`; a damaged or incomplete
/// block with no intact block after it is a torn tail (`tornTail`: a crash or power loss while
/// writing). `ignoredBytes` counts every byte not read as part of an intact block.
public final class RecordingFileReader {
    public let path: String
    public let header: RecordingHeader
    /// The file's format version (1 or 2).
    public let version: UInt16
    /// The file ended in a damaged or incomplete block (nothing intact after it).
    public private(set) var tornTail = false
    /// Damaged blocks skipped before an intact one (a bad CRC or lengths that do not add up).
    public private(set) var damagedBlocks = 0
    /// Bytes not read as part of an intact block (damaged blocks and the torn tail).
    public private(set) var ignoredBytes = 0
    /// Intact blocks read so far.
    public private(set) var blocksRead = 0
    /// Whether anything in the file was skipped as damaged (`damagedBlocks` or `tornTail`).
    public var isDamaged: Bool { tornTail || damagedBlocks > 0 }
    private let bytes: [UInt8]
    private var offset: Int
    private var blockEnd = 0
    private var blockRemaining = 0
    private var baseTimestamp: UInt64 = 0
    private var baseSequence: UInt64 = 0

    /// Opens `path` and checks the file header. Throws when the file is unreadable, not a
    /// regular file, not a recording, or of a newer format version.
    public convenience init(path: String) throws(RecordingError) {
        try self.init(bytes: try Self.readAll(path), path: path)
    }

    /// Reads a recording held in memory (`path` names it in errors); the same checks as a file.
    public init(bytes data: [UInt8], path: String = "<memory>") throws(RecordingError) {
        self.path = path
        bytes = data
        let fixed = RecordingFormat.magic.count + 8
        guard data.count >= fixed, Array(data[0..<8]) == RecordingFormat.magic else {
            throw RecordingError(path: path, detail: "not an EdgeMotion recording (no EDGEMREC signature); CSV recordings are replayed with 'edgemotion replay FILE.csv'")
        }
        let version = UInt16(data[8]) | UInt16(data[9]) << 8
        guard version >= 1, version <= RecordingFormat.version else {
            throw RecordingError(path: path, detail: "format version \(version) is not one this agent reads (1 … \(RecordingFormat.version)); update edgemotion")
        }
        self.version = version
        let length = Int(Self.u32(data, 12))
        guard length <= data.count - fixed - 4 else {
            throw RecordingError(path: path, detail: "the file header is cut short (\(data.count) bytes, header_length \(length)); the file is damaged")
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

    /// Moves to the next intact block, skipping damaged ones; false at the end of the file.
    private func openBlock() -> Bool {
        while offset < bytes.count {
            if let (count, length) = intactBlock(at: offset) {
                let start = offset + RecordingFormat.blockHeaderSize
                baseTimestamp = Self.u64(bytes, start)
                baseSequence = Self.u64(bytes, start + 8)
                offset = start + RecordingFormat.payloadBaseSize
                blockEnd = start + length
                blockRemaining = count
                blocksRead += 1
                return true
            }
            // Damaged: resynchronise on the next block signature that starts an intact block.
            var next = offset + 1
            while next < bytes.count, !(next + 4 <= bytes.count && Self.u32(bytes, next) == RecordingFormat.blockMagic && intactBlock(at: next) != nil) {
                next += 1
            }
            ignoredBytes += next - offset
            if next >= bytes.count { tornTail = true } else { damagedBlocks += 1 }
            offset = next
        }
        return false
    }

    /// The sample count and payload length of the block at `o` if it is intact: its signature,
    /// lengths within the file, its CRC, and samples that fill the payload exactly. Nil otherwise.
    private func intactBlock(at o: Int) -> (count: Int, length: Int)? {
        let h = RecordingFormat.blockHeaderSize
        guard bytes.count - o >= h, Self.u32(bytes, o) == RecordingFormat.blockMagic else { return nil }
        let length = Int(Self.u32(bytes, o + 4))
        let count = Int(Self.u32(bytes, o + 8))
        let crc = Self.u32(bytes, o + 12)
        let start = o + h
        let minimumSample = RecordingFormat.minimumSampleSize
        guard length >= RecordingFormat.payloadBaseSize, length <= RecordingFormat.maximumPayloadSize, length <= bytes.count - start,
              count >= 1, count <= (length - RecordingFormat.payloadBaseSize) / minimumSample else { return nil }
        // Walk the samples first (cheap): each one's size follows from its contents bits.
        var p = start + RecordingFormat.payloadBaseSize
        let end = start + length
        for _ in 0..<count {
            guard end - p >= minimumSample else { return nil }
            p += RecordingFormat.sampleSize(bits: bytes[p + 6])
            guard p <= end else { return nil }
        }
        guard p == end else { return nil }
        let actual = bytes.withUnsafeBytes { b -> UInt32 in
            let payload = UnsafeRawBufferPointer(rebasing: b[start..<(start + length)])
            guard version >= 2 else { return CRC32.checksum(payload) }
            // Version 2: payload_length and sample_count are covered too.
            return CRC32.checksum(payload, continuing: CRC32.checksum(UnsafeRawBufferPointer(rebasing: b[(o + 4)..<(o + 12)])))
        }
        guard actual == crc else { return nil }
        return (count, length)
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
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)  // a FIFO must not block the open
        guard fd >= 0 else { throw RecordingError.system(path, "open the recording") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw RecordingError.system(path, "stat the recording") }
        guard st.st_mode & S_IFMT == S_IFREG else {
            throw RecordingError(path: path, detail: "not a regular file (a directory, FIFO or device); give a recording file (.emr)")
        }
        var out = [UInt8](repeating: 0, count: Int(st.st_size))
        var got = 0
        let file = FileDescriptor(rawValue: fd)
        while got < out.count {
            let n: Int
            do throws(Errno) { n = try file.read(into: &out, from: got) } catch {
                throw RecordingError.system(path, "read the recording", code: error.code)
            }
            if n == 0 { break }
            got += n
        }
        if got < out.count { out.removeLast(out.count - got) }
        return out
    }
}
