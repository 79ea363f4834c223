/// A behavioural model of the BMI160's single/double tap engine, written from the data sheet
/// (BST-BMI160-DS000-07, §2.6.4 Tap sensing, register descriptions of INT_TAP_0 0x63 and
/// INT_TAP_1 0x64), NOT measured on silicon. Our paraphrase of §2.6.4 (as the vendors' drivers
/// restate it; the data sheet itself was not re-read for this change):
/// - A tap is detected when the slope of the acceleration of [an enabled axis] exceeds
///   tap_th; the slope is |a(tₙ) − a(tₙ₋₁)|. tap_th (0x64 bits 4:0): 62.5 mg per LSB at ±2 g,
///   125 at ±4 g, 250 at ±8 g, 500 at ±16 g (FS/32).
/// - tap_shock (0x63 bit 6: 0 = 50 ms, 1 = 75 ms): after the first exceedance further
///   exceedances belong to the same shock; tap_quiet (bit 7: 0 = 30 ms, 1 = 20 ms): after the
///   shock window the slope must stay below tap_th for the quiet time, else it is no tap.
/// - tap_dur (bits 2:0: 50, 100, 150, 200, 250, 375, 500, 700 ms): a second tap whose shock
///   starts within tap_dur of the first makes a double tap.
/// - We found nothing saying whether a double tap also raises s_tap for its first tap; the
///   model raises s_tap for every tap that passes its quiet time and d_tap for the second of a
///   pair (as the LSM6DSOX does), and the comparison counts taps, not kinds.
/// Fed the bytes the driver wrote; one sample per call with its time.
struct BMI160TapModel {
    enum Decision: Equatable { case none, single, double }
    let thresholdG: Double
    let shock: Double
    let quiet: Double
    let window: Double
    private var previous: (Double, Double, Double)?
    private var shockStart = Double.nan
    private var lastTap = -Double.infinity
    private var lastLoud = -Double.infinity

    init(intTap0: UInt8, intTap1: UInt8, fullScaleG: Double) {
        thresholdG = Double(intTap1 & 0x1F) * fullScaleG / 32
        shock = intTap0 & 0x40 != 0 ? 0.075 : 0.05
        quiet = intTap0 & 0x80 != 0 ? 0.02 : 0.03
        window = [0.05, 0.1, 0.15, 0.2, 0.25, 0.375, 0.5, 0.7][Int(intTap0 & 0x07)]
    }

    /// One accelerometer sample in g at `time` s; a tap is decided when its quiet time ends.
    mutating func update(time: Double, _ x: Double, _ y: Double, _ z: Double) -> Decision {
        defer { previous = (x, y, z) }
        guard let p = previous else { return .none }
        let loud = max(abs(x - p.0), abs(y - p.1), abs(z - p.2)) > thresholdG
        if shockStart.isNaN {
            if loud { shockStart = time; lastLoud = time }
            return .none
        }
        if loud {
            if time - shockStart > shock { shockStart = .nan }   // loud in the quiet time: no tap
            lastLoud = time
            return .none
        }
        guard time - shockStart >= shock + quiet, time - max(lastLoud, shockStart + shock) >= quiet else { return .none }
        let start = shockStart
        shockStart = .nan
        defer { lastTap = start }
        return start - lastTap <= window ? .double : .single
    }
}
