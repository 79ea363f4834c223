/// `source.replay.speed`: how fast a recording is played back.
public enum ReplaySpeed: String, Sendable, Equatable, CaseIterable {
    /// At the recording's own timing (real time).
    case recorded
    /// As fast as the pipeline consumes samples (lossless).
    case max
}
