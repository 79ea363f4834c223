extension StreamSettingsSet {
    /// The settings of the stream called `name` (`accelerometer`, `gyroscope`, `magnetometer`, `motion`).
    subscript(named name: String) -> StreamSettings? {
        get {
            switch name {
            case "accelerometer": accelerometer
            case "gyroscope": gyroscope
            case "magnetometer": magnetometer
            case "motion": motion
            default: nil
            }
        }
        set {
            guard let newValue else { return }
            switch name {
            case "accelerometer": accelerometer = newValue
            case "gyroscope": gyroscope = newValue
            case "magnetometer": magnetometer = newValue
            case "motion": motion = newValue
            default: break
            }
        }
    }
}
