import Platform

/// Reads a spool file's bytes (see `SpoolFormat`) into the unacknowledged messages it holds,
/// resynchronising after damage: a record whose length, CRC or body is wrong is not trusted (its
/// length may be the damaged part), so the reader moves on byte by byte to the next offset where a
/// complete, checksummed, well-formed record starts and goes on from there. A flipped bit in one
/// record therefore costs that record only, never the intact ones after it.
///
/// Pure (no I/O): `EventSpool` reads the file and hands its bytes here, and the libFuzzer target
/// `Tests/Fuzz/SpoolFuzzTarget.swift` feeds it arbitrary bytes.
public struct SpoolReader {
    /// What a scan found.
    public struct Result: Sendable, Equatable {
        /// Whether the file starts with `SpoolFormat.magic`. When not, nothing else was read.
        public var headerValid = false
        /// Unacknowledged messages, oldest first.
        public var pending: [SpoolEntry] = []
        /// Intact records read (messages and acknowledgements).
        public var intactRecords = 0
        /// Damaged stretches skipped (each a record or more whose bytes could not be trusted; a
        /// torn tail counts as one).
        public var skippedRecords = 0
        /// Bytes inside those stretches.
        public var skippedBytes = 0
        /// Whether the only damage is an incomplete last record (a write torn by a crash).
        public var onlyTornTail = false
        /// One more than the largest id seen (the next id to hand out), at least 1.
        public var nextID: UInt64 = 1
    }

    /// Scans `bytes`, a whole spool file.
    public static func scan(_ bytes: UnsafeRawBufferPointer) -> Result {
        var r = Result()
        let magic = SpoolFormat.magic
        guard bytes.count >= magic.count, zip(bytes[0..<magic.count], magic).allSatisfy({ $0 == $1 }) else { return r }
        r.headerValid = true
        var pending: [UInt64: SpoolEntry] = [:]
        var order: [UInt64] = []
        var offset = magic.count
        var damageStart: Int?
        var lastDamageWasTail = false
        func endDamage(at end: Int) {
            guard let start = damageStart else { return }
            r.skippedRecords += 1
            r.skippedBytes += end - start
            damageStart = nil
        }
        while offset < bytes.count {
            guard let record = parseRecord(bytes, at: offset) else {
                if damageStart == nil { damageStart = offset }
                offset += 1
                continue
            }
            endDamage(at: offset)
            r.intactRecords += 1
            offset = record.end
            r.nextID = max(r.nextID, record.id &+ 1)
            switch record.kind {
            case .ack:
                pending[record.id] = nil
            case .message(let entry):
                if pending[record.id] == nil { order.append(record.id) }
                pending[record.id] = entry
            }
        }
        if damageStart != nil {
            // Damage running to the end of the file: a torn tail when it is a single record's start.
            lastDamageWasTail = true
            endDamage(at: bytes.count)
        }
        r.onlyTornTail = lastDamageWasTail && r.skippedRecords == 1
        r.pending = order.compactMap { pending[$0] }
        return r
    }

    enum Kind { case ack, message(SpoolEntry) }
    struct Record { var id: UInt64; var kind: Kind; var end: Int }

    /// A complete, checksummed, well-formed record starting at `offset`, or nil.
    static func parseRecord(_ p: UnsafeRawBufferPointer, at offset: Int) -> Record? {
        guard p.count - offset >= SpoolFormat.recordHeaderBytes else { return nil }
        let length = Int(SpoolFormat.readUInt(p, at: offset, bytes: 4))
        let bodyStart = offset + SpoolFormat.recordHeaderBytes
        guard length >= SpoolFormat.ackBodyBytes, length <= SpoolFormat.maximumBodyBytes,
              length <= p.count - bodyStart else { return nil }
        // Cheap structural checks before the CRC, so resynchronising over garbage stays fast.
        let kind = p[bodyStart]
        switch kind {
        case SpoolFormat.kindAck: guard length == SpoolFormat.ackBodyBytes else { return nil }
        case SpoolFormat.kindMessage: guard length >= SpoolFormat.messageBodyFixedBytes else { return nil }
        default: return nil
        }
        let body = UnsafeRawBufferPointer(rebasing: p[bodyStart..<bodyStart + length])
        if kind == SpoolFormat.kindMessage {
            let topicLength = Int(SpoolFormat.readUInt(body, at: 11, bytes: 2))
            guard SpoolFormat.messageBodyFixedBytes + topicLength <= length, body[9] <= 2, body[10] <= 1 else { return nil }
        }
        let crc = UInt32(SpoolFormat.readUInt(p, at: offset + 4, bytes: 4))
        guard CRC32.checksum(body) == crc else { return nil }
        let id = SpoolFormat.readUInt(body, at: 1, bytes: 8)
        let end = bodyStart + length
        guard kind == SpoolFormat.kindMessage else { return Record(id: id, kind: .ack, end: end) }
        let topicLength = Int(SpoolFormat.readUInt(body, at: 11, bytes: 2))
        let topicStart = SpoolFormat.messageBodyFixedBytes
        let topic = String(decoding: body[topicStart..<topicStart + topicLength], as: UTF8.self)
        let payload = Array(body[(topicStart + topicLength)...])
        let entry = SpoolEntry(id: id, topic: topic, payload: payload, qos: Int(body[9]), retain: body[10] != 0)
        return Record(id: id, kind: .message(entry), end: end)
    }
}
