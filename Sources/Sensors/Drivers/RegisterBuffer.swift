/// The drivers' preallocated transfer buffers (bursts, status bytes, FIFO frames): allocated once
/// when a driver is made or its FIFO enabled, zero-filled, freed in `deinit`; nothing per sample.
extension UnsafeMutableRawBufferPointer {
    /// A new buffer of `byteCount` zero bytes; the caller deallocates it.
    static func zeroed(byteCount: Int, alignment: Int) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: byteCount, alignment: alignment)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        return buffer
    }
}
