/// Turns raw samples into Core Motion's `DeviceMotion` with any `AttitudeFilter`.
///
/// It applies the sensor calibration, owns the filter, tracks sample time, and expresses the
/// filter's state in the requested reference frame. Value type, no allocation per sample.
///
/// The per-sample methods are `@inlinable` so that the pipeline (another module) specialises
/// them for its concrete filter: unspecialised, every sample paid a generic-metadata lookup,
/// witness-table calls and value-witness copies of the filter (about 1 k instructions).
public struct DeviceMotionEstimator<Filter: AttitudeFilter>: Sendable {
    /// The attitude filter (read-only outside; the estimator feeds it).
    @inlinable public var filter: Filter { _filter }
    @usableFromInline var _filter: Filter
    /// The frame `DeviceMotion.attitude` is expressed in (the requested one; see `effectiveFrame`).
    public var referenceFrame: AttitudeReferenceFrame
    /// Magnetic declination in radians (east positive), for `xTrueNorthZVertical`; `nil` when no
    /// location is known.
    public var declination: Double?
    /// Calibration applied to every raw reading before fusion.
    public var calibration: SensorCalibration

    /// Below this field strength (µT) a magnetometer reading carries no north: the geomagnetic
    /// field is 22–67 µT everywhere on the surface, so a weaker reading is the sensor's own noise
    /// (a magnetic shield or steel enclosure, a dead or unpowered magnetometer). North frames then
    /// have no heading (Core Motion's `deviceRequiresMovement`), whatever the filter made of it.
    public static var minimumHeadingFieldStrength: Double { 10 }
    /// Whether the last magnetometer reading was weaker than `minimumHeadingFieldStrength`.
    @usableFromInline var magneticFieldTooWeak = false
    @usableFromInline var lastTimestampNanos: UInt64 = 0
    @usableFromInline let nominalPeriod: Double
    @usableFromInline var arbitraryHeadingReference: Double?
    /// `Quaternion.aboutZ(-arbitraryHeadingReference)`, computed once (not a sin/cos per sample).
    @usableFromInline var arbitraryHeadingRotation = Quaternion.identity

    public init(filter: Filter, samplePeriod: Double, referenceFrame: AttitudeReferenceFrame, declination: Double? = nil,
                calibration: SensorCalibration = .none) {
        _filter = filter
        self.nominalPeriod = samplePeriod
        self.referenceFrame = referenceFrame
        self.declination = declination
        self.calibration = calibration
    }

    public init(samplePeriod: Double, referenceFrame: AttitudeReferenceFrame, declination: Double? = nil,
                calibration: SensorCalibration = .none, learnsGyroBias: Bool = true) {
        var filter = Filter(samplePeriod: samplePeriod)
        filter.setGyroBiasLearning(learnsGyroBias)
        self.init(filter: filter, samplePeriod: samplePeriod,
                  referenceFrame: referenceFrame, declination: declination, calibration: calibration)
    }

    /// Whether `xTrueNorthZVertical` can be served (Core Motion's `trueNorthNotAvailable` when not).
    public var trueNorthAvailable: Bool { declination != nil }

    /// The frame actually used: `xTrueNorthZVertical` falls back to `xMagneticNorthZVertical`
    /// without a declination.
    @inlinable public var effectiveFrame: AttitudeReferenceFrame {
        referenceFrame == .xTrueNorthZVertical && declination == nil ? .xMagneticNorthZVertical : referenceFrame
    }

    /// Feeds one sample and returns the device motion after it.
    @inlinable public mutating func update(_ sample: IMUSample) -> DeviceMotion {
        ingest(sample)
        return deviceMotion(for: sample)
    }

    /// Feeds one sample to the filter without building a `DeviceMotion` (for samples that are
    /// fused but not published).
    @inlinable public mutating func ingest(_ sample: IMUSample) {
        var dt = nominalPeriod
        if lastTimestampNanos != 0, sample.timestampNanos > lastTimestampNanos {
            let measured = Double(sample.timestampNanos - lastTimestampNanos) * 1e-9
            // A gap (lost samples, paused replay) must not become one huge integration step.
            dt = measured < 10 * nominalPeriod ? measured : nominalPeriod
        }
        lastTimestampNanos = sample.timestampNanos
        let mag: Vector3? = sample.contents.contains(.magnetometer) ? calibration.magnetometer(sample.magneticField) : nil
        if let mag {
            let limit = Self.minimumHeadingFieldStrength
            magneticFieldTooWeak = mag.x * mag.x + mag.y * mag.y + mag.z * mag.z < limit * limit
        }
        _filter.update(gyroscope: calibration.gyroscope(sample.rotationRate),
                      accelerometer: calibration.accelerometer(sample.specificForce), magnetometer: mag, dt: dt)
    }

    /// The magnetometer's accuracy as Core Motion reports it: `uncalibrated` before any field has
    /// been used, `low` while the field is rejected as disturbed, `high` with a stored hard/soft-iron
    /// calibration, `medium` with only the filter's learned reference.
    @inlinable public func magneticAccuracy(_ out: FusionOutput) -> MagneticFieldCalibrationAccuracy {
        if !out.headingAvailable || magneticFieldTooWeak { return .uncalibrated }
        if out.magneticDisturbance { return .low }
        return calibration.hasMagnetometer ? .high : .medium
    }

    /// The device motion for the filter's current state and `sample`'s raw readings.
    @inlinable public mutating func deviceMotion(for sample: IMUSample) -> DeviceMotion {
        var out = _filter.output
        if magneticFieldTooWeak { out.headingAvailable = false }
        let up = out.quaternion6D.inverseRotate(Vector3(0, 0, 1))
        let gravity = Acceleration(-up)
        let total = Acceleration(specificForce: calibration.accelerometer(sample.specificForce))
        let user = Acceleration(x: total.x - gravity.x, y: total.y - gravity.y, z: total.z - gravity.z)

        let frame = effectiveFrame
        var attitude: Quaternion
        var heading = -1.0
        switch frame {
        case .xArbitraryZVertical:
            attitude = out.quaternion6D
        case .xArbitraryCorrectedZVertical:
            if out.headingAvailable {
                if arbitraryHeadingReference == nil {
                    let offset = headingOffset(out)
                    arbitraryHeadingReference = offset
                    arbitraryHeadingRotation = Quaternion.aboutZ(-offset)
                }
                attitude = arbitraryHeadingRotation * out.quaternion9D
            } else {
                attitude = out.quaternion6D
            }
        case .xMagneticNorthZVertical, .xTrueNorthZVertical:
            if out.headingAvailable {
                var enu = out.quaternion9D
                if frame == .xTrueNorthZVertical, let d = declination {
                    // Magnetic north lies `d` east of true north: true azimuths are larger by d.
                    enu = Quaternion.aboutZ(-d) * enu
                }
                attitude = Self.enuToNWU * enu
                heading = Self.heading(enu)
            } else {
                attitude = out.quaternion6D
            }
        }
        let bias = out.gyroBias + (calibration.gyroBias ?? .zero)
        return DeviceMotion(
            timestamp: sample.timestamp,
            attitude: Attitude(quaternion: attitude.normalized),
            referenceFrame: frame,
            rotationRate: RotationRate(calibration.gyroscope(sample.rotationRate) - out.gyroBias),
            gravity: gravity,
            userAcceleration: user,
            magneticField: sample.contents.contains(.magnetometer)
                ? CalibratedMagneticField(field: MagneticField(calibration.magnetometer(sample.magneticField)),
                                          accuracy: magneticAccuracy(out))
                : .unavailable,
            heading: heading,
            gyroBias: bias,
            restDetected: out.restDetected,
            magneticDisturbance: out.magneticDisturbance)
    }

    /// ENU → NWU (x north, y west, z up): a −90° turn about z. East (1,0,0) in ENU is (0,−1,0) in
    /// NWU (minus west) and north (0,1,0) is (1,0,0), so a device lying flat with its x axis to
    /// north (+90° about z in ENU) has the identity attitude in NWU.
    @inlinable public static var enuToNWU: Quaternion { Quaternion(w: 0.5.squareRoot(), x: 0, y: 0, z: -(0.5.squareRoot())) }

    /// Heading in degrees, 0–360 clockwise from north seen from above, of the device's y axis
    /// (its "top"), for a sensor → ENU attitude.
    @inlinable public static func heading(_ enu: Quaternion) -> Double {
        let top = enu.rotate(Vector3(0, 1, 0))
        var h = Double.atan2(top.x, top.y).degrees
        if h < 0 { h += 360 }
        // A tiny negative angle plus 360 rounds to 360: the range is [0, 360).
        return h >= 360 ? h - 360 : h
    }

    @usableFromInline func headingOffset(_ out: FusionOutput) -> Double {
        // Angle about z from q6 to q9.
        let d = out.quaternion9D * out.quaternion6D.conjugate
        return 2 * Double.atan2(d.z, d.w)
    }
}

/// The pipeline's default attitude filter.
public typealias DefaultAttitudeFilter = RobustAttitudeFilter

/// Magnetic declination for the true-north frame, from the World Magnetic Model.
public enum MagneticDeclination {
    /// Declination in radians (east positive) at a WGS84 location (degrees, metres) and decimal
    /// year, from WMM2025.
    public static func radians(latitude: Double, longitude: Double, altitudeMeters: Double = 0, decimalYear: Double) -> Double {
        WorldMagneticModel.wmm2025.field(latitude: latitude, longitude: longitude, altitude: altitudeMeters / 1000,
                                         decimalYear: decimalYear).declination.radians
    }
}
