import MotionCore

/// Pure conversions from register bytes to SI units, shared by the chip drivers (host-tested).
public enum RegisterDecoding {
    /// Signed 16-bit value at `offset`, big-endian (InvenSense) or little-endian (Bosch, ST).
    @inlinable
    public static func int16(_ bytes: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool) -> Int16 {
        let a = UInt16(bytes[offset]), b = UInt16(bytes[offset + 1])
        return Int16(bitPattern: bigEndian ? (a << 8 | b) : (b << 8 | a))
    }

    /// Three consecutive 16-bit axes at `offset`, each multiplied by `scale`.
    @inlinable
    public static func vector(_ bytes: UnsafeRawBufferPointer, at offset: Int, bigEndian: Bool, scale: Double) -> Vector3 {
        Vector3(Double(int16(bytes, at: offset, bigEndian: bigEndian)) * scale,
                Double(int16(bytes, at: offset + 2, bigEndian: bigEndian)) * scale,
                Double(int16(bytes, at: offset + 4, bigEndian: bigEndian)) * scale)
    }

    /// m/s² per LSB for an accelerometer with `lsbPerG` counts per g.
    @inlinable public static func accelScale(lsbPerG: Double) -> Double { standardGravity / lsbPerG }
    /// rad/s per LSB for a gyroscope with `lsbPerDPS` counts per °/s.
    @inlinable public static func gyroScale(lsbPerDPS: Double) -> Double { (Double.pi / 180) / lsbPerDPS }

    /// The smallest table entry whose range covers `requested` (else the largest).
    public static func pickRange<T>(_ table: [(range: Double, value: T)], covering requested: Double) -> (range: Double, value: T) {
        table.first(where: { $0.range >= requested - 1e-9 }) ?? table[table.count - 1]
    }

    /// The slowest table rate at or above `requested` (else the fastest).
    public static func pickRate<T>(_ table: [(rate: Double, value: T)], atLeast requested: Double) -> (rate: Double, value: T) {
        table.first(where: { $0.rate >= requested - 1e-9 }) ?? table[table.count - 1]
    }
}
