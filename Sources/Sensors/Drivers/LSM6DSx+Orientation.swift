import MotionCore

// MARK: LSM6DSOX 6D orientation engine: register codes
//
// Register fields from ST's lsm6dsox_reg.h (STMems standard C driver):
// - D6D_SRC 0x1D (right after WAKE_UP_SRC 0x1B and TAP_SRC 0x1C, so one 3-byte burst reads all
//   three): XL bit 0, XH bit 1, YL bit 2, YH bit 3, ZL bit 4, ZH bit 5 ("H": the axis over the
//   threshold, "L": under minus the threshold), D6D_IA bit 6 (the position changed), DEN_DRDY bit 7.
// - TAP_THS_6D 0x59: TAP_THS_Z bits 4:0, SIXD_THS bits 6:5 (`lsm6dsox_sixd_ths_t`: DEG_80 = 0,
//   DEG_70 = 1, DEG_60 = 2, DEG_50 = 3), D4D_EN bit 7 (4D: no Z faces; left 0 for 6D).
// - MD1_CFG 0x5E bit 2 INT1_6D; CTRL8_XL 0x17 bit 0 LOW_PASS_ON_6D (LPF2 output to the 6D engine),
//   bits 7:5 HPCF_XL (the LPF2 cut-off, ODR/4 … ODR/800).
//
// Used by `programEventEngines` and `decodeEventSources` (LSM6DSx+EventEngines.swift); the chip's
// face is carried on the sample as `IMUSample.Flags.chipOrientation` + `chipFace` and published by
// `ChipOrientationGate`. The software reference is `OrientationDetector`, whose faces map to the
// bits below and whose `events.orientation_deg` takes only these four angles.
extension LSM6DSx {
    /// D6D_SRC bit 6 D6D_IA: the 6D engine saw a change of position.
    public static let orientationActive: UInt8 = 0x40
    /// MD1_CFG bit 2 INT1_6D: 6D routed to INT1.
    public static let int1Orientation: UInt8 = 0x04
    /// CTRL8_XL bit 0 LOW_PASS_ON_6D: the 6D engine works on the LPF2 output.
    public static let lowPassOn6D: UInt8 = 0x01
    /// LPF2 cut-off = ODR ÷ these, for CTRL8_XL HPCF_XL (bits 7:5) codes 0…7 (DS13092, CTRL8_XL;
    /// `lsm6dsox_hp_slope_xl_en_t`'s LP_ODR_DIV_4 … LP_ODR_DIV_800).
    public static let lowPass2Divisors: [Double] = [4, 10, 20, 45, 100, 200, 400, 800]
    /// CTRL8_XL for the 6D engine at `odr` Hz: LOW_PASS_ON_6D with the HPCF_XL code whose LPF2
    /// cut-off (ODR ÷ 4 … ÷ 800) is nearest `lowPassHz`, the software orientation detector's
    /// low-pass (`events.tilt_cutoff_hz`, 2 Hz by default), so both see the same smoothed gravity
    /// (at 2 Hz: 416 Hz ÷ 200 = 2.08 Hz, code 5, 0xA1; 26 Hz ÷ 10 = 2.6 Hz, code 1, 0x21). At reset (code 0, ÷ 4: 104 Hz at 416 Hz)
    /// a hand's jitter made the face flicker at a cone's edge (docs/chip-engines.md). HPCF_XL
    /// also sets the output LPF2 and the high-pass, which are off here (LPF2_XL_EN and
    /// HP_SLOPE_XL_EN stay 0), so the published samples and the tap/wake-up slope are unchanged.
    public static func control8Accel6D(odr: Double, lowPassHz: Double = MotionEventConfiguration().tiltCutoff) -> UInt8 {
        let distances = lowPass2Divisors.map { abs(odr / $0 - lowPassHz) }
        let code = distances.indices.min { distances[$0] < distances[$1] } ?? 0
        return UInt8(code) << 5 | lowPassOn6D
    }

    /// SIXD_THS (0…3) for a threshold of 80, 70, 60 or 50 degrees; `nil` for another angle.
    public static func orientationThresholdCode(degrees: Double) -> UInt8? {
        switch degrees {
        case 80: 0
        case 70: 1
        case 60: 2
        case 50: 3
        default: nil
        }
    }

    /// TAP_THS_6D: the tap engine's TAP_THS_Z (bits 4:0) with SIXD_THS (bits 6:5), D4D_EN 0 (6D).
    public static func tapThreshold6DRegister(tapThresholdZ: UInt8, orientationCode: UInt8) -> UInt8 {
        (tapThresholdZ & 0x1F) | (orientationCode & 0x03) << 5
    }

    /// The face a D6D_SRC value reports: `nil` without D6D_IA (no 6D event), else the face of
    /// its one position bit (ZH face up, ZL face down, YH portrait, YL upside down, XH landscape
    /// left, XL landscape right: `DeviceFace` on the chip axes), `.unknown` when not exactly one
    /// is set. DEN_DRDY (bit 7) is ignored.
    public static func decodeOrientation(d6dSource: UInt8) -> DeviceFace? {
        guard d6dSource & orientationActive != 0 else { return nil }
        switch d6dSource & 0x3F {
        case 0x20: return .faceUp
        case 0x10: return .faceDown
        case 0x08: return .portrait
        case 0x04: return .portraitUpsideDown
        case 0x02: return .landscapeLeft
        case 0x01: return .landscapeRight
        default: return .unknown
        }
    }
}
