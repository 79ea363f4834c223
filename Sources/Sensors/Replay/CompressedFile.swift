import CZlib

/// A read-only byte stream over a file that may be gzip-compressed (zlib's `gzread` reads plain
/// files transparently), with a reusable buffer: no allocation per read after `open`.
///
/// The corresponding C functions are `gzopen`, `gzread`, `gzclose`.
final class CompressedFile {
    let path: String
    private var handle: gzFile?

    init(path: String) throws(SensorError) {
        self.path = path
        guard let h = gzopen(path, "rb") else {
            throw SensorError(.notFound, subject: path, detail: "cannot open the recording; check the path and permissions")
        }
        handle = h
        gzbuffer(h, 1 << 16)
    }

    deinit { close() }

    /// Reads up to `buffer.count` bytes; returns 0 at end of file.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(SensorError) -> Int {
        guard let h = handle, let base = buffer.baseAddress else { return 0 }
        let n = gzread(h, base, UInt32(buffer.count))
        if n < 0 {
            var errnum: Int32 = 0
            let message = gzerror(h, &errnum).map { String(cString: $0) } ?? "unknown error"
            throw SensorError(.io, subject: path, detail: "read failed (\(message)); the file may be truncated or not gzip")
        }
        return Int(n)
    }

    func close() {
        if let h = handle { gzclose(h) }
        handle = nil
    }
}
