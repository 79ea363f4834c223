import MotionCore

// MARK: BMI160 event engines: any-motion, low-g (free fall), single/double tap — codes and decoding
//
// NOT YET WIRED: `configure` does not program these engines, `IMUChipModel.chipEngines` does not
// list them for the BMI160 and `events.chip_engines` still refuses it. This file holds the pure
// part (settings → register codes, the per-edge status decoding with the tap rising edge) so the
// wiring can follow. Register fields as researched from Bosch's bmi160_defs.h (BMI160 sensor API),
// Intel CurieIMU BMI160.cpp, Zephyr and Chrome EC drivers; not re-read from the data sheet here:
// - INT_EN_0 0x50: anymotion x/y/z bits 2:0, d_tap bit 4, s_tap bit 5. INT_EN_1 0x51: low_g bit 3,
//   drdy bit 4.
// - INT_OUT_CTRL 0x53: int1 edge bit 0, lvl bit 1, od bit 2, output_en bit 3; int2 the same in
//   bits 7:4. INT_LATCH 0x54 bits 3:0: 0 none, 1 312.5 µs, 2 625 µs, 3 1.25 ms, 4 2.5 ms, 5 5 ms,
//   6 10 ms, 7 20 ms, 8 40 ms, 9 80 ms, 10 160 ms, 11 320 ms, 12 640 ms, 13 1.28 s, 14 2.56 s,
//   15 latched (cleared by CMD 0xB1 int_reset).
// - INT_MAP_2 0x57 (INT2; INT_MAP_0 0x55 is INT1): low_g bit 0, anymotion bit 2, d_tap bit 4,
//   s_tap bit 5. INT_MAP_1 0x56 bit 7: drdy → INT1.
// - INT_LOWHIGH_0 0x5A low_dur, (val + 1) · 2.5 ms; INT_LOWHIGH_1 0x5B low_th, 7.81 mg LSB;
//   INT_LOWHIGH_2 0x5C low_mode bit 2 (1 = sum |x|+|y|+|z|).
// - INT_MOTION_0 0x5F bits 1:0 anym_dur = consecutive samples − 1; INT_MOTION_1 0x60 anym_th,
//   3.91/7.81/15.63/31.25 mg LSB at ±2/4/8/16 g.
// - INT_TAP_0 0x63: dur bits 2:0 (50, 100, 150, 200, 250, 375, 500, 700 ms), shock bit 6
//   (0 = 50 ms, 1 = 75 ms), quiet bit 7 (0 = 30 ms, 1 = 20 ms). INT_TAP_1 0x64 bits 4:0 tap_th,
//   62.5 mg LSB at ±2 g (scales with the range).
// - INT_STATUS_0 0x1C: anym bit 2, d_tap bit 4, s_tap bit 5. INT_STATUS_1 0x1D: low_g bit 3,
//   drdy bit 4. Reading does not clear them.
extension BMI160 {
    /// INT_STATUS_0 bit 2 anym.
    public static let statusAnyMotion: UInt8 = 0x04
    /// INT_STATUS_0 bit 4 d_tap.
    public static let statusDoubleTap: UInt8 = 0x10
    /// INT_STATUS_0 bit 5 s_tap.
    public static let statusSingleTap: UInt8 = 0x20
    /// INT_STATUS_1 bit 3 low_g.
    public static let statusLowG: UInt8 = 0x08
    /// INT_LATCH lengths in s for codes 0…14 (15 = latched until int_reset).
    public static let latchSeconds: [Double] =
        [0, 312.5e-6, 625e-6, 1.25e-3, 2.5e-3, 5e-3, 10e-3, 20e-3, 40e-3, 80e-3, 160e-3, 320e-3, 640e-3, 1.28, 2.56]
    /// INT_TAP_0 tap_dur lengths in s for codes 0…7.
    public static let tapDurationSeconds: [Double] = [0.05, 0.1, 0.15, 0.2, 0.25, 0.375, 0.5, 0.7]

    /// INT_MOTION_1 anym_th for a threshold in m/s² at ±`fullScaleG`: 1 LSB = FS/512 g
    /// (3.91 mg at ±2 g), nearest, 1…255 (0 would flag every sample).
    public static func anyMotionThresholdCode(ms2: Double, fullScaleG: Double) -> UInt8 {
        UInt8(max(1, min(255, (ms2 / standardGravity / (fullScaleG / 512)).rounded())))
    }

    /// INT_MOTION_0 anym_dur for `seconds` at `odr` Hz: consecutive samples (1…4) − 1.
    public static func anyMotionDurationCode(seconds: Double, odr: Double) -> UInt8 {
        UInt8(max(1, min(4, (seconds * odr).rounded())) - 1)
    }

    /// INT_LOWHIGH_1 low_th for `g` (sum mode): 1 LSB = 7.81 mg (1/128 g), nearest, 0…255.
    public static func lowGThresholdCode(g: Double) -> UInt8 {
        UInt8(max(0, min(255, (g * 128).rounded())))
    }

    /// INT_LOWHIGH_0 low_dur for `seconds`: (code + 1) · 2.5 ms, nearest, 0…255.
    public static func lowGDurationCode(seconds: Double) -> UInt8 {
        UInt8(max(0, min(255, (seconds / 2.5e-3).rounded() - 1)))
    }

    /// INT_TAP_1 tap_th for `g` at ±`fullScaleG`: 1 LSB = FS/32 g (62.5 mg at ±2 g), nearest, 1…31.
    public static func tapThresholdCode(g: Double, fullScaleG: Double) -> UInt8 {
        UInt8(max(1, min(31, (g / (fullScaleG / 32)).rounded())))
    }

    /// INT_TAP_0 for the tap timing: tap_dur the nearest of 50…700 ms to the double-tap gap; shock
    /// 75 ms (bit 6) when the impulse limit is nearer 75 than 50 ms; quiet 20 ms (bit 7) when the
    /// quiet-after is nearer 20 than 30 ms.
    public static func tapTimingRegister(_ t: TapInterruptSettings) -> UInt8 {
        var r = nearest(tapDurationSeconds, to: t.doubleTapMaximumGap)
        if abs(t.maximumDuration - 0.075) < abs(t.maximumDuration - 0.05) { r |= 0x40 }
        if abs(t.quietAfter - 0.02) < abs(t.quietAfter - 0.03) { r |= 0x80 }
        return r
    }

    /// INT_LATCH code for a temporary latch of about two sample periods at `odr` Hz (the nearest
    /// of the 14 temporary lengths; never 0 = non-latched, never 15 = latched).
    public static func temporaryLatchCode(odr: Double) -> UInt8 {
        max(1, nearest(latchSeconds, to: 2 / odr))
    }

    private static func nearest(_ values: [Double], to x: Double) -> UInt8 {
        var best = 0
        for i in values.indices where abs(values[i] - x) < abs(values[best] - x) { best = i }
        return UInt8(best)
    }

    /// Decodes the INT_STATUS_0/INT_STATUS_1 pair read on each data-ready edge. Any-motion and
    /// low-g follow their status bit (non-latched: a flag on every sample while the condition
    /// holds); single and double tap flag only the sample where their bit rises, so one tap held
    /// by the temporary latch over two samples gives one flag. Allocation-free.
    public struct EventDecoder: Sendable {
        /// The engines programmed; bits of others are ignored.
        public let enabled: IMUSample.Flags
        private var previousTapBits: UInt8 = 0

        public init(enabled: IMUSample.Flags) { self.enabled = enabled }

        /// The chip flags of one status pair, within `enabled`.
        public mutating func decode(status0: UInt8, status1: UInt8) -> IMUSample.Flags {
            let tapBits = status0 & (BMI160.statusSingleTap | BMI160.statusDoubleTap)
            let rising = tapBits & ~previousTapBits
            previousTapBits = tapBits
            var raw: UInt32 = 0
            if status0 & BMI160.statusAnyMotion != 0 { raw |= IMUSample.Flags.chipMotion.rawValue }
            if status1 & BMI160.statusLowG != 0 { raw |= IMUSample.Flags.chipFreeFall.rawValue }
            if rising & BMI160.statusSingleTap != 0 { raw |= IMUSample.Flags.chipTap.rawValue }
            if rising & BMI160.statusDoubleTap != 0 { raw |= IMUSample.Flags.chipDoubleTap.rawValue }
            return IMUSample.Flags(rawValue: raw & enabled.rawValue)
        }
    }
}
