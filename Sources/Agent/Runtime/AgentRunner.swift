import EdgeMotion
import Logging
import Messaging
import MotionCore
import Sensors
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Runs the agent: source → pipeline → MQTT, until a signal, the duration, or the end of a
/// recording. The pipeline is the `EdgeMotion` library's; this type only wires it to MQTT.
public final class AgentRunner: Sendable {
    public let configuration: AgentConfiguration
    private let log = Logger(label: "agent")

    public init(configuration: AgentConfiguration) {
        self.configuration = configuration
    }

    /// Runs until SIGINT/SIGTERM, `duration` seconds, or the end of a replayed recording.
    /// Call `SignalWaiter.blockSignals()` first, before any thread exists.
    /// Returns the process exit status.
    public func run(duration: Double?) -> Int32 {
        let c = configuration
        let deviceID = c.device.resolvedID()

        // MQTT settings.
        guard let brokerURL = c.mqtt.broker else {
            log.error("no broker configured", ["hint": "set mqtt.broker in the config or pass --broker mqtt://host:port (scripts/demo starts a private broker)"])
            return 2
        }
        let topics: TopicLayout
        let options: MQTTConnectionOptions
        do {
            topics = try TopicLayout(prefix: c.mqtt.resolvedTopicPrefix(deviceID: deviceID))
            options = try connectionOptions(brokerURL: brokerURL, deviceID: deviceID, statusTopic: topics.status)
        } catch {
            log.error("invalid MQTT settings", ["error": "\(error)"])
            return 2
        }

        // Source and pipeline.
        let source: any IMUSource
        do {
            source = try SourceFactory.makeSource(c.source, configurationFile: c.sourceFile)
        } catch {
            log.error("cannot open the source", ["error": "\(error)"])
            return 1
        }

        let client: MQTTClient
        do {
            client = try MQTTClient(options: options)
        } catch {
            log.error("cannot create the MQTT client", ["error": "\(error)"])
            return 2
        }
        let route = { (s: StreamSettings, topic: String) in MQTTPublisher.StreamRoute(topic: topic, qos: s.qos, retain: s.retain, format: s.format, deviceID: deviceID) }
        let publisher = MQTTPublisher(
            client: client, topics: topics,
            routes: [route(c.streams.accelerometer, topics.sensor("accelerometer")),
                     route(c.streams.gyroscope, topics.sensor("gyroscope")),
                     route(c.streams.magnetometer, topics.sensor("magnetometer")),
                     route(c.streams.motion, topics.motion)],
            clock: WallClockMapping.current())
        let homeAssistant = HomeAssistantIntegration(configuration: c, deviceID: deviceID, topics: topics, client: client,
                                                     sourceName: source.capabilities.name, sensors: source.capabilities.sensors)
        let pipeline = MotionPipeline(source: source, configuration: PipelineConfiguration(c), outputs: [publisher] + (homeAssistant?.outputs ?? [])
                                      + (c.recorder.enabled ? [RecorderFactory.make(c, store: RecorderFactory.store(c), source: source,
                                                                                    rateHz: { c.streams.accelerometer.effectiveRate(sourceRate: c.source.rate) })] : []))

        // Connect first, so a recording replayed as fast as possible loses nothing to the
        // connection handshake; a live source starts after at most 5 s either way.
        // `status` and `meta` are retained, and (re)announced on every connection: a broker
        // restart without persistence forgets them.
        let meta = Mutex<[UInt8]?>(nil)
        let statusTopic = topics.status, metaTopic = topics.meta
        let connectionLog = Logger(label: "mqtt")
        client.onConnectionChange = { @Sendable state in
            switch state {
            case .connected:
                _ = try? client.publish(topic: statusTopic, string: "online", qos: 1, retain: true)
                if let m = meta.withLock({ $0 }) { _ = try? client.publish(topic: metaTopic, payload: m, qos: 1, retain: true) }
                homeAssistant?.announce()
            case .connectionFailed, .connectionLost:
                connectionLog.warning("\(state)", ["broker": options.address.description])
            case .connecting, .stopped:
                connectionLog.debug("\(state)")
            }
        }
        homeAssistant?.start(client: client)
        do {
            try client.start()
        } catch {
            log.error("cannot start the MQTT client", ["error": "\(error)"])
            return 2
        }
        if !client.waitUntilConnected(timeout: .seconds(5)) {
            log.warning("broker not reachable yet; sampling starts anyway and stream batches are dropped until it is",
                        ["broker": options.address.description])
        }

        let report: PipelineStartReport
        do {
            report = try pipeline.start()
        } catch {
            log.error("cannot start the source", ["source": source.capabilities.name, "error": "\(error)"])
            _ = try? client.publish(topic: topics.status, string: "offline", qos: 1, retain: true)
            client.disconnect(timeout: .milliseconds(1500))
            return 1
        }
        logEffectiveRates(report)
        let metaPayload = MetaPayload.encode(deviceID: deviceID, report: report, configuration: c,
                                             availableFrames: availableFrames(report.source.sensors))
        meta.withLock { $0 = metaPayload }
        _ = try? client.publish(topic: topics.meta, payload: metaPayload, qos: 1, retain: true)
        log.notice("running", ["device_id": deviceID, "source": report.source.name,
                               "rate_hz": "\(report.sourceConfiguration.rate)", "prefix": topics.prefix])

        // Main loop: signals, duration, end of recording, periodic stats.
        let start = MonotonicClock.nowNanos()
        var nextStats = start + 10_000_000_000
        var exitReason = "stopped"
        loop: while true {
            switch SignalWaiter.wait(timeout: 0.2) {
            case .terminate(let signo):
                exitReason = signo == SIGINT ? "SIGINT" : "SIGTERM"
                break loop
            case .reload:
                log.notice("SIGHUP received; configuration reload is not supported yet, keeping the running configuration")
            case nil:
                break
            }
            let now = MonotonicClock.nowNanos()
            if let d = duration, Double(now - start) * 1e-9 >= d {
                exitReason = "duration reached"
                break
            }
            if publisher.ended == .endOfStream {
                exitReason = "end of recording"
                break
            }
            if now >= nextStats {
                nextStats = now + 10_000_000_000
                publishStats(client: client, topic: topics.stats, pipeline: pipeline, publisher: publisher)
            }
        }

        // Shutdown: stop sampling, flush, announce offline, disconnect — bounded to ~2 s.
        log.notice("stopping", ["reason": exitReason])
        pipeline.stop()
        publishStats(client: client, topic: topics.stats, pipeline: pipeline, publisher: publisher)
        _ = try? client.publish(topic: topics.status, string: "offline", qos: 1, retain: true)
        client.disconnect(timeout: .milliseconds(1500))
        let s = pipeline.statistics
        log.notice("stopped", ["samples": "\(s.samplesProcessed)", "ring_drops": "\(s.ringDrops)",
                               "published": "\(publisher.counts.published.reduce(0, +))",
                               "dropped": "\(publisher.counts.dropped.reduce(0, +))"])
        return 0
    }

    private func connectionOptions(brokerURL: String, deviceID: String, statusTopic: String) throws -> MQTTConnectionOptions {
        let m = configuration.mqtt
        let address = try MQTTBrokerAddress(url: brokerURL)
        var password = m.password
        if let file = m.passwordFile {
            password = try PasswordFile.read(file)
        }
        let tls = m.tls.map {
            MQTTTLSOptions(caFile: $0.caFile, caPath: $0.caPath, certFile: $0.certFile, keyFile: $0.keyFile,
                           version: $0.version, ciphers: $0.ciphers, insecure: $0.insecure)
        }
        return MQTTConnectionOptions(
            address: address, clientID: m.clientID ?? "edgemotion-" + deviceID, keepAlive: m.keepAlive,
            cleanSession: true, username: m.username, password: password,
            will: MQTTMessage(topic: statusTopic, string: "offline", qos: 1, retain: true),
            tls: tls, protocolVersion: m.protocol == "5" ? .v5 : .v311)
    }

    private func availableFrames(_ sensors: IMUSample.Contents) -> [AttitudeReferenceFrame] {
        guard sensors.contains(.magnetometer) else { return [.xArbitraryZVertical] }
        var frames: [AttitudeReferenceFrame] = [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical]
        if configuration.fusion.latitude != nil && configuration.fusion.longitude != nil { frames.append(.xTrueNorthZVertical) }
        return frames
    }

    private func logEffectiveRates(_ report: PipelineStartReport) {
        let requested = configuration.source.rate
        let actual = report.sourceConfiguration.rate
        if abs(requested - actual) > 1e-6 {
            log.notice("source runs at a different rate than requested", ["requested_hz": "\(requested)", "rate_hz": "\(actual)"])
        }
        for stream in SensorStream.allCases {
            guard let s = report.streams[stream], s.enabled else { continue }
            if s.capped {
                log.notice("stream rate capped to what the source can do",
                           ["stream": stream.rawValue, "requested_hz": "\(configuration.streams.settings(for: stream).rate)",
                            "rate_hz": "\(s.rate)"])
            }
        }
    }

    private func publishStats(client: MQTTClient, topic: String, pipeline: MotionPipeline, publisher: MQTTPublisher) {
        let s = pipeline.statistics
        let counts = publisher.counts
        let m = client.statistics
        var w = JSONWriter(capacity: 1024)
        w.beginObject()
        w.field("time_utc_us", Int64(MonotonicClock.realtimeNanos() / 1000))
        w.field("samples_acquired", s.samplesAcquired)
        w.field("samples_processed", s.samplesProcessed)
        w.field("ring_drops", s.ringDrops)
        w.field("source_gaps", s.sourceGaps)
        w.field("source_errors", s.sourceErrors)
        w.field("ring_max_depth", s.maximumRingDepth)
        w.key("published")
        perStream(&w, counts.published)
        w.key("dropped")
        perStream(&w, counts.dropped)
        w.field("mqtt_reconnects", m.reconnects)
        w.field("mqtt_acknowledged", m.acknowledged)
        w.endObject()
        _ = try? client.publish(topic: topic, payload: w.buffer, qos: 0, retain: false)
    }

    private func perStream(_ w: inout JSONWriter, _ v: [UInt64]) {
        w.beginObject()
        w.field("accelerometer", v[0])
        w.field("gyroscope", v[1])
        w.field("magnetometer", v[2])
        w.field("motion", v[3])
        w.endObject()
    }
}

/// Reads a secret from a file (e.g. a systemd credential), without its trailing newline.
enum PasswordFile {
    struct Failure: Error, CustomStringConvertible { var description: String }

    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw Failure(description: "mqtt.password_file: cannot read '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 4096) }
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
