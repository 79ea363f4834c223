/// A behavioural model of the BMI160's low-g engine in sum mode, written from the data sheet
/// (BST-BMI160-DS000-07, §2.6.7 Low-g interrupt, register descriptions of INT_LOWHIGH_0…2
/// 0x5A…0x5C), NOT measured on silicon. The
/// rules below are our paraphrase of those sections (as they are restated by the vendors' drivers
/// and application notes); the documents themselves were not re-read for this change:
/// - low_mode = 1 (INT_LOWHIGH_2 bit 2): sum mode: |aₓ| + |a_y| + |a_z| is compared with the
///   threshold (low_mode 0 would compare each axis).
/// - low_th (0x5B): 7.81 mg per LSB, whatever the range; low_hy (0x5C bits 1:0): 125 mg per LSB.
/// - The interrupt is generated if the [sum] falls below low_th for at least low_dur;
///   low_dur (0x5A): (low_dur + 1) × 2.5 ms. It is reset when the sum rises above
///   low_th + low_hy (the hysteresis).
/// Fed the bytes the driver wrote; one sample per call with its time.
struct BMI160LowGModel {
    let thresholdG: Double
    let hysteresisG: Double
    let duration: Double
    let sumMode: Bool
    private var below = Double.nan
    /// INT_STATUS_1 bit 3 low_g as the model has it after the last sample.
    private(set) var status = false

    init(intLowHigh0: UInt8, intLowHigh1: UInt8, intLowHigh2: UInt8) {
        thresholdG = Double(intLowHigh1) * 0.00781
        hysteresisG = Double(intLowHigh2 & 0x03) * 0.125
        duration = (Double(intLowHigh0) + 1) * 0.0025
        sumMode = intLowHigh2 & 0x04 != 0
    }

    /// One accelerometer sample in g at `time` s; returns INT_STATUS_1.low_g after it.
    mutating func update(time: Double, _ x: Double, _ y: Double, _ z: Double) -> Bool {
        let level = sumMode ? abs(x) + abs(y) + abs(z) : max(abs(x), abs(y), abs(z))
        if level < thresholdG {
            if below.isNaN { below = time }
            if time - below >= duration { status = true }
        } else {
            below = .nan
            if level > thresholdG + hysteresisG { status = false }
        }
        return status
    }
}
