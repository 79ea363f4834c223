/// A run-time command on `<topic_prefix>/cmd/stream` (Core Motion's start/stop and update
/// intervals, over MQTT): enable or disable one stream and/or change its rates.
///
/// ```json
/// {"id":"req-17","stream":"accelerometer","enabled":true,"rate":50,"publish_rate":5}
/// ```
/// `stream` is required; at least one of `enabled`, `rate`, `publish_rate` must be given; `id` is
/// echoed in the reply. Unknown keys, wrong types and out-of-range values are errors (nothing is
/// applied). Rate limits that depend on the running source are checked by `validate(…)`.
struct StreamCommand: Equatable, Sendable {
    /// Streams a command may name.
    static let streams = ["accelerometer", "gyroscope", "magnetometer", "motion"]
    static let keys = ["id", "stream", "enabled", "rate", "publish_rate"]
    /// Largest payload parsed (bytes); larger ones are refused without parsing.
    static let maximumPayloadBytes = 4096

    var id: String?
    var stream: String
    var enabled: Bool?
    /// Hz; 0 = the source rate.
    var rate: Double?
    /// Messages per second, Hz.
    var publishRate: Double?

    /// Why a command was refused; `message` goes into the reply's `error`.
    struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        var id: String?
        var message: String
        var description: String { message }
    }

    /// Parses a payload. Never traps, whatever the bytes.
    static func parse(_ payload: [UInt8]) -> Result<StreamCommand, Failure> {
        let envelope: CommandPayload
        switch CommandPayload.parse(payload, maximumBytes: maximumPayloadBytes, keys: keys,
                                    emptyHint: "expected a JSON object like {\"stream\":\"accelerometer\",\"enabled\":false}",
                                    syntaxHint: "expected an object like {\"stream\":\"accelerometer\",\"rate\":50}") {
        case .failure(let p): return .failure(Failure(id: p.id, message: p.message))
        case .success(let e): envelope = e
        }
        let dict = envelope.members, id = envelope.id
        func fail(_ m: String) -> Result<StreamCommand, Failure> { .failure(Failure(id: id, message: m)) }
        guard let streamValue = dict["stream"] else { return fail("'stream' is required: one of \(streams.joined(separator: ", "))") }
        guard case .string(let stream) = streamValue, streams.contains(stream) else {
            return fail("'stream' must be one of \(streams.joined(separator: ", "))")
        }
        var command = StreamCommand(id: id, stream: stream)
        if let raw = dict["enabled"] {
            guard case .bool(let b) = raw else { return fail("'enabled' must be true or false") }
            command.enabled = b
        }
        if let raw = dict["rate"] {
            guard case .number(let r) = raw, r.isFinite, StreamSettings.isAllowedRate(r) else { return fail("'rate' must be a number of Hz, \(StreamSettings.rateRange)") }
            command.rate = r
        }
        if let raw = dict["publish_rate"] {
            guard case .number(let r) = raw, r.isFinite, StreamSettings.isAllowedPublishRate(r) else { return fail("'publish_rate' must be a number of Hz, \(StreamSettings.publishRateRange)") }
            command.publishRate = r
        }
        if command.enabled == nil && command.rate == nil && command.publishRate == nil {
            return fail("nothing to change: give 'enabled', 'rate' and/or 'publish_rate'")
        }
        return .success(command)
    }

    /// The stream settings after applying this command to `current`, checked against the source
    /// rate (Hz), or the reason it cannot apply.
    func applied(to current: StreamSettings, sourceRate: Double) -> Result<StreamSettings, Failure> {
        var s = current
        if let enabled { s.enabled = enabled }
        if let rate { s.rate = rate }
        if let publishRate { s.publishRate = publishRate }
        if s.rate > sourceRate {
            return .failure(Failure(id: id, message: "rate \(s.rate) Hz is above the source rate \(sourceRate) Hz; use at most the source rate, or 0 to follow it"))
        }
        if let problem = s.rateProblem(sourceRate: sourceRate) {
            return .failure(Failure(id: id, message: problem))
        }
        return .success(s)
    }
}
