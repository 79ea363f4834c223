/// Turns raw samples into Core Motion's `DeviceMotion` with any `AttitudeFilter`.
///
/// It owns the filter, tracks sample time, and expresses the filter's state in the requested
/// reference frame. Value type, no allocation per sample.
public struct DeviceMotionEstimator<Filter: AttitudeFilter>: Sendable {
    public private(set) var filter: Filter
    /// The frame `DeviceMotion.attitude` is expressed in.
    public var referenceFrame: AttitudeReferenceFrame
    /// Magnetic declination in radians (east positive), for `xTrueNorthZVertical`.
    public var declination: Double?

    private var lastTimestampNanos: UInt64 = 0
    private let nominalPeriod: Double
    private var arbitraryHeadingReference: Double?

    public init(filter: Filter, samplePeriod: Double, referenceFrame: AttitudeReferenceFrame, declination: Double? = nil) {
        self.filter = filter
        self.nominalPeriod = samplePeriod
        self.referenceFrame = referenceFrame
        self.declination = declination
    }

    public init(samplePeriod: Double, referenceFrame: AttitudeReferenceFrame, declination: Double? = nil) {
        self.init(filter: Filter(samplePeriod: samplePeriod), samplePeriod: samplePeriod,
                  referenceFrame: referenceFrame, declination: declination)
    }

    /// Feeds one sample and returns the device motion after it.
    public mutating func update(_ sample: IMUSample) -> DeviceMotion {
        ingest(sample)
        return deviceMotion(for: sample)
    }

    /// Feeds one sample to the filter without building a `DeviceMotion` (for samples that are
    /// fused but not published).
    public mutating func ingest(_ sample: IMUSample) {
        var dt = nominalPeriod
        if lastTimestampNanos != 0, sample.timestampNanos > lastTimestampNanos {
            let measured = Double(sample.timestampNanos - lastTimestampNanos) * 1e-9
            // A gap (lost samples, paused replay) must not become one huge integration step.
            dt = measured < 10 * nominalPeriod ? measured : nominalPeriod
        }
        lastTimestampNanos = sample.timestampNanos
        let mag: Vector3? = sample.contents.contains(.magnetometer) ? sample.magneticField : nil
        filter.update(gyroscope: sample.rotationRate, accelerometer: sample.specificForce, magnetometer: mag, dt: dt)
    }

    /// The device motion for the filter's current state and `sample`'s raw readings.
    public mutating func deviceMotion(for sample: IMUSample) -> DeviceMotion {
        let out = filter.output
        let up = out.quaternion6D.inverseRotate(Vector3(0, 0, 1))
        let gravity = Acceleration(-up)
        let total = Acceleration(specificForce: sample.specificForce)
        let user = Acceleration(x: total.x - gravity.x, y: total.y - gravity.y, z: total.z - gravity.z)

        var frame = referenceFrame
        var attitude: Quaternion
        var heading = -1.0
        switch referenceFrame {
        case .xArbitraryZVertical:
            attitude = out.quaternion6D
        case .xArbitraryCorrectedZVertical:
            if out.headingAvailable {
                if arbitraryHeadingReference == nil {
                    arbitraryHeadingReference = headingOffset(out)
                }
                attitude = Quaternion.aboutZ(-(arbitraryHeadingReference ?? 0)) * out.quaternion9D
            } else {
                attitude = out.quaternion6D
            }
        case .xMagneticNorthZVertical, .xTrueNorthZVertical:
            var enu = out.quaternion9D
            if referenceFrame == .xTrueNorthZVertical {
                if let d = declination {
                    enu = Quaternion.aboutZ(-d) * enu
                } else {
                    frame = .xMagneticNorthZVertical
                }
            }
            attitude = Self.enuToNWU * enu
            if out.headingAvailable {
                let top = enu.rotate(Vector3(0, 1, 0))
                var h = Double.atan2(top.x, top.y).degrees
                if h < 0 { h += 360 }
                heading = h
            } else {
                attitude = out.quaternion6D
            }
        }
        return DeviceMotion(
            timestamp: sample.timestamp,
            attitude: Attitude(quaternion: attitude.normalized),
            referenceFrame: frame,
            rotationRate: RotationRate(sample.rotationRate - out.gyroBias),
            gravity: gravity,
            userAcceleration: user,
            magneticField: sample.contents.contains(.magnetometer)
                ? CalibratedMagneticField(field: MagneticField(sample.magneticField),
                                          accuracy: out.magneticDisturbance ? .low : .medium)
                : .unavailable,
            heading: heading,
            gyroBias: out.gyroBias,
            restDetected: out.restDetected,
            magneticDisturbance: out.magneticDisturbance)
    }

    /// ENU → NWU (x north, y west, z up): a +90° turn about z.
    public static var enuToNWU: Quaternion { Quaternion(w: 0.5.squareRoot(), x: 0, y: 0, z: 0.5.squareRoot()) }

    private func headingOffset(_ out: FusionOutput) -> Double {
        // Angle about z from q6 to q9.
        let d = out.quaternion9D * out.quaternion6D.conjugate
        return 2 * Double.atan2(d.z, d.w)
    }
}
