/// A behavioural model of the LSM6DSOX's single/double-tap engine, written from ST's application
/// note AN5272 (§5, the single-tap and double-tap recognition subsections) and the register
/// descriptions of DS13092 (TAP_CFG0 0x56, TAP_CFG1 0x57, TAP_CFG2 0x58, TAP_THS_6D 0x59,
/// INT_DUR2 0x5A, WAKE_UP_THS 0x5B, TAP_SRC 0x1C), NOT measured on silicon. Paraphrased from
/// memory of those documents (they could not be read for this change); the register fields are
/// the ones ST's `lsm6dsox_reg.h` declares (`lsm6dsox_tap_priority_t`: XYZ 0, YXZ 1, XZY 2,
/// ZYX 3, YZX 5, ZXY 6):
/// - Tap recognition watches the slope filter (TAP_CFG0.SLOPE_FDS = 0, the wake-up engine's):
///   slope(tₙ) = [acc(tₙ) − acc(tₙ₋₁)] / 2 per axis, in g. An axis takes part when its
///   TAP_x_EN bit is set (TAP_CFG0 bits 3:1 X, Y, Z) and has its own threshold TAP_THS_X
///   (TAP_CFG1 4:0), TAP_THS_Y (TAP_CFG2 4:0), TAP_THS_Z (TAP_THS_6D 4:0), 1 LSB = FS/2⁵.
/// - Single tap: the slope exceeds the threshold and returns below it within the SHOCK window
///   (INT_DUR2 bits 1:0: 0 = 4 ODR periods, else 8 per LSB); a tap still over threshold when the
///   window ends is no tap (the engine waits until every axis is below again).
/// - QUIET (bits 3:2: 0 = 2 ODR periods, else 4 per LSB): after a recognised tap, over-threshold
///   samples within the quiet window start no new tap.
/// - Double tap (WAKE_UP_THS bit 7 SINGLE_DOUBLE_TAP = 1): a second tap that starts after the
///   quiet window and within DUR (bits 7:4: 0 = 16 ODR periods, else 32 per LSB) of the first
///   one's recognition raises DOUBLE_TAP. Whether the chip also raises SINGLE_TAP for the second
///   tap (and for the first before knowing) is the open question of docs/chip-engines.md; the
///   model raises SINGLE_TAP for every tap and DOUBLE_TAP beside it for the second of a pair, so a
///   pair counts as two taps, as the software detector counts it.
/// - Priority (TAP_CFG1 bits 7:5): when several enabled axes exceed their thresholds at the onset,
///   TAP_SRC reports the one first in the priority order (X_TAP bit 2, Y_TAP bit 1, Z_TAP bit 0)
///   and the tap is followed on that axis alone until it returns below its threshold.
/// The windows are ODR periods of the chip's ODR (CTRL1_XL ODR_XL bits 7:4), kept in seconds so a
/// recording at another rate sees the same lengths. Fed the register bytes the driver wrote; one
/// sample per call with its time; returns the TAP_SRC byte latched at that sample (TAP_IA bit 6,
/// SINGLE_TAP bit 5, DOUBLE_TAP bit 4, X/Y/Z_TAP bits 2:0).
struct LSM6DSOXTapModel {
    let thresholdsG: [Double]
    let enabledAxes: [Bool]
    /// Axis indices (0 x, 1 y, 2 z) in TAP_PRIORITY order.
    let priority: [Int]
    let shock: Double, quiet: Double, window: Double
    let doubleTap: Bool
    private var previous: [Double]?
    private var onset = Double.nan
    private var axis = 0
    private var rejected = false
    private var lastTap = -Double.infinity
    private var pairOpen = false

    /// `odr` Hz: the chip's ODR (from CTRL1_XL); `fullScaleG` from CTRL1_XL FS_XL.
    init(tapCfg0: UInt8, tapCfg1: UInt8, tapCfg2: UInt8, tapThs6D: UInt8, intDur2: UInt8, wakeUpThs: UInt8,
         fullScaleG: Double, odr: Double) {
        let lsb = fullScaleG / 32
        thresholdsG = [tapCfg1, tapCfg2, tapThs6D].map { Double($0 & 0x1F) * lsb }
        enabledAxes = [tapCfg0 & 0x08 != 0, tapCfg0 & 0x04 != 0, tapCfg0 & 0x02 != 0]
        priority = [0: [0, 1, 2], 1: [1, 0, 2], 2: [0, 2, 1], 3: [2, 1, 0], 5: [1, 2, 0], 6: [2, 0, 1]][Int(tapCfg1 >> 5)] ?? [0, 1, 2]
        let s = Double(intDur2 & 0x03), q = Double((intDur2 >> 2) & 0x03), d = Double(intDur2 >> 4)
        shock = (s == 0 ? 4 : 8 * s) / odr
        quiet = (q == 0 ? 2 : 4 * q) / odr
        window = (d == 0 ? 16 : 32 * d) / odr
        doubleTap = wakeUpThs & 0x80 != 0
    }

    /// One accelerometer sample in g (chip axes) at `time` s; the TAP_SRC byte for it (0: no tap).
    mutating func update(time: Double, _ x: Double, _ y: Double, _ z: Double) -> UInt8 {
        let a = [x, y, z]
        defer { previous = a }
        guard let p = previous else { return 0 }
        let over = (0..<3).map { enabledAxes[$0] && abs(a[$0] - p[$0]) / 2 > thresholdsG[$0] }
        if rejected {
            if !over.contains(true) { rejected = false }
            return 0
        }
        if onset.isNaN {
            guard time - lastTap >= quiet - 1e-9, let first = priority.first(where: { over[$0] }) else { return 0 }
            onset = time
            axis = first
            return 0
        }
        if over[axis] {
            if time - onset > shock + 1e-9 { onset = .nan; rejected = true }
            return 0
        }
        // Back below within the shock window: a tap, decided now.
        let second = doubleTap && pairOpen && onset - lastTap <= window + 1e-9
        onset = .nan
        lastTap = time
        pairOpen = !second
        return 0x40 | 0x20 | (second ? 0x10 : 0) | [0x04, 0x02, 0x01][axis]
    }
}
