/// A behavioural model of the MPU-6050's motion-detection engine, from the register map
/// RM-MPU-6000A-00 rev 4.2 (registers 28 ACCEL_CONFIG ACCEL_HPF, 31 MOT_THR, 32 MOT_DUR, 56
/// INT_ENABLE) as InvenSense's Embedded Motion Driver 5.1 (`inv_mpu.c`) and libdriver/mpu6050
/// restate it, NOT measured on silicon (the documents themselves were not available to this
/// change; docs/chip-engines.md). Our paraphrase:
/// - The engine compares the high-passed acceleration of each axis (ACCEL_HPF, bits 2:0: 1 =
///   5 Hz, 2 = 2.5 Hz, 3 = 1.25 Hz, 4 = 0.63 Hz; modelled as a first-order high-pass) with
///   MOT_THR, 1 LSB = 32 mg (EMD 5.1's MPU6050 branch; i2cdevlib says 2 mg — the open question).
/// - MOT_INT is raised once any axis has exceeded MOT_THR for MOT_DUR ms (1 LSB = 1 ms) without
///   a break.
/// Fed the register bytes the driver wrote; one sample per call with its time.
struct MPU6050MotionModel {
    let thresholdG: Double
    let duration: Double
    let cutoffHz: Double
    private var previous: (t: Double, x: Double, y: Double, z: Double)?
    private var hp = (0.0, 0.0, 0.0)
    private var since = Double.nan

    init(accelConfig: UInt8, motThr: UInt8, motDur: UInt8) {
        thresholdG = Double(motThr) * 0.032
        duration = Double(motDur) * 0.001
        cutoffHz = [0, 5, 2.5, 1.25, 0.63, 0, 0, 0][Int(accelConfig & 0x07)]
    }

    /// One accelerometer sample in g at `time` s; returns INT_STATUS.MOT_INT at it.
    mutating func update(time: Double, _ x: Double, _ y: Double, _ z: Double) -> Bool {
        defer { previous = (time, x, y, z) }
        guard let p = previous, cutoffHz > 0 else { return false }
        // y[n] = α (y[n−1] + x[n] − x[n−1]), α = RC / (RC + dt), RC = 1 / (2π f_c).
        let rc = 1 / (2 * Double.pi * cutoffHz), a = rc / (rc + (time - p.t))
        hp = (a * (hp.0 + x - p.x), a * (hp.1 + y - p.y), a * (hp.2 + z - p.z))
        guard max(abs(hp.0), abs(hp.1), abs(hp.2)) > thresholdG else { since = .nan; return false }
        if since.isNaN { since = time }
        return time - since >= duration - 1e-9
    }
}
