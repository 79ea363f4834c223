import MotionCore

/// Updates one part of the calibration file the running agent loads (`cmd/calibrate` gyro, the
/// dashboard's calibration page) the way `edgemotion calibrate` does: the other parts of a valid
/// file for the same sensor are kept, and the new text replaces the file atomically
/// (`WholeFile.write(_:atomicallyTo:)`: a temporary file renamed over it).
enum CalibrationFileKeeper {
    /// Applies `update` to the calibration in the file at `path` for `sensor` (none when the file
    /// is missing) and writes the result. A file that is damaged or names another sensor (fusion
    /// ignores it anyway) is kept as `<path>.previous` and a new one started.
    static func keep(path: String, sensor: String, _ update: (inout SensorCalibration) -> Void) throws(FileError) {
        var calibration = SensorCalibration.none
        do throws(FileError) {
            let text = try WholeFile.text(atPath: path)
            if let existing = try? CalibrationFile.decode(text, expectedSensor: sensor, source: path) {
                calibration = existing
            } else {
                try WholeFile.write(text, atomicallyTo: path + ".previous")
            }
        } catch where error.isMissing {}
        update(&calibration)
        try WholeFile.write(CalibrationFile.encode(calibration, sensor: sensor), atomicallyTo: path)
    }
}
