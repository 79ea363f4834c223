/// `streams:` — the four published streams.
public struct StreamSettingsSet: Sendable, Equatable {
    /// `streams.accelerometer`: raw acceleration, g.
    public var accelerometer: StreamSettings
    /// `streams.gyroscope`: raw rotation rate, rad/s.
    public var gyroscope: StreamSettings
    /// `streams.magnetometer`: raw magnetic field, µT.
    public var magnetometer: StreamSettings
    /// `streams.motion`: fused device motion (attitude, gravity, user acceleration, …).
    public var motion: StreamSettings
    /// `streams.latest_interval_s`: seconds between the retained `latest/<stream>` snapshots
    /// (one sample each, for consumers that sample); 0 turns them off. `query/latest` answers
    /// whenever asked.
    public var latestInterval: Double = 5

    /// Default for the three raw sensor streams: on, 100 Hz, 10 messages/s, QoS 0.
    public static let defaultSensor = StreamSettings(enabled: true, rate: 100, publishRate: 10, qos: 0, retain: false)
    /// Default for `motion`: on, 50 Hz, 10 messages/s, QoS 0.
    public static let defaultMotion = StreamSettings(enabled: true, rate: 50, publishRate: 10, qos: 0, retain: false)

    public init(
        accelerometer: StreamSettings = StreamSettingsSet.defaultSensor,
        gyroscope: StreamSettings = StreamSettingsSet.defaultSensor,
        magnetometer: StreamSettings = StreamSettingsSet.defaultSensor,
        motion: StreamSettings = StreamSettingsSet.defaultMotion
    ) {
        self.accelerometer = accelerometer
        self.gyroscope = gyroscope
        self.magnetometer = magnetometer
        self.motion = motion
    }
}
