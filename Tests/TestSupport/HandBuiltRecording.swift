#if canImport(Glibc)
import Glibc
#endif

/// A recording file (`.emr`) built byte by byte from the format's description
/// (`RecordingFormat`'s doc comment), not by `RecordingWriter`: tests damage any field of it and
/// check what the reader makes of it. Every sample is an accelerometer-only one (bits = 1:
/// 7 + 12 bytes) whose x value is its sequence number, y 0, z 9.80665 (m/s²).
public struct HandBuiltRecording {
    public private(set) var bytes: [UInt8] = []
    public let version: UInt16
    /// Byte offset of each block appended, in order.
    public private(set) var blockOffsets: [Int] = []

    /// The file header: signature, `version`, and a `key=value` header with `utc_offset_ns` 0.
    public init(version: UInt16 = 2, rateHz: Double = 200) {
        self.version = version
        bytes = Array("EDGEMREC".utf8)
        Self.put(&bytes, UInt64(version), 2)
        Self.put(&bytes, 0, 2)
        let text = Array("format=edgemotion-recording\nformat_version=\(version)\nrate_hz=\(rateHz)\nsensors=accelerometer\nutc_offset_ns=0\n".utf8)
        Self.put(&bytes, UInt64(text.count), 4)
        bytes += text
        Self.put(&bytes, UInt64(Self.crc32(text)), 4)
    }

    /// Appends one block of `count` samples 5 ms apart, sequences `firstSequence`…; any of the
    /// block header's fields can be overridden with a wrong value (`sampleCountField`,
    /// `payloadLengthField`, `crcField`), the CRC being computed over what is written.
    public mutating func appendBlock(firstTimestampNanos: UInt64, firstSequence: UInt64, count: Int,
                                     sampleCountField: UInt32? = nil, payloadLengthField: UInt32? = nil,
                                     crcField: UInt32? = nil) {
        var payload: [UInt8] = []
        Self.put(&payload, firstTimestampNanos, 8)
        Self.put(&payload, firstSequence, 8)
        for i in 0..<count {
            Self.put(&payload, UInt64(i) * 5_000_000, 4)     // dt_ns from the base
            Self.put(&payload, UInt64(i), 2)                 // sequence delta
            payload.append(1)                                // accelerometer only, no flags
            for v in [Float(firstSequence + UInt64(i)), 0, 9.80665] { Self.put(&payload, UInt64(v.bitPattern), 4) }
        }
        var lengths: [UInt8] = []
        Self.put(&lengths, UInt64(payloadLengthField ?? UInt32(payload.count)), 4)
        Self.put(&lengths, UInt64(sampleCountField ?? UInt32(count)), 4)
        // Version 2: the CRC covers payload_length · sample_count · payload; version 1 the payload only.
        let crc = crcField ?? Self.crc32(version >= 2 ? lengths + payload : payload)
        blockOffsets.append(bytes.count)
        bytes += [0x45, 0x4D, 0x42, 0x4B]  // "EMBK"
        bytes += lengths
        Self.put(&bytes, UInt64(crc), 4)
        bytes += payload
    }

    /// Writes the file to `path`.
    public func write(to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw HandBuiltRecordingError(path: path) }
        defer { close(fd) }
        guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else { throw HandBuiltRecordingError(path: path) }
    }

    /// CRC-32 (IEEE, reflected polynomial 0xEDB88320) bit by bit: a second implementation,
    /// independent of the table-driven one under test. CRC-32 of "123456789" is 0xCBF43926.
    public static func crc32(_ data: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in data {
            c ^= UInt32(byte)
            for _ in 0..<8 { c = (c >> 1) ^ (0xEDB8_8320 & (0 &- (c & 1))) }
        }
        return ~c
    }

    static func put(_ b: inout [UInt8], _ v: UInt64, _ n: Int) {
        for i in 0..<n { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
    }
}

public struct HandBuiltRecordingError: Error { public var path: String }
