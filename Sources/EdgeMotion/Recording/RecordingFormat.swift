import MotionCore

/// The on-disk format of sensor recordings (`.emr`, version 2), little-endian throughout.
///
/// ```
/// file    := magic "EDGEMREC" (8 bytes) · version u16 · reserved u16 · header_length u32
///            · header (UTF-8 "key=value\n" lines) · header_crc u32 · block*
/// block   := "EMBK" u32 · payload_length u32 · sample_count u32 · block_crc u32 · payload
/// payload := base_timestamp_ns u64 · base_sequence u64 · sample*
/// sample  := dt_ns u32 (from base) · sequence_delta u16 · bits u8 · present vectors (3 × f32 each)
/// bits    := contents (bit 0 accelerometer, 1 gyroscope, 2 magnetometer) · flags << 3
///            (bit 3 hardware timestamp, bit 4 discontinuity)
/// ```
/// Values are `IMUSample`'s: specific force m/s² (IIO sign, +9.81 up at rest), raw rotation rate
/// rad/s, raw magnetic field µT, sensor frame, CLOCK_MONOTONIC ns timestamps; the header's
/// `utc_offset_ns` (realtime − monotonic when the file was created) converts them to UTC.
/// `block_crc` is the CRC-32 of `payload_length · sample_count · payload` (version 2); version 1
/// files (still read) covered only the payload, so a corrupted `sample_count` went unnoticed.
/// A block is written with one `write` and verified on read by its CRC and by walking its
/// samples, which must fill the payload exactly: a damaged block is skipped and counted
/// (`RecordingFileReader.damagedBlocks`), and a file cut short by a crash or power loss ends in
/// a torn block, which readers detect and skip (`RecordingFileReader.tornTail`).
public enum RecordingFormat {
    public static let magic: [UInt8] = Array("EDGEMREC".utf8)
    public static let version: UInt16 = 2
    public static let blockMagic: UInt32 = 0x4B42_4D45  // "EMBK" little-endian
    /// File name extension.
    public static let fileExtension = "emr"
    /// Samples per block at most (1 s at 200 Hz).
    public static let samplesPerBlock = 200
    /// Bytes of a block's fixed header (magic, length, count, CRC).
    static let blockHeaderSize = 16
    /// Bytes of a payload's base fields.
    static let payloadBaseSize = 16
    /// Largest encoded sample: dt, sequence delta, bits, three vectors.
    static let maximumSampleSize = 4 + 2 + 1 + 36
    /// Largest payload a writer produces (every version): base fields and `samplesPerBlock`
    /// samples of the largest size. A longer `payload_length` is damage.
    static let maximumPayloadSize = payloadBaseSize + samplesPerBlock * maximumSampleSize
    /// Smallest encoded sample: dt, sequence delta, bits, no vector.
    static let minimumSampleSize = 4 + 2 + 1

    /// Bytes of one encoded sample whose `bits` byte is `bits`: 7 plus 12 per present vector.
    static func sampleSize(bits: UInt8) -> Int {
        minimumSampleSize + 12 * (bits & 0x7).nonzeroBitCount
    }
}

/// The descriptive header of a recording file.
public struct RecordingHeader: Sendable, Equatable {
    /// Ordered `key=value` entries (keys without `=` or newlines).
    public var entries: [(String, String)]

    public static func == (a: Self, b: Self) -> Bool { a.entries.elementsEqual(b.entries, by: { $0 == $1 }) }

    public init(entries: [(String, String)]) { self.entries = entries }

    /// A header describing a recording made now from `source` at `rateHz`.
    public init(deviceID: String, source: String, rateHz: Double, sensors: IMUSample.Contents,
                utcOffsetNanos: Int64, createdUTCNanos: Int64, calibration: String = "none") {
        var names: [String] = []
        if sensors.contains(.accelerometer) { names.append("accelerometer") }
        if sensors.contains(.gyroscope) { names.append("gyroscope") }
        if sensors.contains(.magnetometer) { names.append("magnetometer") }
        entries = [
            ("format", "edgemotion-recording"),
            ("format_version", String(RecordingFormat.version)),
            ("created_utc_ns", String(createdUTCNanos)),
            ("device_id", deviceID),
            ("source", source),
            ("rate_hz", String(rateHz)),
            ("sensors", names.joined(separator: ",")),
            ("unit_specific_force", "m/s^2 (IIO sign: +9.80665 on the axis pointing up at rest)"),
            ("unit_rotation_rate", "rad/s (raw, not bias-corrected)"),
            ("unit_magnetic_field", "uT (raw, uncalibrated)"),
            ("frame", "sensor (after the source's mount matrix)"),
            ("clock", "CLOCK_MONOTONIC ns"),
            ("utc_offset_ns", String(utcOffsetNanos)),
            ("calibration", calibration),
        ]
    }

    public subscript(key: String) -> String? { entries.first { $0.0 == key }?.1 }

    public var rateHz: Double? { self["rate_hz"].flatMap(Double.init) }
    public var utcOffsetNanos: Int64 { self["utc_offset_ns"].flatMap { Int64($0) } ?? 0 }

    var encoded: [UInt8] {
        var text = ""
        for (k, v) in entries {
            text += k + "=" + v.replacing("\n", with: " ") + "\n"
        }
        return Array(text.utf8)
    }

    static func decode(_ bytes: [UInt8]) -> RecordingHeader {
        let text = String(decoding: bytes, as: UTF8.self)
        var entries: [(String, String)] = []
        for line in text.split(separator: "\n") {
            guard let eq = line.firstIndex(of: "=") else { continue }
            entries.append((String(line[..<eq]), String(line[line.index(after: eq)...])))
        }
        return RecordingHeader(entries: entries)
    }
}
