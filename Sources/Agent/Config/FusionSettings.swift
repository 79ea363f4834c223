import MotionCore

/// `fusion:` — sensor fusion.
public struct FusionSettings: Sendable, Equatable {
    /// `filter`: attitude filter name; `default` lets the pipeline choose.
    public var filter: String
    /// `reference_frame`: Core Motion reference frame name (`xArbitraryCorrectedZVertical`, …).
    public var referenceFrame: AttitudeReferenceFrame
    /// `latitude`: degrees north, −90…90 (needed for `xTrueNorthZVertical`).
    public var latitude: Double?
    /// `longitude`: degrees east, −180…180 (needed for `xTrueNorthZVertical`).
    public var longitude: Double?
    /// `altitude_m`: metres above sea level.
    public var altitudeMeters: Double?
    /// `calibration_file`: the file `edgemotion calibrate` writes, loaded at start and applied
    /// before fusion; default `<state_directory>/edgemotion-calibration.txt` (absent = none).
    public var calibrationFile: String? = nil
    /// `gyro_bias_learning`: keep estimating the gyro bias online (at rest and in motion); false
    /// freezes it at the calibration file's value (robots that are never still at start-up).
    public var gyroBiasLearning = true
    /// `output_frame`: axes of the published attitude and device-frame vectors: `core_motion`
    /// (default), `enu` (ROS: world ENU, body forward-left-up) or `ned` (world NED, body
    /// forward-right-down); `OutputFrame`.
    public var outputFrame: OutputFrame = .coreMotion

    public init(filter: String = "default", referenceFrame: AttitudeReferenceFrame = .xArbitraryCorrectedZVertical, latitude: Double? = nil, longitude: Double? = nil, altitudeMeters: Double? = nil) {
        self.filter = filter
        self.referenceFrame = referenceFrame
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMeters = altitudeMeters
    }
}
