import Logging
import Messaging
import MotionCore
import Sensors

/// The `auxiliary:` streams: reads the environmental IIO channels every `1/rate` s and publishes,
/// every `1/publish_rate` s, one message per kind on `sensor/<kind>` (the mean of the readings
/// since the last message) and, with a pressure channel, the relative altitude since start on
/// `altitude`. Driven by the agent's main loop (`tick`), never by the IMU sample path.
final class AuxiliaryStreams {
    private let reader: AuxiliarySensorReader
    private let settings: AuxiliarySettings
    private let topics: TopicLayout
    private var nextRead: UInt64 = 0
    private var nextPublish: UInt64 = 0
    /// Per kind: sum, count, min, max, device, last timestamp since the last message.
    private var windows: [AuxiliaryKind: AuxiliaryWindow] = [:]
    /// First pressure read, kPa: the altitude reference.
    private var referencePressure: Double?
    /// Messages sent per topic (kinds, then `altitude`), the `seq` field.
    private var sequence: [String: UInt64] = [:]

    private func nextSeq(_ topic: String) -> UInt64 {
        defer { sequence[topic, default: 0] += 1 }
        return sequence[topic, default: 0]
    }

    init(reader: AuxiliarySensorReader, settings: AuxiliarySettings, topics: TopicLayout) {
        self.reader = reader
        self.settings = settings
        self.topics = topics
    }

    /// After a reload (SIGHUP) that changed `auxiliary:`: every topic's `seq` continues and, while
    /// the same devices are read, `altitude` keeps its reference (it stays "since start").
    func continuing(from previous: AuxiliaryStreams) {
        sequence = previous.sequence
        if previous.settings.uri == settings.uri && previous.settings.devices == settings.devices {
            referencePressure = previous.referencePressure
        }
    }

    /// The kinds the devices have, each published on `sensor/<kind>`.
    var kinds: [AuxiliaryKind] { reader.kinds }

    /// Reads and publishes what is due at `now` (ns `CLOCK_MONOTONIC`).
    func tick(now: UInt64, into outbox: Outbox) {
        if now >= nextRead {
            nextRead = now + UInt64(1e9 / settings.rate)
            for r in reader.read() { windows[r.kind, default: AuxiliaryWindow(device: r.device)].add(r) }
        }
        guard now >= nextPublish else { return }
        nextPublish = now + UInt64(1e9 / settings.publishRate)
        let clock = WallClockMapping.current()
        for kind in AuxiliaryKind.allCases {
            guard let w = windows[kind], w.count > 0 else { continue }
            outbox.enqueueState(topic: topics.sensor(kind.topic), payload: Self.payload(kind, w, clock, seq: nextSeq(kind.topic)), qos: settings.qos, retain: settings.retain)
            if kind == .pressure {
                let ref = referencePressure ?? w.mean
                referencePressure = ref
                outbox.enqueueState(topic: topics.altitude, payload: Self.altitudePayload(pressure: w.mean, reference: ref, w, clock, seq: nextSeq("altitude")),
                                    qos: settings.qos, retain: settings.retain)
            }
        }
        windows = [:]
    }

    /// `{"seq":…,"sensor":"pressure","unit":"kPa","device":"bmp280","t_utc_us":…,"value":…,"min":…,"max":…,"n":…}`
    static func payload(_ kind: AuxiliaryKind, _ w: AuxiliaryWindow, _ clock: WallClockMapping, seq: UInt64) -> [UInt8] {
        var j = JSONWriter(capacity: 256)
        j.beginObject()
        j.field("seq", seq)
        j.field("sensor", kind.rawValue)
        j.field("unit", kind.unit)
        j.field("t_utc_us", clock.utcNanos(monotonic: w.lastNanos) / 1000)
        j.field("device", w.device)
        j.field("value", w.mean)
        j.field("min", w.minimum)
        j.field("max", w.maximum)
        j.field("n", w.count)
        j.endObject()
        return j.withUnsafeBytes { Array($0) }
    }

    /// `{"seq":…,"t_utc_us":…,"relative_altitude_m":…,"pressure_kpa":…,"reference_kpa":…}`
    static func altitudePayload(pressure: Double, reference: Double, _ w: AuxiliaryWindow, _ clock: WallClockMapping, seq: UInt64) -> [UInt8] {
        var j = JSONWriter(capacity: 256)
        j.beginObject()
        j.field("seq", seq)
        j.field("t_utc_us", clock.utcNanos(monotonic: w.lastNanos) / 1000)
        j.field("relative_altitude_m", BarometricAltitude.relativeAltitude(pressureKPa: pressure, referenceKPa: reference), fractionDigits: 3)
        j.field("pressure_kpa", pressure)
        j.field("reference_kpa", reference)
        j.endObject()
        return j.withUnsafeBytes { Array($0) }
    }
}

/// Readings of one kind between two messages.
struct AuxiliaryWindow {
    var device: String
    var sum = 0.0
    var count = 0
    var minimum = Double.infinity
    var maximum = -Double.infinity
    var lastNanos: UInt64 = 0

    init(device: String) { self.device = device }

    mutating func add(_ r: AuxiliaryReading) {
        sum += r.value
        count += 1
        minimum = min(minimum, r.value)
        maximum = max(maximum, r.value)
        lastNanos = r.timestampNanos
    }

    var mean: Double { sum / Double(count) }
}

extension AuxiliaryStreams {
    /// The streams for `c.auxiliary`, nil when it lists no devices or they cannot be opened (then
    /// an error is logged and the IMU runs without them).
    static func open(_ c: AgentConfiguration, topics: TopicLayout, log: Logger) -> AuxiliaryStreams? {
        guard c.auxiliary.enabled else { return nil }
        do {
            return try make(c, topics: topics, log: log)
        } catch {
            log.error("cannot open the auxiliary sensors; running without them", ["error": "\(error)"])
            return nil
        }
    }

    /// Opens the devices of `c.auxiliary` (nil when none are listed), throwing when one cannot be
    /// opened: a reload uses this to refuse a configuration before anything running changes.
    static func make(_ c: AgentConfiguration, topics: TopicLayout, log: Logger) throws(SensorError) -> AuxiliaryStreams? {
        guard c.auxiliary.enabled else { return nil }
        let reader = try AuxiliarySensorReader(uri: c.auxiliary.uri, devices: c.auxiliary.devices)
        log.info("auxiliary sensors", ["devices": c.auxiliary.devices.joined(separator: ","),
                                      "kinds": reader.kinds.map(\.rawValue).joined(separator: ",")])
        return AuxiliaryStreams(reader: reader, settings: c.auxiliary, topics: topics)
    }
}
