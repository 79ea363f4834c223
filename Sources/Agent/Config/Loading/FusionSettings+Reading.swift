import EdgeMotion
import MotionCore

extension FusionSettings {
    static let keys = ["filter", "reference_frame", "latitude", "longitude", "altitude_m", "calibration_file", "gyro_bias_learning", "output_frame"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        filter = reader.choice(section, "filter", default: filter, oneOf: AttitudeFilterKind.allCases.map(\.rawValue))
        referenceFrame = reader.choice(section, "reference_frame", default: referenceFrame)
        latitude = reader.optionalDouble(section, "latitude", unit: "°", allowed: "-90 ≤ latitude ≤ 90 (degrees north)") { abs($0) <= 90 }
        longitude = reader.optionalDouble(section, "longitude", unit: "°", allowed: "-180 ≤ longitude ≤ 180 (degrees east)") { abs($0) <= 180 }
        calibrationFile = reader.optionalString(section, "calibration_file")
        gyroBiasLearning = reader.bool(section, "gyro_bias_learning", default: gyroBiasLearning)
        outputFrame = reader.choice(section, "output_frame", default: outputFrame)
        altitudeMeters = reader.optionalDouble(section, "altitude_m", unit: "m", allowed: "-500 ≤ altitude_m ≤ 10000") {
            $0 >= -500 && $0 <= 10_000
        }
    }
}
