/// A run-time command on `<topic_prefix>/cmd/calibrate`: learn the gyroscope bias while the
/// device lies still (what `edgemotion calibrate gyro` does with a recording, on the live source).
///
/// ```json
/// {"id":"ha","action":"gyro","duration_s":10}
/// ```
/// `action` is required (on MQTT only `gyro`); `duration_s` (seconds of samples averaged, 2 … 120,
/// default 10; `gyro` only) and `id` (text ≤ 128 bytes, echoed in the reply) are optional. A bare
/// word (`gyro`) works too. Unknown keys, wrong types and out-of-range values are errors.
///
/// The dashboard's calibration page posts the same payload to `/api/calibration`, with more
/// actions (`dashboardActions`): `accel` and `mag` start collecting the six faces or the
/// ellipsoid, `save` fits and keeps the step being collected, `cancel` drops it.
struct CalibrationCommand: Equatable, Sendable {
    static let actions = ["gyro"]
    static let dashboardActions = ["gyro", "accel", "mag", "save", "cancel"]
    static let keys = ["id", "action", "duration_s"]
    static let durationRange = 2.0...120.0
    static let defaultDuration = 10.0
    var id: String?
    var action: String
    /// Seconds of samples to average.
    var duration: Double = CalibrationCommand.defaultDuration

    /// Parses a payload. Never traps, whatever the bytes.
    static func parse(_ payload: [UInt8], actions: [String] = CalibrationCommand.actions) -> Result<CalibrationCommand, StreamCommand.Failure> {
        if payload.count <= 64 {
            let word = String(decoding: payload, as: UTF8.self).filter { !$0.isWhitespace }
            if actions.contains(word) { return .success(CalibrationCommand(action: word)) }
        }
        let object: CommandObject
        switch CommandObject.parse(payload, keys: keys.filter { $0 != "id" }, example: #"{"action":"gyro","duration_s":10} (or the bare word gyro)"#) {
        case .success(let o): object = o
        case .failure(let f): return .failure(f)
        }
        let dict = object.members, id = object.id
        func fail(_ m: String) -> Result<CalibrationCommand, StreamCommand.Failure> { .failure(StreamCommand.Failure(id: id, message: m)) }
        guard case .string(let action)? = dict["action"], actions.contains(action) else {
            return fail("'action' must be one of \(actions.joined(separator: ", "))")
        }
        var command = CalibrationCommand(id: id, action: action)
        if let raw = dict["duration_s"] {
            guard action == "gyro" else { return fail("'duration_s' applies to the gyro action only") }
            guard case .number(let d) = raw, d.isFinite, durationRange.contains(d) else {
                return fail("'duration_s' must be a number of seconds, \(Int(durationRange.lowerBound)) … \(Int(durationRange.upperBound))")
            }
            command.duration = d
        }
        return .success(command)
    }
}
