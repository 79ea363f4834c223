import Foundation

/// A behavioural model of the LSM6DSOX's 6D orientation engine, written from ST's application
/// note AN5272 (§5, the 6D/4D orientation detection subsection) and the register descriptions of
/// DS13092 (TAP_THS_6D 0x59, CTRL8_XL 0x17, D6D_SRC 0x1D), NOT measured on silicon. Paraphrased
/// from memory of those documents (they could not be read for this change); the fields are the
/// ones ST's `lsm6dsox_reg.h` declares (`lsm6dsox_sixd_ths_t`, `lsm6dsox_ctrl8_xl_t`):
/// - SIXD_THS (TAP_THS_6D bits 6:5): 0 = 80°, 1 = 70°, 2 = 60°, 3 = 50°. An axis is "high"
///   (XH/YH/ZH) when it reads more than sin(threshold) g, "low" (XL/YL/ZL) when less than
///   −sin(threshold) g; D4D_EN (bit 7) would drop the Z faces (the driver leaves it 0).
/// - D6D_IA (D6D_SRC bit 6) is raised when the device switches from one position to another:
///   when the six position bits differ from those of the previous sample; latched (LIR) until the
///   per-edge read, so at one sample per read it marks the sample of the change, with the new
///   position bits in the same byte. No duration: the dwell is the host's (`ChipOrientationGate`).
/// - Filtering: with CTRL8_XL.LOW_PASS_ON_6D (bit 0) the engine reads the LPF2 output, cut-off
///   ODR/4, /10, /20, /45, /100, /200, /400, /800 for HPCF_XL (bits 7:5) 0…7 (modelled as a
///   first-order low-pass; the cut-off table also in a public register crate's `HpcfXl`);
///   without it the LPF1 output (ODR/2: the samples as they are).
/// The position bits: XL bit 0, XH bit 1, YL bit 2, YH bit 3, ZL bit 4, ZH bit 5. Fed the register
/// bytes the driver wrote; one sample per call with its time; returns the D6D_SRC byte at it.
struct LSM6DSOX6DModel {
    let level: Double
    let ignoresZ: Bool
    /// Hz; nil without LOW_PASS_ON_6D.
    let cutoffHz: Double?
    private var filtered: (t: Double, x: Double, y: Double, z: Double)?
    private var position: UInt8 = 0

    /// `odr` Hz: the chip's ODR (from CTRL1_XL).
    init(tapThs6D: UInt8, ctrl8Xl: UInt8, odr: Double) {
        level = sin([80.0, 70, 60, 50][Int((tapThs6D >> 5) & 0x03)] * .pi / 180)
        ignoresZ = tapThs6D & 0x80 != 0
        cutoffHz = ctrl8Xl & 0x01 != 0 ? odr / [4.0, 10, 20, 45, 100, 200, 400, 800][Int(ctrl8Xl >> 5)] : nil
    }

    /// One accelerometer sample in g (chip axes) at `time` s; the D6D_SRC byte for it.
    mutating func update(time: Double, _ x: Double, _ y: Double, _ z: Double) -> UInt8 {
        var g = (t: time, x: x, y: y, z: z)
        if let c = cutoffHz, let p = filtered {
            // y[n] = y[n−1] + α (x[n] − y[n−1]), α = dt / (RC + dt), RC = 1 / (2π f_c).
            let dt = time - p.t, a = dt / (1 / (2 * Double.pi * c) + dt)
            g = (time, p.x + a * (x - p.x), p.y + a * (y - p.y), p.z + a * (z - p.z))
        }
        filtered = g
        var bits: UInt8 = 0
        if g.x < -level { bits |= 0x01 }
        if g.x > level { bits |= 0x02 }
        if g.y < -level { bits |= 0x04 }
        if g.y > level { bits |= 0x08 }
        if !ignoresZ, g.z < -level { bits |= 0x10 }
        if !ignoresZ, g.z > level { bits |= 0x20 }
        defer { position = bits }
        return bits | (bits != position ? 0x40 : 0)
    }
}
