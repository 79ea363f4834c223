import MotionCore

// MARK: LSM6DSOX event engines: wake-up (motion), free-fall, single/double tap
//
// Register fields from ST's lsm6dsox_reg.h (STMicroelectronics STMems standard C driver, as
// vendored in zephyr ext/hal/st/stmemsc/lsm6dsox_STdC):
// - WAKE_UP_SRC 0x1B: Z_WU, Y_WU, X_WU bits 2:0, WU_IA bit 3, SLEEP_STATE bit 4, FF_IA bit 5.
// - TAP_SRC 0x1C: Z_TAP, Y_TAP, X_TAP bits 2:0, TAP_SIGN bit 3, DOUBLE_TAP bit 4, SINGLE_TAP bit 5,
//   TAP_IA bit 6.
// - TAP_CFG0 0x56: LIR bit 0, TAP_Z_EN bit 1, TAP_Y_EN bit 2, TAP_X_EN bit 3, SLOPE_FDS bit 4,
//   INT_CLR_ON_RD bit 6. TAP_CFG1 0x57: TAP_THS_X bits 4:0, TAP_PRIORITY bits 7:5 (0 = XYZ).
//   TAP_CFG2 0x58: TAP_THS_Y bits 4:0, INTERRUPTS_ENABLE bit 7. TAP_THS_6D 0x59: TAP_THS_Z bits 4:0,
//   SIXD_THS bits 6:5, D4D_EN bit 7.
// - INT_DUR2 0x5A: SHOCK bits 1:0, QUIET bits 3:2, DUR bits 7:4.
// - WAKE_UP_THS 0x5B: WK_THS bits 5:0, SINGLE_DOUBLE_TAP bit 7 (`lsm6dsox_single_double_tap_t`:
//   ONLY_SINGLE = 0, BOTH_SINGLE_DOUBLE = 1).
// - WAKE_UP_DUR 0x5C: SLEEP_DUR 3:0, WAKE_THS_W bit 4, WAKE_DUR bits 6:5, FF_DUR5 bit 7.
// - FREE_FALL 0x5D: FF_THS bits 2:0 (`lsm6dsox_ff_ths_t`: 156, 219, 250, 312, 344, 406, 469,
//   500 mg for codes 0…7), FF_DUR[4:0] bits 7:3.
// - MD1_CFG 0x5E: INT1_6D bit 2, INT1_DOUBLE_TAP bit 3, INT1_FF bit 4, INT1_WU bit 5,
//   INT1_SINGLE_TAP bit 6.
// Weights from the data sheet (DS13092 register descriptions; ST's header gives only the fields):
// WK_THS 1 LSB = FS_XL/2^6, or FS_XL/2^8 with WAKE_THS_W (lsm6dso_reg.h `lsm6dso_wake_ths_w_t`);
// WAKE_DUR and FF_DUR 1 LSB = 1 ODR time; TAP_THS_X/Y/Z 1 LSB = FS_XL/2^5; SHOCK 0 = 4 ODR times,
// else 8 ODR times per LSB; QUIET 0 = 2 ODR times, else 4 per LSB; DUR 0 = 16 ODR times, else 32
// per LSB. The tap weights could not be read here from DS13092 itself: docs/chip-engines.md says so.
//
// Interrupts are latched (LIR) and cleared by reading their source register (INT_CLR_ON_RD), so
// an event between two data-ready edges is not lost; WAKE_UP_SRC, TAP_SRC and D6D_SRC are read in
// one 3-byte burst per INT1 edge (`readChipEvents`; the 6D fields: LSM6DSx+Orientation.swift).
extension LSM6DSx {
    /// WAKE_UP_SRC bit 3 WU_IA: the wake-up engine fired.
    public static let wakeUpActive: UInt8 = 0x08
    /// WAKE_UP_SRC bit 5 FF_IA: the free-fall engine fired.
    public static let freeFallActive: UInt8 = 0x20
    /// TAP_SRC bit 5 SINGLE_TAP.
    public static let singleTapActive: UInt8 = 0x20
    /// TAP_SRC bit 4 DOUBLE_TAP.
    public static let doubleTapActive: UInt8 = 0x10
    /// TAP_CFG2 bit 7 INTERRUPTS_ENABLE (the basic interrupts: wake-up, free-fall, tap, 6D).
    public static let interruptsEnable: UInt8 = 0x80
    /// MD1_CFG bit 5 INT1_WU: wake-up routed to INT1.
    public static let int1WakeUp: UInt8 = 0x20
    /// MD1_CFG bit 4 INT1_FF: free fall routed to INT1.
    public static let int1FreeFall: UInt8 = 0x10
    /// MD1_CFG bit 6 INT1_SINGLE_TAP.
    public static let int1SingleTap: UInt8 = 0x40
    /// MD1_CFG bit 3 INT1_DOUBLE_TAP.
    public static let int1DoubleTap: UInt8 = 0x08
    /// TAP_CFG0: INT_CLR_ON_RD (bit 6) | LIR (bit 0): latched, cleared by reading the source register.
    public static let latchedClearedOnRead: UInt8 = 0x41
    /// TAP_CFG0 bits 3:1 TAP_X_EN | TAP_Y_EN | TAP_Z_EN.
    public static let tapAllAxes: UInt8 = 0x0E
    /// WAKE_UP_THS bit 7 SINGLE_DOUBLE_TAP: double tap recognised beside single tap.
    public static let singleAndDoubleTap: UInt8 = 0x80
    /// WAKE_UP_DUR bit 4 WAKE_THS_W: WK_THS LSB = FS_XL / 2^8 instead of FS_XL / 2^6.
    public static let wakeThresholdFineWeight: UInt8 = 0x10
    /// WAKE_UP_DUR bit 7 FF_DUR5: bit 5 of the 6-bit free-fall duration.
    public static let freeFallDurationBit5: UInt8 = 0x80
    /// FF_THS codes 0…7 in g (`lsm6dsox_ff_ths_t`).
    public static let freeFallThresholdsG: [Double] = [0.156, 0.219, 0.250, 0.312, 0.344, 0.406, 0.469, 0.500]

    /// WK_THS for a threshold in m/s² at full scale ±`fullScaleG`: the fine weight (FS/2^8) when
    /// the code fits its 6 bits, else the coarse one (FS/2^6); nearest code, 1…63 (0 would flag
    /// every sample). `fine` is WAKE_THS_W.
    public static func wakeUpThresholdCode(ms2: Double, fullScaleG: Double) -> (code: UInt8, fine: Bool) {
        let g = ms2 / standardGravity
        let fineCode = (g / (fullScaleG / 256)).rounded()
        if fineCode <= 63 { return (UInt8(max(1, fineCode)), true) }
        return (UInt8(min(63, (g / (fullScaleG / 64)).rounded())), false)
    }

    /// WAKE_DUR for a duration in s at `odr` Hz: whole ODR periods, 0…3.
    public static func wakeUpDurationCode(seconds: Double, odr: Double) -> UInt8 {
        UInt8(max(0, min(3, (seconds * odr).rounded())))
    }

    /// FF_THS: the code whose threshold is nearest `g` (156…500 mg).
    public static func freeFallThresholdCode(g: Double) -> UInt8 {
        nearestCode(freeFallThresholdsG, to: g)
    }

    /// The 6-bit free-fall duration for `seconds` at `odr` Hz: whole ODR periods, 0…63.
    public static func freeFallDurationCode(seconds: Double, odr: Double) -> UInt8 {
        UInt8(max(0, min(63, (seconds * odr).rounded())))
    }

    /// TAP_THS_X/Y/Z for a threshold in g at ±`fullScaleG`: 1 LSB = FS/2^5, nearest, 1…31.
    public static func tapThresholdCode(g: Double, fullScaleG: Double) -> UInt8 {
        UInt8(max(1, min(31, (g / (fullScaleG / 32)).rounded())))
    }

    /// INT_DUR2's SHOCK, QUIET and DUR for the tap timing at `odr` Hz: each the code whose length
    /// in ODR periods is nearest (SHOCK 4, 8, 16, 24; QUIET 2, 4, 8, 12; DUR 16, 32, 64, …, 480).
    public static func tapTimingCodes(_ t: TapInterruptSettings, odr: Double) -> (shock: UInt8, quiet: UInt8, dur: UInt8) {
        (nearestCode([4, 8, 16, 24], to: t.maximumDuration * odr),
         nearestCode([2, 4, 8, 12], to: t.quietAfter * odr),
         nearestCode([16] + (1...15).map { Double($0 * 32) }, to: t.doubleTapMaximumGap * odr))
    }

    private static func nearestCode(_ values: [Double], to x: Double) -> UInt8 {
        var best = 0
        for i in values.indices where abs(values[i] - x) < abs(values[best] - x) { best = i }
        return UInt8(best)
    }

    /// WAKE_UP_SRC decoded.
    public struct WakeUpSource: Sendable, Equatable {
        public var raw: UInt8
        public init(raw: UInt8) { self.raw = raw }
        /// Bit 3 WU_IA: the wake-up engine fired (since the last read, latched mode).
        public var wakeUp: Bool { raw & LSM6DSx.wakeUpActive != 0 }
        /// Bit 5 FF_IA: the free-fall engine fired.
        public var freeFall: Bool { raw & LSM6DSx.freeFallActive != 0 }
    }

    /// Reads WAKE_UP_SRC once (clears the latched wake-up): call it on each INT1 edge to tell a
    /// wake-up from data-ready, which shares the pin.
    public func readWakeUpSource() throws(SensorError) -> WakeUpSource {
        WakeUpSource(raw: try device.read(Register.wakeUpSource))
    }

    /// The chip flags of one WAKE_UP_SRC, TAP_SRC and D6D_SRC triple, kept to the engines in
    /// `enabled` (a bit of an engine that was not programmed is ignored); a D6D_SRC with D6D_IA
    /// gives `.chipOrientation` with its face (`decodeOrientation`) in the face field.
    public static func decodeEventSources(wakeUpSource: UInt8, tapSource: UInt8, d6dSource: UInt8 = 0,
                                          enabled: IMUSample.Flags) -> IMUSample.Flags {
        var raw: UInt32 = 0
        if wakeUpSource & wakeUpActive != 0 { raw |= IMUSample.Flags.chipMotion.rawValue }
        if wakeUpSource & freeFallActive != 0 { raw |= IMUSample.Flags.chipFreeFall.rawValue }
        if tapSource & singleTapActive != 0 { raw |= IMUSample.Flags.chipTap.rawValue }
        if tapSource & doubleTapActive != 0 { raw |= IMUSample.Flags.chipDoubleTap.rawValue }
        if enabled.contains(.chipOrientation), let face = decodeOrientation(d6dSource: d6dSource) {
            raw |= IMUSample.Flags.chipOrientation(face).rawValue
        }
        return IMUSample.Flags(rawValue: raw & (enabled.rawValue | IMUSample.Flags.chipFaceMask.rawValue))
    }

    /// WAKE_UP_SRC, TAP_SRC and D6D_SRC (0x1B…0x1D) in one 3-byte burst (the read clears the
    /// latched events), decoded into chip flags. Allocation-free.
    public func readChipEvents() throws(SensorError) -> IMUSample.Flags {
        try device.read(Register.wakeUpSource, into: eventSourceBytes)
        return Self.decodeEventSources(wakeUpSource: eventSourceBytes[0], tapSource: eventSourceBytes[1],
                                       d6dSource: eventSourceBytes[2], enabled: chipEvents)
    }

    /// Programs the engines `s` asks for (LSM6DSOX only; nothing is written otherwise) and routes
    /// them to INT1 beside data-ready. Called by `configure` after the ODR and full scale.
    func programEventEngines(_ s: IMUChipSettings, fullScaleG: Double, odr: Double) throws(SensorError) {
        let dsox = model == .lsm6dsox
        let motion = dsox ? s.motionInterrupt : nil
        let freeFall = dsox ? s.freeFallInterrupt : nil
        let tap = dsox ? s.tapInterrupt : nil
        let orientation = dsox ? s.orientationInterrupt : nil
        motionEngineEnabled = motion != nil
        chipEvents = []
        guard motion != nil || freeFall != nil || tap != nil || orientation != nil else { return }
        var sixD: UInt8 = 0
        if let orientation {
            guard let code = Self.orientationThresholdCode(degrees: orientation.thresholdDegrees) else {
                throw SensorError(.unsupported, subject: model.rawValue,
                                  detail: "6D threshold \(orientation.thresholdDegrees)° is not one of 50, 60, 70, 80 (events.orientation_deg)")
            }
            sixD = code
        }
        var wakeUpThreshold: UInt8 = 0, wakeUpDuration: UInt8 = 0, md1: UInt8 = 0, tapConfig0 = Self.latchedClearedOnRead
        if let motion {
            let t = Self.wakeUpThresholdCode(ms2: motion.thresholdMS2, fullScaleG: fullScaleG)
            wakeUpThreshold = t.code
            wakeUpDuration = Self.wakeUpDurationCode(seconds: motion.duration, odr: odr) << 5 | (t.fine ? Self.wakeThresholdFineWeight : 0)
            md1 |= Self.int1WakeUp
            chipEvents.insert(.chipMotion)
        }
        if let freeFall {
            let d = Self.freeFallDurationCode(seconds: freeFall.duration, odr: odr)
            try device.write(Register.freeFall, (d & 0x1F) << 3 | Self.freeFallThresholdCode(g: freeFall.thresholdG))
            if d & 0x20 != 0 { wakeUpDuration |= Self.freeFallDurationBit5 }
            md1 |= Self.int1FreeFall
            chipEvents.insert(.chipFreeFall)
        }
        var tapThresholdY: UInt8 = 0, tapThresholdZ: UInt8 = 0
        if let tap {
            let ths = Self.tapThresholdCode(g: tap.thresholdG, fullScaleG: fullScaleG)
            let timing = Self.tapTimingCodes(tap, odr: odr)
            try device.write(Register.tapConfig1, ths)                                   // TAP_THS_X, priority XYZ
            tapThresholdZ = ths
            try device.write(Register.interruptDuration2, timing.dur << 4 | timing.quiet << 2 | timing.shock)
            tapThresholdY = ths
            tapConfig0 |= Self.tapAllAxes
            wakeUpThreshold |= Self.singleAndDoubleTap
            md1 |= Self.int1SingleTap | Self.int1DoubleTap
            chipEvents.formUnion([.chipTap, .chipDoubleTap])
        }
        if tap != nil || orientation != nil {
            // TAP_THS_Z with SIXD_THS (0 = 80° when only tap is on), D4D_EN 0 (6D).
            try device.write(Register.tapThreshold6D, Self.tapThreshold6DRegister(tapThresholdZ: tapThresholdZ, orientationCode: sixD))
        }
        if let orientation {
            // LOW_PASS_ON_6D: the 6D engine on the LPF2 output (lsm6dsox_reg.h `lsm6dsox_ctrl8_xl_t`
            // `low_pass_on_6d`, set by ST's `lsm6dsox_xl_lp2_on_6d_set`), HPCF_XL its cut-off near
            // the software detector's low-pass (`control8Accel6D`); the other fields stay 0.
            try device.write(Register.control8Accel, Self.control8Accel6D(odr: odr, lowPassHz: orientation.lowPassHz))
            md1 |= Self.int1Orientation
            chipEvents.insert(.chipOrientation)
        }
        try device.write(Register.wakeUpThreshold, wakeUpThreshold)
        try device.write(Register.wakeUpDuration, wakeUpDuration)
        try device.write(Register.tapConfig0, tapConfig0)
        try device.write(Register.tapConfig2, Self.interruptsEnable | tapThresholdY)
        try device.write(Register.md1Config, md1)
    }
}
