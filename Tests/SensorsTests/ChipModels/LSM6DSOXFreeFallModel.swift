/// A behavioural model of the LSM6DSOX's free-fall engine, written from ST's application note
/// AN5272 (§5.7 Free-fall interrupt) and the register descriptions of DS13092 (FREE_FALL 0x5D,
/// WAKE_UP_DUR 0x5C), NOT measured on silicon. The
/// rules below are our paraphrase of those sections (as they are restated by the vendors' drivers
/// and application notes); the documents themselves were not re-read for this change:
/// - Free-fall detection is signaled when the acceleration measured along all the axes goes
///   to zero: every axis |a| < FF_THS for at least FF_DUR samples.
/// - FF_THS (FREE_FALL bits 2:0): 156, 219, 250, 312, 344, 406, 469, 500 mg.
/// - FF_DUR: FREE_FALL bits 7:3 with WAKE_UP_DUR bit 7 as FF_DUR[5], 1 LSB = 1 ODR period.
/// Fed the register bytes the driver wrote; one sample per call, at the recording's rate.
struct LSM6DSOXFreeFallModel {
    let thresholdG: Double
    let samples: Int
    private var below = 0

    init(freeFall: UInt8, wakeUpDur: UInt8) {
        thresholdG = [0.156, 0.219, 0.250, 0.312, 0.344, 0.406, 0.469, 0.500][Int(freeFall & 0x07)]
        samples = Int(freeFall >> 3) | Int(wakeUpDur & 0x80) >> 2
    }

    /// One accelerometer sample in g (chip axes); returns WAKE_UP_SRC.FF_IA at it.
    mutating func update(_ x: Double, _ y: Double, _ z: Double) -> Bool {
        below = max(abs(x), abs(y), abs(z)) < thresholdG ? below + 1 : 0
        return below >= max(1, samples)
    }
}
