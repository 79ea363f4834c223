/// Bounds of the recordings directory: files rotate by size and age; the oldest files go first
/// when the total size or the maximum age is exceeded.
public struct RecordingLimits: Sendable, Equatable {
    /// A file is closed and a new one started at this size, bytes.
    public var maximumFileBytes: Int
    /// … or when it is this old, seconds.
    public var maximumFileSeconds: Double
    /// Oldest files are removed while the directory holds more than this, bytes.
    public var maximumTotalBytes: Int
    /// Files whose newest sample is older than this are removed, seconds (0 = no age limit).
    public var maximumAgeSeconds: Double

    public init(maximumFileBytes: Int = 64 << 20, maximumFileSeconds: Double = 3600,
                maximumTotalBytes: Int = 1 << 30, maximumAgeSeconds: Double = 7 * 86_400) {
        self.maximumFileBytes = maximumFileBytes
        self.maximumFileSeconds = maximumFileSeconds
        self.maximumTotalBytes = maximumTotalBytes
        self.maximumAgeSeconds = maximumAgeSeconds
    }
}
