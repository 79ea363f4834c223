import Platform

/// The on-disk layout of the spool file (all integers little-endian):
///
/// ```
/// file    := "EMSPOOL1" record*
/// record  := u32 bodyLength, u32 crc32(body), body
/// body    := u8 kind, u64 id, rest
///   kind 1 (message): u8 qos, u8 retain, u16 topicLength, topic bytes (UTF-8), payload bytes
///   kind 2 (ack):     nothing — message `id` was acknowledged by the broker
/// ```
/// Records are only ever appended; an acknowledgement is a new record, never an in-place edit, so
/// a crash can only tear the last record, which the CRC (or a length running past the end of the
/// file) reveals. The file is rewritten (to a temporary file, then `rename`) only to compact it.
enum SpoolFormat {
    static let magic: [UInt8] = Array("EMSPOOL1".utf8)
    static let recordHeaderBytes = 8
    /// kind + id + qos + retain + topic length.
    static let messageBodyFixedBytes = 1 + 8 + 1 + 1 + 2
    static let ackBodyBytes = 1 + 8
    static let kindMessage: UInt8 = 1
    static let kindAck: UInt8 = 2
    /// Larger bodies are treated as a corrupt length field (MQTT payloads here are far smaller).
    static let maximumBodyBytes = 16 << 20

    static func appendUInt(_ value: UInt64, bytes: Int, to out: inout [UInt8]) {
        for i in 0..<bytes { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    static func readUInt(_ p: UnsafeRawBufferPointer, at offset: Int, bytes: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<bytes { v |= UInt64(p[offset + i]) << (8 * UInt64(i)) }
        return v
    }

    /// A complete record (header + body) for `body`.
    static func record(body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(recordHeaderBytes + body.count)
        appendUInt(UInt64(body.count), bytes: 4, to: &out)
        appendUInt(UInt64(CRC32.checksum(body)), bytes: 4, to: &out)
        out += body
        return out
    }

    static func messageRecord(_ e: SpoolEntry) -> [UInt8] {
        var body: [UInt8] = []
        body.reserveCapacity(messageBodyFixedBytes + e.topic.utf8.count + e.payload.count)
        body.append(kindMessage)
        appendUInt(e.id, bytes: 8, to: &body)
        body.append(UInt8(clamping: e.qos))
        body.append(e.retain ? 1 : 0)
        appendUInt(UInt64(e.topic.utf8.count), bytes: 2, to: &body)
        body += e.topic.utf8
        body += e.payload
        return record(body: body)
    }

    static func ackRecord(id: UInt64) -> [UInt8] {
        var body: [UInt8] = [kindAck]
        appendUInt(id, bytes: 8, to: &body)
        return record(body: body)
    }
}
