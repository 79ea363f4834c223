import MotionCore

/// `activity:` — activity detection (CMMotionActivityManager), the pedometer (CMPedometer) and
/// their history, as the agent publishes them.
public struct ActivitySettings: Sendable, Equatable {
    /// `enabled`: run activity detection and step counting and publish `activity`,
    /// `events/activity` and `pedometer`.
    public var enabled: Bool
    /// `history_days`: days of activity changes and step totals kept in the state directory's
    /// SQLite history (Core Motion keeps 7), 1…365.
    public var historyDays: Double
    /// `minimum_dwell_s`: seconds a new activity must last before it is reported (no flapping), 0…600.
    public var minimumDwell: Double
    /// `vehicle_stop_timeout_s`: seconds a stopped vehicle stays `automotive`+`stationary` before
    /// becoming plain `stationary`, 0…3600.
    public var vehicleStopTimeout: Double
    /// `pedometer_interval_s`: seconds between `pedometer` updates while steps are counted, 1…3600.
    public var pedometerInterval: Double
    /// `stride_m`: step length in metres for distance; nil = estimated from `height_m`, else 0.7 m.
    public var strideLength: Double?
    /// `height_m`: the wearer's height in metres, used for the stride when `stride_m` is absent.
    public var height: Double?

    public init(enabled: Bool = true, historyDays: Double = 7, minimumDwell: Double = 5, vehicleStopTimeout: Double = 180,
                pedometerInterval: Double = 10, strideLength: Double? = nil, height: Double? = nil) {
        self.enabled = enabled
        self.historyDays = historyDays
        self.minimumDwell = minimumDwell
        self.vehicleStopTimeout = vehicleStopTimeout
        self.pedometerInterval = pedometerInterval
        self.strideLength = strideLength
        self.height = height
    }

    /// The activity detector's settings the agent runs with: the defaults with this section's keys.
    public var detectorConfiguration: ActivityConfiguration {
        var activity = ActivityConfiguration()
        activity.minimumDwell = minimumDwell
        activity.vehicleStopTimeout = vehicleStopTimeout
        return activity
    }

    /// The pedometer's settings the agent runs with.
    public var pedometerConfiguration: PedometerConfiguration {
        var pedometer = PedometerConfiguration()
        pedometer.strideLength = strideLength
        pedometer.height = height
        return pedometer
    }
}
