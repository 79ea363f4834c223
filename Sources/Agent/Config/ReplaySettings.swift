/// `source.replay:` — play back a recorded CSV or CSV.gz file.
public struct ReplaySettings: Sendable, Equatable {
    /// `file`: path of the recording, relative to the working directory. Required when
    /// `source.type` is `replay`.
    public var file: String?
    /// `speed`.
    public var speed: ReplaySpeed
    /// `loop`: start again at the end of the file.
    public var loop: Bool

    public init(file: String? = nil, speed: ReplaySpeed = .recorded, loop: Bool = false) {
        self.file = file
        self.speed = speed
        self.loop = loop
    }
}
