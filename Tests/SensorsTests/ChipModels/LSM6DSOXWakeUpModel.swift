/// A behavioural model of the LSM6DSOX's wake-up engine, written from ST's application note
/// AN5272 (LSM6DSOX always-on 3D accelerometer and 3D gyroscope, §5.4 Wake-up interrupt and
/// §6 The slope filter) and the register descriptions of DS13092 (WAKE_UP_THS 0x5B,
/// WAKE_UP_DUR 0x5C, TAP_CFG0 0x56), NOT measured on silicon. The
/// rules below are our paraphrase of those sections (as they are restated by the vendors' drivers
/// and application notes); the documents themselves were not re-read for this change:
/// - With TAP_CFG0.SLOPE_FDS = 0 (reset) the engine watches the slope filter (the halving is
///   as ST's notes for this family, e.g. AN5192 for the LSM6DSO, give it; check it first):
///   slope(tₙ) = [acc(tₙ) − acc(tₙ₋₁)] / 2, per axis.
/// - The wake-up interrupt signal is generated if a certain number of consecutive data exceed
///   the configured threshold: any axis |slope| > WK_THS for WAKE_DUR + 1 samples (WAKE_DUR,
///   bits 6:5, 1 LSB = 1 ODR period; 0 = the first exceeding sample).
/// - WK_THS (bits 5:0) LSB: FS/2⁶ with WAKE_UP_DUR.WAKE_THS_W (bit 4) = 0, FS/2⁸ with 1.
/// - Latched (TAP_CFG0.LIR) and read on every data-ready edge, so WU_IA per sample is the
///   condition at that sample.
/// Fed the register bytes the driver wrote; one sample per call, at the recording's rate.
struct LSM6DSOXWakeUpModel {
    let thresholdG: Double
    let consecutive: Int
    private var previous: (Double, Double, Double)?
    private var above = 0

    init(wakeUpThs: UInt8, wakeUpDur: UInt8, fullScaleG: Double) {
        let weight = wakeUpDur & 0x10 != 0 ? fullScaleG / 256 : fullScaleG / 64
        thresholdG = Double(wakeUpThs & 0x3F) * weight
        consecutive = Int((wakeUpDur >> 5) & 0x03) + 1
    }

    /// One accelerometer sample in g (chip axes); returns WAKE_UP_SRC.WU_IA at it.
    mutating func update(_ x: Double, _ y: Double, _ z: Double) -> Bool {
        defer { previous = (x, y, z) }
        guard let p = previous else { return false }
        let slope = max(abs(x - p.0), abs(y - p.1), abs(z - p.2)) / 2
        above = slope > thresholdG ? above + 1 : 0
        return above >= consecutive
    }
}
