import EdgeMotion

/// `recorder:` — Core Motion's `CMSensorRecorder`: raw samples to rotating binary files
/// (docs/recording.md). Off by default. While `edgemotion run` records, it records the samples
/// of the accelerometer stream (every sensor they carry) at that stream's rate; set
/// `streams.accelerometer.rate: 0` to record at the source rate. `edgemotion record` always
/// records at the source rate.
public struct RecorderSettings: Sendable, Equatable {
    /// `enabled`: record while `edgemotion run` runs.
    public var enabled: Bool
    /// `directory`: where recordings go; `nil` = `<state_directory>/recordings`.
    public var directory: String?
    /// `max_file_mb`: a new file is started at this size, MiB (1 … 4096).
    public var maxFileMB: Int
    /// `max_file_minutes`: … or after this many minutes (1 … 1440).
    public var maxFileMinutes: Double
    /// `max_total_mb`: oldest files are removed while the directory holds more, MiB (1 … 1048576).
    public var maxTotalMB: Int
    /// `max_age_days`: files older than this are removed, days (0 = keep until max_total_mb).
    public var maxAgeDays: Double

    public init(enabled: Bool = false, directory: String? = nil, maxFileMB: Int = 64, maxFileMinutes: Double = 60,
                maxTotalMB: Int = 1024, maxAgeDays: Double = 7) {
        self.enabled = enabled
        self.directory = directory
        self.maxFileMB = maxFileMB
        self.maxFileMinutes = maxFileMinutes
        self.maxTotalMB = maxTotalMB
        self.maxAgeDays = maxAgeDays
    }

    /// `directory`, or `<stateDirectory>/recordings`.
    public func resolvedDirectory(stateDirectory: String) -> String {
        directory ?? (stateDirectory.hasSuffix("/") ? stateDirectory + "recordings" : stateDirectory + "/recordings")
    }

    public var limits: RecordingLimits {
        RecordingLimits(maximumFileBytes: maxFileMB << 20, maximumFileSeconds: maxFileMinutes * 60,
                        maximumTotalBytes: maxTotalMB << 20, maximumAgeSeconds: maxAgeDays * 86_400)
    }
}
