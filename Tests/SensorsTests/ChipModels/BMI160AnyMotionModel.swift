/// A behavioural model of the BMI160's any-motion engine, written from the data sheet
/// (BST-BMI160-DS000-07, §2.6.1 Any-motion detection / Significant motion, and the register
/// descriptions of INT_MOTION_0 0x5F and INT_MOTION_1 0x60), NOT measured on silicon. The
/// rules below are our paraphrase of those sections (as they are restated by the vendors' drivers
/// and application notes); the documents themselves were not re-read for this change:
/// - Any-motion detection uses the slope between successive acceleration signals: per axis
///   |a(tₙ) − a(tₙ₋₁)|, in g.
/// - The interrupt is generated if the slope of (at least) one of the enabled axes exceeds the
///   threshold int_anym_th for [int_anym_dur + 1] consecutive data points; it is cleared again
///   if the slope of all enabled axes falls below the threshold for [int_anym_dur + 1]
///   consecutive data points (non-latched: the status bit follows that state).
/// - anym_th LSB: 3.91 mg at ±2 g, 7.81 at ±4 g, 15.63 at ±8 g, 31.25 at ±16 g (FS/512).
/// It is fed the register bytes the driver wrote, never the driver's settings. One sample per
/// call, at the recording's rate (standing in for the ODR the driver picked).
struct BMI160AnyMotionModel {
    let thresholdG: Double
    let consecutive: Int
    private var previous: (Double, Double, Double)?
    private var above = 0, below = 0
    /// INT_STATUS_0 bit 2 anym as the model has it after the last sample.
    private(set) var status = false

    /// `intMotion0`, `intMotion1`: the bytes at 0x5F and 0x60; `fullScaleG` from ACC_RANGE.
    init(intMotion0: UInt8, intMotion1: UInt8, fullScaleG: Double) {
        thresholdG = Double(intMotion1) * fullScaleG / 512
        consecutive = Int(intMotion0 & 0x03) + 1
    }

    /// One accelerometer sample in g (chip axes); returns INT_STATUS_0.anym after it.
    mutating func update(_ x: Double, _ y: Double, _ z: Double) -> Bool {
        defer { previous = (x, y, z) }
        guard let p = previous else { return status }
        let slope = max(abs(x - p.0), abs(y - p.1), abs(z - p.2))
        if slope > thresholdG { above += 1; below = 0 } else { below += 1; above = 0 }
        if above >= consecutive { status = true }
        if below >= consecutive { status = false }
        return status
    }
}
