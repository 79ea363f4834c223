import CZlib

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320) through zlib's `crc32`: the checksum of
/// spool records and recording blocks, so a torn or corrupted record is detected on replay.
public enum CRC32 {
    /// The CRC-32 of `bytes`, continuing from `crc` (0 to start).
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return crc }
        var c = UInt(crc)
        var offset = 0
        // zlib's length is a 32-bit `uInt`.
        while offset < bytes.count {
            let n = Swift.min(bytes.count - offset, Int(UInt32.max))
            c = UInt(crc32(c, (base + offset).assumingMemoryBound(to: UInt8.self), UInt32(n)))
            offset += n
        }
        return UInt32(truncatingIfNeeded: c)
    }

    /// The CRC-32 of `bytes`.
    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }
}
