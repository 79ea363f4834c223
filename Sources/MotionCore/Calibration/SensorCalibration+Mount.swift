/// A chip-axes calibration seen from the board: the pipeline rotates samples into board axes
/// first (`IMUMount`, `v_board = R · v_chip`) and calibrates after, so it needs the calibration
/// expressed in board axes. Exact for every proper rotation:
///
/// - gyroscope: `R·ω − R·b` = `R·(ω − b)`: board bias `R·b`;
/// - accelerometer: `R·S⁻¹·(f − o)` = `(R·S⁻¹·Rᵀ)·(R·f − R·o)`: offset `R·o`, matrix `R·S⁻¹·Rᵀ`
///   (`S = diag(scale)`);
/// - magnetometer: `R·W·(m − o)` = `(R·W·Rᵀ)·(R·m − R·o)`: offset `R·o`, soft iron `R·W·Rᵀ`.
///
/// Computed once per pipeline start and per remount, never per sample.
extension SensorCalibration {
    /// This (chip-axes) calibration for readings in the board axes of `mount`.
    public func inBoardAxes(_ mount: IMUMount) -> SensorCalibration {
        if mount.isIdentity { return self }
        let r = mount.inertial.matrix, rt = r.transposed
        let q = mount.magnetometer.matrix, qt = q.transposed
        var c = self
        c.gyroBias = gyroBias.map { r * $0 }
        c.accelerometerOffset = accelerometerOffset.map { r * $0 }
        if let inverse = accelerometerMatrix ?? accelerometerScale.map({ Matrix3(1 / $0.x, 0, 0, 0, 1 / $0.y, 0, 0, 0, 1 / $0.z) }) {
            c.accelerometerMatrix = r * inverse * rt
        }
        c.magnetometerOffset = magnetometerOffset.map { q * $0 }
        if let w = magnetometerSoftIron { c.magnetometerSoftIron = q * w * qt }
        return c
    }

    /// A gyroscope bias measured on board-axis samples (rad/s) in the chip axes the calibration
    /// file keeps: `Rᵀ·b`.
    public static func chipGyroBias(_ boardBias: Vector3, mount: IMUMount) -> Vector3 {
        mount.inertial.matrix.transposed * boardBias
    }
}
