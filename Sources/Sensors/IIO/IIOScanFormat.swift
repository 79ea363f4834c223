import CIIO

/// Layout of one channel in an IIO buffer scan (`scan_elements/*_type`, e.g. `le:s16/16>>0`).
public struct IIOScanFormat: Sendable, Hashable {
    /// Storage size, bits (8, 16, 32, 64).
    public var storageBits: Int
    /// Significant bits.
    public var realBits: Int
    /// Right shift applied before masking.
    public var shift: Int
    public var isSigned: Bool
    public var isBigEndian: Bool

    public init(storageBits: Int, realBits: Int, shift: Int, isSigned: Bool, isBigEndian: Bool) {
        self.storageBits = storageBits
        self.realBits = realBits
        self.shift = shift
        self.isSigned = isSigned
        self.isBigEndian = isBigEndian
    }

    init(_ f: iio_data_format) {
        self.init(storageBits: Int(f.length), realBits: Int(f.bits), shift: Int(f.shift), isSigned: f.is_signed, isBigEndian: f.is_be)
    }

    /// Parses the sysfs `type` text `[be|le]:[s|u]bits/storagebits[Xrepeat]>>shift`.
    public init?(typeString text: String) {
        let t = text.trimmingCharacters(in: " \n")
        let parts = t.split(separator: ":")
        guard parts.count == 2, parts[0] == "le" || parts[0] == "be" else { return nil }
        var rest = Substring(parts[1])
        guard let sign = rest.first, sign == "s" || sign == "u" || sign == "S" || sign == "U" else { return nil }
        rest = rest.dropFirst()
        let shiftSplit = rest.split(separator: ">", omittingEmptySubsequences: true)
        guard shiftSplit.count == 2, let shift = Int(shiftSplit[1]) else { return nil }
        let bitsSplit = shiftSplit[0].split(separator: "/")
        guard bitsSplit.count == 2, let real = Int(bitsSplit[0]),
              let storage = Int(bitsSplit[1].split(separator: "X")[0]),
              [8, 16, 32, 64].contains(storage), real <= storage, real > 0 else { return nil }
        self.init(storageBits: storage, realBits: real, shift: shift, isSigned: sign == "s" || sign == "S", isBigEndian: parts[0] == "be")
    }

    /// Bytes per stored value.
    public var byteCount: Int { storageBits / 8 }

    /// Decodes one value at `pointer` (sign-extended from `realBits`).
    @inlinable
    public func decode(_ pointer: UnsafeRawPointer) -> Int64 {
        var raw: UInt64 = 0
        let n = storageBits / 8
        if isBigEndian {
            for i in 0..<n { raw = raw << 8 | UInt64(pointer.load(fromByteOffset: i, as: UInt8.self)) }
        } else {
            for i in (0..<n).reversed() { raw = raw << 8 | UInt64(pointer.load(fromByteOffset: i, as: UInt8.self)) }
        }
        raw >>= UInt64(shift)
        if realBits < 64 { raw &= (UInt64(1) << UInt64(realBits)) - 1 }
        if isSigned, realBits < 64, raw & (UInt64(1) << UInt64(realBits - 1)) != 0 {
            raw |= ~((UInt64(1) << UInt64(realBits)) - 1)
        }
        return Int64(bitPattern: raw)
    }
}
