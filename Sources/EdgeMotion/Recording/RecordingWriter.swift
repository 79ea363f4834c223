import MotionCore

#if canImport(Glibc)
import Glibc
#endif
import Platform

/// Writes one recording file: the header, then samples gathered into CRC-checked blocks of up
/// to `RecordingFormat.samplesPerBlock`. Each block goes to the kernel with one `write`; the
/// file is `fdatasync`ed when closed. The block buffer is preallocated: `append` does not allocate.
///
/// Not thread-safe: one writer thread (the pipeline's processing thread).
public final class RecordingWriter {
    public let path: String
    public let header: RecordingHeader
    /// Bytes written to the file so far (header and complete blocks).
    public private(set) var bytesWritten: Int = 0
    /// Samples written (in complete blocks) plus those in the current block.
    public private(set) var samplesAppended: UInt64 = 0
    private var fd: Int32
    private var block: [UInt8]
    private var blockSamples = 0
    private var baseTimestamp: UInt64 = 0
    private var baseSequence: UInt64 = 0
    private var lastSequence: UInt64 = 0

    /// Creates `path` (which must not exist) and writes the header.
    public init(path: String, header: RecordingHeader) throws(RecordingError) {
        self.path = path
        self.header = header
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o640)
        guard fd >= 0 else { throw RecordingError.system(path, "create the recording file") }
        block = []
        block.reserveCapacity(RecordingFormat.blockHeaderSize + RecordingFormat.payloadBaseSize
                              + RecordingFormat.samplesPerBlock * RecordingFormat.maximumSampleSize)
        var head: [UInt8] = RecordingFormat.magic
        put16(&head, RecordingFormat.version)
        put16(&head, 0)
        let text = header.encoded
        put32(&head, UInt32(text.count))
        head += text
        put32(&head, CRC32.checksum(text))
        do {
            try writeAll(head)
        } catch {
            Glibc.close(fd)
            unlink(path)
            throw error
        }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Adds one sample. Writes a block when it is full, or first when the sample cannot be
    /// expressed relative to the block's base (time step ≥ 4.29 s, sequence step ≥ 65536, clock
    /// going backwards).
    public func append(_ s: IMUSample) throws(RecordingError) {
        if blockSamples > 0 {
            let fits = s.timestampNanos >= baseTimestamp && s.timestampNanos - baseTimestamp <= UInt64(UInt32.max)
                && s.sequence >= lastSequence && s.sequence - baseSequence <= UInt64(UInt16.max)
            if !fits || blockSamples >= RecordingFormat.samplesPerBlock { try flush() }
        }
        if blockSamples == 0 {
            block.removeAll(keepingCapacity: true)
            for _ in 0..<RecordingFormat.blockHeaderSize { block.append(0) }
            baseTimestamp = s.timestampNanos
            baseSequence = s.sequence
            append64(baseTimestamp)
            append64(baseSequence)
        }
        append32(UInt32(s.timestampNanos - baseTimestamp))
        append16(UInt16(s.sequence - baseSequence))
        let contents = UInt8(truncatingIfNeeded: s.contents.rawValue & 0x7)
        let flags = UInt8(truncatingIfNeeded: s.flags.rawValue & 0x3)
        block.append(contents | flags << 3)
        if s.contents.contains(.accelerometer) { putVector(s.specificForce) }
        if s.contents.contains(.gyroscope) { putVector(s.rotationRate) }
        if s.contents.contains(.magnetometer) { putVector(s.magneticField) }
        lastSequence = s.sequence
        blockSamples += 1
        samplesAppended += 1
        if blockSamples >= RecordingFormat.samplesPerBlock { try flush() }
    }

    /// Writes the current block (if any) to the file.
    public func flush() throws(RecordingError) {
        guard blockSamples > 0 else { return }
        let payloadLength = block.count - RecordingFormat.blockHeaderSize
        block.withUnsafeMutableBytes { b in
            b.storeBytes(of: RecordingFormat.blockMagic.littleEndian, toByteOffset: 0, as: UInt32.self)
            b.storeBytes(of: UInt32(payloadLength).littleEndian, toByteOffset: 4, as: UInt32.self)
            b.storeBytes(of: UInt32(blockSamples).littleEndian, toByteOffset: 8, as: UInt32.self)
            // Version 2: the CRC covers payload_length and sample_count, then the payload.
            let lengths = CRC32.checksum(UnsafeRawBufferPointer(rebasing: b[4..<12]))
            let crc = CRC32.checksum(UnsafeRawBufferPointer(rebasing: b[RecordingFormat.blockHeaderSize...]), continuing: lengths)
            b.storeBytes(of: crc.littleEndian, toByteOffset: 12, as: UInt32.self)
        }
        blockSamples = 0
        try writeAll(block)
    }

    /// Flushes, syncs and closes. Idempotent.
    public func close() throws(RecordingError) {
        guard fd >= 0 else { return }
        defer {
            Glibc.close(fd)
            fd = -1
        }
        try flush()
        if fdatasync(fd) != 0 { throw RecordingError.system(path, "sync the recording file") }
    }

    private func writeAll(_ bytes: [UInt8]) throws(RecordingError) {
        // Retries EINTR and short writes; a 0-byte write is EIO (FileDescriptor.writeAll).
        if let error = FileDescriptor(rawValue: fd).writeAll(bytes) {
            throw RecordingError.system(path, "write the recording file", code: error.code)
        }
        bytesWritten += bytes.count
    }

    @inline(__always) private func putVector(_ v: Vector3) {
        append32(Float(v.x).bitPattern)
        append32(Float(v.y).bitPattern)
        append32(Float(v.z).bitPattern)
    }

    @inline(__always) private func append16(_ v: UInt16) {
        block.append(UInt8(truncatingIfNeeded: v))
        block.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    @inline(__always) private func append32(_ v: UInt32) {
        block.append(UInt8(truncatingIfNeeded: v))
        block.append(UInt8(truncatingIfNeeded: v >> 8))
        block.append(UInt8(truncatingIfNeeded: v >> 16))
        block.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    @inline(__always) private func append64(_ v: UInt64) {
        append32(UInt32(truncatingIfNeeded: v))
        append32(UInt32(truncatingIfNeeded: v >> 32))
    }
}

@inline(__always) func put16(_ b: inout [UInt8], _ v: UInt16) {
    b.append(UInt8(truncatingIfNeeded: v)); b.append(UInt8(truncatingIfNeeded: v >> 8))
}
@inline(__always) func put32(_ b: inout [UInt8], _ v: UInt32) {
    for i in 0..<4 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt32(i)))) }
}
@inline(__always) func put64(_ b: inout [UInt8], _ v: UInt64) {
    for i in 0..<8 { b.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) }
}
