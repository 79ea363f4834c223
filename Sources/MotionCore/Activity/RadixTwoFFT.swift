/// In-place iterative radix-2 complex FFT of one fixed power-of-two size, with its twiddle and
/// bit-reversal tables and work buffers allocated once in `init` (no allocation per transform).
public final class RadixTwoFFT {
    public let size: Int
    /// Real and imaginary parts, `size` each: fill, call `forward()`, read back.
    public let real: UnsafeMutableBufferPointer<Double>
    public let imaginary: UnsafeMutableBufferPointer<Double>
    private let cosTable: UnsafeMutableBufferPointer<Double>
    private let sinTable: UnsafeMutableBufferPointer<Double>
    private let reversed: UnsafeMutableBufferPointer<Int>

    /// `size` must be a power of two ≥ 2.
    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        real = .allocate(capacity: size)
        imaginary = .allocate(capacity: size)
        real.initialize(repeating: 0)
        imaginary.initialize(repeating: 0)
        cosTable = .allocate(capacity: size / 2)
        sinTable = .allocate(capacity: size / 2)
        for k in 0..<size / 2 {
            let a = -2 * Double.pi * Double(k) / Double(size)
            cosTable[k] = a.cos
            sinTable[k] = a.sin
        }
        reversed = .allocate(capacity: size)
        var bits = 0
        while 1 << bits < size { bits += 1 }
        for i in 0..<size {
            var r = 0
            var v = i
            for _ in 0..<bits {
                r = (r << 1) | (v & 1)
                v >>= 1
            }
            reversed[i] = r
        }
    }

    deinit {
        real.deallocate()
        imaginary.deallocate()
        cosTable.deallocate()
        sinTable.deallocate()
        reversed.deallocate()
    }

    /// Forward transform (e^{−2πi kn/N}) of `real` + i·`imaginary`, in place.
    public func forward() {
        let n = size
        for i in 0..<n {
            let j = reversed[i]
            if j > i {
                let tr = real[i]; real[i] = real[j]; real[j] = tr
                let ti = imaginary[i]; imaginary[i] = imaginary[j]; imaginary[j] = ti
            }
        }
        var half = 1
        while half < n {
            let step = n / (2 * half)
            var start = 0
            while start < n {
                for k in 0..<half {
                    let c = cosTable[k * step]
                    let s = sinTable[k * step]
                    let a = start + k
                    let b = a + half
                    let xr = real[b] * c - imaginary[b] * s
                    let xi = real[b] * s + imaginary[b] * c
                    real[b] = real[a] - xr
                    imaginary[b] = imaginary[a] - xi
                    real[a] += xr
                    imaginary[a] += xi
                }
                start += 2 * half
            }
            half *= 2
        }
    }
}
