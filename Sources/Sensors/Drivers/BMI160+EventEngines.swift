import MotionCore

// MARK: BMI160 event engines: any-motion, low-g (free fall), single/double tap
//
// `configure` programs the engines it is handed (`programEventEngines`), nothing when none; each
// data-ready edge reads INT_STATUS_0/1 in one 2-byte burst (`readChipEvents`, `MotionInterruptChip`).
// Register addresses and bit positions checked against Bosch's bmi160_defs.h (BMI160 SensorAPI
// v3.8.1, github.com/boschsensortec/BMI160_SensorAPI: `BMI160_*_ADDR`, the INT_EN / INT_OUT_CTRL /
// INT_LATCH / INT_MAP masks, `struct bmi160_int_status_bits`, the low-g/tap/any-motion config
// structs); reset values and weights from the BMI160 data sheet (BST-BMI160-DS000-07, register
// descriptions; weights as researched at stop 27, Intel CurieIMU, Zephyr and Chrome EC agree):
// - INT_STATUS_0 0x1C: anym bit 2, d_tap bit 4, s_tap bit 5. INT_STATUS_1 0x1D: low_g bit 3,
//   drdy bit 4. Reading does not clear them (they follow INT_LATCH).
// - INT_EN_0 0x50: anymotion x/y/z bits 2:0, d_tap bit 4, s_tap bit 5. INT_EN_1 0x51: low_g bit 3,
//   drdy bit 4.
// - INT_OUT_CTRL 0x53: int1 edge bit 0, lvl bit 1, od bit 2, output_en bit 3; int2 the same in
//   bits 7:4. INT_LATCH 0x54 bits 3:0: 0 none, 1 312.5 µs, 2 625 µs, 3 1.25 ms, 4 2.5 ms, 5 5 ms,
//   6 10 ms, 7 20 ms, 8 40 ms, 9 80 ms, 10 160 ms, 11 320 ms, 12 640 ms, 13 1.28 s, 14 2.56 s,
//   15 latched (cleared by CMD 0xB1 int_reset); one setting for every interrupt.
// - INT_MAP_2 0x57 (INT2; INT_MAP_0 0x55 is INT1): low_g bit 0, anymotion bit 2, d_tap bit 4,
//   s_tap bit 5. INT_MAP_1 0x56 bit 7: drdy → INT1.
// - INT_LOWHIGH_0 0x5A low_dur, (val + 1) · 2.5 ms; INT_LOWHIGH_1 0x5B low_th, 7.81 mg LSB;
//   INT_LOWHIGH_2 0x5C: low_hy bits 1:0 (125 mg LSB), low_mode bit 2 (1 = |x|+|y|+|z|), high_hy
//   bits 7:6; reset 0x81 (low_hy 1, high_hy 2).
// - INT_MOTION_0 0x5F bits 1:0 anym_dur = consecutive samples − 1; INT_MOTION_1 0x60 anym_th,
//   3.91/7.81/15.63/31.25 mg LSB at ±2/4/8/16 g.
// - INT_TAP_0 0x63: dur bits 2:0 (50, 100, 150, 200, 250, 375, 500, 700 ms), shock bit 6
//   (0 = 50 ms, 1 = 75 ms), quiet bit 7 (0 = 30 ms, 1 = 20 ms). INT_TAP_1 0x64 bits 4:0 tap_th,
//   62.5 mg LSB at ±2 g (scales with the range).
//
// Wiring: data-ready alone drives INT1, so every INT1 edge is one sample; the engines are mapped
// to INT2, whose output stays disabled (INT_OUT_CTRL 0x0A), only so that they raise their status
// bits, which the per-edge read picks up. Not confirmed on a chip: that status bits are set for
// an interrupt mapped only to a disabled pin (docs/chip-engines.md).
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

    /// INT_EN_0 bits 2:0 anymotion x, y, z.
    public static let enableAnyMotionXYZ: UInt8 = 0x07
    /// INT_EN_0 bit 4 d_tap.
    public static let enableDoubleTap: UInt8 = 0x10
    /// INT_EN_0 bit 5 s_tap.
    public static let enableSingleTap: UInt8 = 0x20
    /// INT_EN_1 bit 3 low_g.
    public static let enableLowG: UInt8 = 0x08
    /// INT_EN_1 bit 4 drdy.
    public static let enableDataReady: UInt8 = 0x10
    /// INT_MAP_2 bit 0 int2_low_g.
    public static let int2LowG: UInt8 = 0x01
    /// INT_MAP_2 bit 2 int2_anymotion.
    public static let int2AnyMotion: UInt8 = 0x04
    /// INT_MAP_2 bit 4 int2_d_tap.
    public static let int2DoubleTap: UInt8 = 0x10
    /// INT_MAP_2 bit 5 int2_s_tap.
    public static let int2SingleTap: UInt8 = 0x20
    /// INT_OUT_CTRL: int1_output_en (bit 3) | int1_lvl active high (bit 1), push-pull (od 0),
    /// level (edge 0); INT2 bits 7:4 all 0: its output disabled.
    public static let int1OutputOnly: UInt8 = 0x0A
    /// INT_LOWHIGH_2: low_mode sum (bit 2) over the reset value 0x81 (low_hy 1 = 125 mg, high_hy 2).
    public static let lowGSumMode: UInt8 = 0x85

    /// The INT_EN_0 / INT_EN_1 bits of the engines `programEventEngines` set up.
    struct EngineEnables: Equatable {
        var enable0: UInt8 = 0
        var enable1: UInt8 = 0
    }

    /// Programs the engines `s` asks for (`s.requestedChipEngines`: any-motion, low-g, single and
    /// double tap; `s`'s 6D orientation is not one of them), mapped to INT2 with INT2's output off so
    /// that INT1 stays data-ready only, with a temporary latch of about two samples, and returns
    /// their enable bits for `writeInterruptEnables` (nil, and nothing written, when `s` asks for
    /// none). Called by `configure` after the ODR (`odr`, Hz) and range (±`fullScaleG`).
    func programEventEngines(_ s: IMUChipSettings, fullScaleG: Double, odr: Double) throws(SensorError) -> EngineEnables? {
        chipEvents = []
        eventDecoder = EventDecoder(enabled: [])
        let events = s.requestedChipEngines.intersection(model.chipEngines)
        guard !events.isEmpty else { return nil }
        var enables = EngineEnables(), map2: UInt8 = 0
        if let motion = s.motionInterrupt {
            try device.write(Register.intMotion0, Self.anyMotionDurationCode(seconds: motion.duration, odr: odr))
            try device.write(Register.intMotion1, Self.anyMotionThresholdCode(ms2: motion.thresholdMS2, fullScaleG: fullScaleG))
            enables.enable0 |= Self.enableAnyMotionXYZ
            map2 |= Self.int2AnyMotion
        }
        if let freeFall = s.freeFallInterrupt {
            try device.write(Register.intLowHigh0, Self.lowGDurationCode(seconds: freeFall.duration))
            try device.write(Register.intLowHigh1, Self.lowGThresholdCode(g: freeFall.thresholdG))
            try device.write(Register.intLowHigh2, Self.lowGSumMode)
            enables.enable1 |= Self.enableLowG
            map2 |= Self.int2LowG
        }
        if let tap = s.tapInterrupt {
            try device.write(Register.intTap0, Self.tapTimingRegister(tap))
            try device.write(Register.intTap1, Self.tapThresholdCode(g: tap.thresholdG, fullScaleG: fullScaleG))
            enables.enable0 |= Self.enableSingleTap | Self.enableDoubleTap
            map2 |= Self.int2SingleTap | Self.int2DoubleTap
        }
        try device.write(Register.intMap2, map2)
        try device.write(Register.intOutControl, Self.int1OutputOnly)
        try device.write(Register.intLatch, Self.temporaryLatchCode(odr: odr))
        chipEvents = events
        eventDecoder = EventDecoder(enabled: events)
        return enables
    }

    /// The one writer of the interrupt enables in `configure`, after every other interrupt
    /// register (so no engine runs half set up): INT_EN_0 with the engines' bits when engines were
    /// programmed; INT_EN_1 = drdy (bit 4, with `dataReady`) | the engines' low_g, when either is on.
    /// Nothing is written with neither (the reset values are 0). `shutdown` clears both; FIFO mode
    /// (`enableFIFO`) sets INT_EN_1 to the watermark interrupt instead.
    func writeInterruptEnables(dataReady: Bool, engines: EngineEnables?) throws(SensorError) {
        if let engines { try device.write(Register.intEnable0, engines.enable0) }
        let enable1 = (dataReady ? Self.enableDataReady : 0) | (engines?.enable1 ?? 0)
        if dataReady || engines != nil { try device.write(Register.intEnable1, enable1) }
    }

    /// INT_STATUS_0 and INT_STATUS_1 (0x1C, 0x1D) in one 2-byte burst, decoded into the chip
    /// flags of the programmed engines (`EventDecoder`). Allocation-free.
    public func readChipEvents() throws(SensorError) -> IMUSample.Flags {
        try device.read(Register.intStatus0, into: statusBytes)
        return eventDecoder.decode(status0: statusBytes[0], status1: statusBytes[1])
    }

    /// Decodes the INT_STATUS_0/INT_STATUS_1 pair read on each data-ready edge. Any-motion and
    /// low-g follow their status bit (a flag on every sample while the condition holds, and
    /// for the temporary latch after it); single and double tap flag only the sample where their bit rises, so one tap held
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
