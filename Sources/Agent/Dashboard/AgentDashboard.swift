import Dashboard
import Dispatch
import EdgeMotion
import Logging
import Messaging
import MotionCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The agent's web side (`http.enabled`): the live page, its event stream, `/metrics` and a
/// few read-only JSON documents, on libmicrohttpd's threads (module `Dashboard`).
///
/// Nothing here runs on the per-sample path. The page's live values come from a pull-only
/// `MotionManager` on the agent's service (the same kind of consumer as `latest/…`), read by
/// one timer at `http.live_rate`; each tick builds one JSON event and hands the same bytes to
/// every page's bounded queue (`EventHub`: drop-oldest, counted). The main loop hands over its
/// counters (`update`) a few times a second. `package`: edgemotion-bench measures it.
///
/// The calibration page (`/calibrate`) posts `CalibrationCommand` payloads to
/// `/api/calibration`; they are checked here, queued (at most `maximumCalibrationRequests`) and
/// carried out by the main loop, which hands back the flow's state (`setCalibrationStatus`).
/// Writes are refused when the dashboard listens beyond loopback without basic auth.
package final class AgentDashboard: Sendable {
    package let server: HTTPServer
    package let hub: EventHub
    private let settings: HTTPSettings
    private let configurationJSON: Mutex<[UInt8]>
    private let snapshot = Mutex(AgentStatusSnapshot())
    private let parts = Mutex<(manager: MotionManager?, activity: ActivityEngine?)>((nil, nil))
    /// The live stream's clock: one tick per `1 / http.live_rate` s on its own queue.
    private let queue = DispatchQueue(label: "edgemotion.dashboard")
    private let running = Atomic<Bool>(true)
    private let period: Double
    private let lastUpdate = Mutex<(nanos: UInt64, samples: UInt64)>((0, 0))
    private let log = Logger(label: "dashboard")
    /// Checked calibration commands waiting for the main loop, and the flow's latest JSON.
    private let calibrationRequests = Mutex<[CalibrationCommand]>([])
    private let calibrationStatus = Mutex<[UInt8]>(Array(#"{"active":null}"#.utf8))
    /// Whether POSTs may change anything: loopback only, or basic auth.
    private let writesAllowed: Bool
    static let maximumCalibrationRequests = 8

    /// Starts serving; the live stream starts empty until `attach`.
    package init(configuration c: AgentConfiguration) throws {
        settings = c.http
        let listen = try HTTPListenAddress(parsing: c.http.listen)
        var options = HTTPServer.Options(listen: listen)
        options.postPaths = ["/api/calibration"]
        options.maximumBodyBytes = CommandObject.maximumPayloadBytes
        if let user = c.http.username, let file = c.http.passwordFile {
            options.basicAuth = (user, try PasswordFile.read(file, key: "http.password_file"))
        }
        if let cert = c.http.certFile, let key = c.http.keyFile {
            options.tls = (try Self.text(cert, key: "http.cert_file"), try Self.text(key, key: "http.key_file"))
        }
        writesAllowed = listen.isLoopback || options.basicAuth != nil
        let hub = EventHub(queueCapacity: 16, maximumClients: c.http.maxClients)
        self.hub = hub
        configurationJSON = Mutex(ConfigurationView.json(c))
        let holder = Mutex<AgentDashboard?>(nil)
        server = try HTTPServer(options: options) { request in
            holder.withLock { $0 }?.route(request) ?? .text(503, "starting\n")
        }
        period = 1.0 / c.http.liveRate
        holder.withLock { $0 = self }
        scheduleTick()
        if !listen.isLoopback, options.basicAuth == nil {
            log.warning("the dashboard is reachable from the network without a password", ["listen": listen.description,
                        "hint": "set http.username and http.password_file (and cert_file/key_file for TLS)"])
        }
        log.notice("dashboard", ["url": server.url, "metrics": server.url + "metrics"])
    }

    /// Follows the agent's running service (start, and each pipeline restart on reload).
    package func attach(service: MotionService, activity: Bool, configuration c: AgentConfiguration) {
        let m = MotionManager(service: service)
        let interval = 1.0 / settings.liveRate
        m.accelerometerUpdateInterval = interval
        m.gyroUpdateInterval = interval
        m.magnetometerUpdateInterval = interval
        m.deviceMotionUpdateInterval = interval
        if m.isAccelerometerAvailable { m.startAccelerometerUpdates() }
        if m.isGyroAvailable { m.startGyroUpdates() }
        if m.isMagnetometerAvailable { m.startMagnetometerUpdates() }
        if m.isDeviceMotionAvailable { m.startDeviceMotionUpdates() }
        let old = parts.withLock { p -> MotionManager? in
            defer { p = (m, activity ? service.activityEngine : nil) }
            return p.manager
        }
        old?.stopAllUpdates()
        configurationJSON.withLock { $0 = ConfigurationView.json(c) }
    }

    /// The main loop's counters (call a few times a second).
    func update(_ s: AgentStatusSnapshot) {
        var s = s
        let now = MonotonicClock.nowNanos()
        let processed = s.pipeline?.samplesProcessed ?? 0
        let rate = lastUpdate.withLock { last -> Double? in
            guard last.nanos != 0, processed >= last.samples else { last = (now, processed); return nil }
            let dt = Double(now - last.nanos) * 1e-9
            guard dt >= 1 else { return nil }
            defer { last = (now, processed) }
            return Double(processed - last.samples) / dt
        }
        snapshot.withLock { old in
            s.achievedRate = rate ?? old.achievedRate
            old = s
        }
    }

    package func stop() {
        running.store(false, ordering: .relaxed)
        queue.sync {}
        parts.withLock { p in p.manager?.stopAllUpdates(); p = (nil, nil) }
        hub.closeAll()
        server.stop()
    }

    // MARK: Routes

    private func route(_ r: HTTPRequest) -> HTTPResponse {
        switch r.path {
        case "/", "/index.html": .body(status: 200, contentType: "text/html; charset=utf-8", bytes: DashboardAssets.indexHTML)
        case "/app.js": .body(status: 200, contentType: "text/javascript; charset=utf-8", bytes: DashboardAssets.appJS)
        case "/style.css": .body(status: 200, contentType: "text/css; charset=utf-8", bytes: DashboardAssets.styleCSS)
        case "/events": .eventStream(hub)
        case "/metrics": .body(status: 200, contentType: PrometheusText.contentType, bytes: Array(metrics().utf8))
        case "/api/config": json(configurationJSON.withLock { $0 })
        case "/api/activity": json(activityTimeline())
        case "/api/live": json(liveJSON())
        case "/healthz": .text(200, "ok\n")
        case "/calibrate", "/calibrate.html": .body(status: 200, contentType: "text/html; charset=utf-8", bytes: DashboardAssets.calibrateHTML)
        case "/calibrate.js": .body(status: 200, contentType: "text/javascript; charset=utf-8", bytes: DashboardAssets.calibrateJS)
        case "/api/calibration": r.method == "POST" ? calibrationRequest(r.body) : json(calibrationStatus.withLock { $0 })
        default: .notFound()
        }
    }

    /// A POST to `/api/calibration`: 202 when queued for the main loop, else 400/403/503 with
    /// `{"ok":false,"error":…}`.
    private func calibrationRequest(_ body: [UInt8]) -> HTTPResponse {
        func answer(_ status: Int, _ id: String?, _ error: String?, action: String? = nil) -> HTTPResponse {
            var w = JSONWriter(capacity: 256)
            w.beginObject()
            if let id { w.field("id", id) }
            w.field("ok", error == nil)
            if let error { w.field("error", error) }
            if let action { w.field("action", action); w.field("state", "queued") }
            w.endObject()
            return .body(status: status, contentType: "application/json", bytes: w.buffer)
        }
        guard writesAllowed else {
            return answer(403, nil, "calibrating over HTTP needs http.username and http.password_file when http.listen is not loopback")
        }
        switch CalibrationCommand.parse(body, actions: CalibrationCommand.dashboardActions) {
        case .failure(let f):
            return answer(400, f.id, "/api/calibration: \(f.message)")
        case .success(let command):
            let queued = calibrationRequests.withLock { q -> Bool in
                guard q.count < Self.maximumCalibrationRequests else { return false }
                q.append(command)
                return true
            }
            guard queued else { return answer(503, command.id, "too many calibration requests waiting; try again in a second") }
            return answer(202, command.id, nil, action: command.action)
        }
    }

    /// The calibration commands posted since the last call (main loop).
    func takeCalibrationRequests() -> [CalibrationCommand] {
        calibrationRequests.withLock { q in defer { q.removeAll() }; return q }
    }

    /// The calibration flow's state for `GET /api/calibration` (main loop).
    func setCalibrationStatus(_ json: [UInt8]) { calibrationStatus.withLock { $0 = json } }

    private func json(_ bytes: [UInt8]) -> HTTPResponse {
        .body(status: 200, contentType: "application/json", bytes: bytes)
    }

    /// Prometheus text for `/metrics`.
    func metrics() -> String {
        let p = parts.withLock { $0 }
        return AgentMetrics.text(snapshot.withLock { $0 }, motion: p.manager?.deviceMotion, activity: p.activity?.currentActivity,
                                 pedometer: p.activity?.pedometerData, hub: hub.statistics, http: server.requestCounts)
    }

    // MARK: Live stream

    private func scheduleTick() {
        queue.asyncAfter(deadline: .now() + period) { [weak self] in
            guard let self, running.load(ordering: .relaxed) else { return }
            hub.broadcast(EventHub.message(event: "live", data: liveJSON()))
            scheduleTick()
        }
    }

    /// One live update: attitude, sensors, activity, steps, health.
    func liveJSON() -> [UInt8] {
        let p = parts.withLock { $0 }
        let s = snapshot.withLock { $0 }
        var w = JSONWriter(capacity: 2048)
        w.beginObject()
        w.field("t_utc", Double(MonotonicClock.realtimeNanos()) * 1e-9, fractionDigits: 3)
        w.field("device_id", s.deviceID)
        w.field("live_rate_hz", settings.liveRate, fractionDigits: 2)
        func vector(_ k: StaticString, _ v: Vector3?, _ digits: Int) {
            w.key(k)
            guard let v else { w.null(); return }
            w.beginArray(); w.value(v.x, fractionDigits: digits); w.value(v.y, fractionDigits: digits); w.value(v.z, fractionDigits: digits); w.endArray()
        }
        vector("accelerometer", p.manager?.accelerometerData?.acceleration.vector, 4)
        vector("gyroscope", p.manager?.gyroData?.rotationRate.vector, 4)
        vector("magnetometer", p.manager?.magnetometerData?.magneticField.vector, 2)
        w.key("motion")
        if let m = p.manager?.deviceMotion {
            w.beginObject()
            w.field("t_mono_s", m.timestamp, fractionDigits: 3)
            w.field("frame", m.referenceFrame.rawValue)
            let q = m.attitude.quaternion
            w.key("quaternion")
            w.beginArray(); w.value(q.w, fractionDigits: 6); w.value(q.x, fractionDigits: 6); w.value(q.y, fractionDigits: 6); w.value(q.z, fractionDigits: 6); w.endArray()
            w.field("roll", m.attitude.roll, fractionDigits: 5)
            w.field("pitch", m.attitude.pitch, fractionDigits: 5)
            w.field("yaw", m.attitude.yaw, fractionDigits: 5)
            w.field("heading", m.heading, fractionDigits: 2)
            vector("user_acceleration", m.userAcceleration.vector, 4)
            w.field("rest", m.restDetected)
            w.field("magnetic_disturbance", m.magneticDisturbance)
            w.endObject()
        } else { w.null() }
        w.key("activity")
        if let a = p.activity?.currentActivity {
            w.beginObject(); w.field("activity", a.primary.name); w.field("confidence", a.confidence.name)
            w.field("start_utc", a.startDate, fractionDigits: 3); w.endObject()
        } else { w.null() }
        w.key("pedometer")
        if let d = p.activity?.pedometerData {
            w.beginObject(); w.field("steps", d.numberOfSteps); w.field("cadence", d.currentCadence, fractionDigits: 3)
            w.field("distance_m", d.distance, fractionDigits: 2); w.endObject()
        } else { w.null() }
        w.key("health")
        w.beginObject()
        w.field("source", s.sourceName)
        w.field("rate_hz", s.sourceRate, fractionDigits: 1)
        w.field("achieved_hz", s.achievedRate, fractionDigits: 1)
        w.field("samples", s.pipeline?.samplesProcessed ?? 0)
        w.field("ring_drops", s.pipeline?.ringDrops ?? 0)
        w.field("source_gaps", s.pipeline?.sourceGaps ?? 0)
        w.field("source_errors", s.pipeline?.sourceErrors ?? 0)
        w.field("connected", s.connected)
        w.field("broker", s.broker)
        w.field("reconnects", s.reconnects)
        w.field("outbox_bytes", s.outbox.queuedBytes)
        w.field("outbox_dropped", s.outbox.dropped.values.reduce(0, +))
        w.field("spool_records", s.outbox.unacknowledgedEvents)
        if let e = s.lastError { w.field("last_error", e) } else { w.key("last_error"); w.null() }
        let h = hub.statistics
        w.field("pages", h.clients)
        w.field("page_events_dropped", h.dropped)
        w.endObject()
        w.endObject()
        return w.buffer
    }

    /// The last hour of activity changes from the history store: `[{activity, confidence, start_utc}]`.
    func activityTimeline() -> [UInt8] {
        let engine = parts.withLock { $0.activity }
        let now = Double(MonotonicClock.realtimeNanos()) * 1e-9
        var w = JSONWriter(capacity: 4096)
        w.beginObject()
        w.field("from_utc", now - 3600, fractionDigits: 3)
        w.field("to_utc", now, fractionDigits: 3)
        w.key("changes")
        w.beginArray()
        for a in ((try? engine?.activities(from: now - 3600, to: now)) ?? []).suffix(500) {
            w.beginObject(); w.field("activity", a.primary.name); w.field("confidence", a.confidence.name)
            w.field("start_utc", a.startDate, fractionDigits: 3); w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.buffer
    }

    private static func text(_ path: String, key: String) throws -> String {
        do throws(FileError) { return String(decoding: try WholeFile.bytes(atPath: path, limit: 1 << 20), as: UTF8.self) } catch {
            throw PasswordFile.Failure(description: "\(key): cannot read '\(path)': \(error)")
        }
    }
}
