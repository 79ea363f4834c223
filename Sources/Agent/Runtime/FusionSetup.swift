import EdgeMotion
import Logging
import MotionCore

#if canImport(Glibc)
import Glibc
#endif

/// What fusion needs from outside the samples: the magnetic declination at the configured
/// location (World Magnetic Model 2025) and the sensor calibration file.
enum FusionSetup {
    /// Declination in radians (east positive) at `fusion.latitude/longitude/altitude_m` today, or
    /// `nil` without a location (then true north is not available, as in Core Motion).
    static func declination(_ f: FusionSettings, now: Double = Double(MonotonicClock.realtimeNanos()) * 1e-9) -> Double? {
        guard let lat = f.latitude, let lon = f.longitude else { return nil }
        let decimalYear = 1970 + now / 31_556_952
        let field = WorldMagneticModel.wmm2025.field(latitude: lat, longitude: lon,
                                                      altitude: (f.altitudeMeters ?? 0) / 1000, decimalYear: decimalYear)
        return field.declination.radians
    }

    /// Where the calibration file is: `fusion.calibration_file`, else the state directory's.
    static func calibrationPath(_ c: AgentConfiguration) -> String {
        c.fusion.calibrationFile ?? c.stateDirectory + "/edgemotion-calibration.txt"
    }

    /// The sensor identity a calibration file must name to be applied: the device id
    /// (`device.id`, else the sanitised host name) — what `edgemotion calibrate` writes by default.
    static func calibrationSensor(_ c: AgentConfiguration) -> String { c.device.resolvedID() }

    /// The calibration to apply: the file's, or none when it is absent. A damaged file, or one
    /// made for another sensor than `sensor` (the running agent's device id), is reported and
    /// ignored as a whole — never half-applied.
    static func calibration(_ c: AgentConfiguration, sensor: String, log: Logger) -> (SensorCalibration, String) {
        let path = calibrationPath(c)
        let text: String
        do throws(FileError) { text = try WholeFile.text(atPath: path) } catch where error.isMissing {
            log.info(c.fusion.gyroBiasLearning ? "no calibration file; fusion uses raw readings and learns the gyro bias online"
                                                : "no calibration file; fusion uses raw readings (gyro bias learning is off)", ["file": path])
            return (.none, "none")
        } catch {
            log.error("calibration file unreadable; running uncalibrated", ["file": path, "error": error.description,
                      "hint": "make it readable by the service user, or remove it"])
            return (.none, "rejected")
        }
        do {
            let calibration = try CalibrationFile.decode(text, expectedSensor: sensor, source: path)
            log.notice("calibration loaded", ["file": path, "sensor": sensor])
            return (calibration, "loaded")
        } catch {
            log.error("calibration file rejected; running uncalibrated", ["file": path, "error": "\(error)",
                      "hint": "re-run 'edgemotion calibrate … --replace --sensor \(sensor) --file \(path)'"])
            return (.none, "rejected")
        }
    }
}
