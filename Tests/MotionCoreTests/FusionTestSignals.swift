@testable import MotionCore

/// Synthetic IMU signals with exact truth for the fusion tests: the truth attitude is integrated
/// from a chosen body rate, and the accelerometer and magnetometer are the earth's gravity and
/// field seen from it, plus deterministic pseudo-random noise, bias and disturbances.
struct FusionTestSignals {
    /// Sensor → ENU (magnetic north) truth.
    var truth: Quaternion
    /// Earth field in ENU, µT (about Berlin: 17 µT north, 47 µT down).
    var earthField = Vector3(0, 17, -47)
    var gyroBias = Vector3.zero
    /// Extra field in the sensor frame, µT (a disturbance), applied while set.
    var magneticDisturbance = Vector3.zero
    var gyroNoise = 0.002      // rad/s, one sigma-ish
    var accNoise = 0.02        // m/s²
    var magNoise = 0.2         // µT
    private var seed: UInt64 = 0x9E3779B97F4A7C15

    init(truth: Quaternion = .identity) { self.truth = truth }

    /// Uniform in [−1, 1) from a 64-bit LCG (deterministic, so tests are repeatable).
    mutating func noise() -> Double {
        seed = seed &* 6364136223846793005 &+ 1442695040888963407
        return Double(Int64(bitPattern: seed) >> 11) / Double(1 << 52)
    }

    mutating func noiseVector(_ scale: Double) -> Vector3 {
        Vector3(noise() * scale, noise() * scale, noise() * scale)
    }

    /// Advances the truth by the earth-frame angular velocity `omegaEarth` (rad/s) for `dt` s and
    /// returns the sensor readings at the end of the step.
    mutating func step(omegaEarth: Vector3, dt: Double) -> (gyro: Vector3, acc: Vector3, mag: Vector3) {
        let omegaBody = truth.inverseRotate(omegaEarth)
        truth = (truth * Quaternion(rotationVector: omegaBody * dt)).normalized
        let gyro = omegaBody + gyroBias + noiseVector(gyroNoise)
        let acc = truth.inverseRotate(Vector3(0, 0, standardGravity)) + noiseVector(accNoise)
        let mag = truth.inverseRotate(earthField) + magneticDisturbance + noiseVector(magNoise)
        return (gyro, acc, mag)
    }
}

/// BROAD's error angles of an estimate against the truth, degrees: `q_err = q_est ⊗ q_ref*`.
struct AttitudeError {
    var total: Double
    var heading: Double
    var inclination: Double

    init(estimate: Quaternion, truth: Quaternion) {
        var e = (estimate.normalized * truth.conjugate).normalized
        if e.w < 0 { e = Quaternion(w: -e.w, x: -e.x, y: -e.y, z: -e.z) }
        total = (2 * min(1, abs(e.w)).acos).degrees
        heading = (2 * Double.atan2(abs(e.z), abs(e.w))).degrees
        inclination = (2 * min(1, (e.w * e.w + e.z * e.z).squareRoot()).acos).degrees
    }
}
