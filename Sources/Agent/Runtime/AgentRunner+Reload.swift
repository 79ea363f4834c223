import EdgeMotion
import Logging
import Messaging
import MotionCore
import Sensors
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension AgentRunner {
    // MARK: Reload (SIGHUP)

    /// Re-reads the configuration file. An invalid file is rejected (every problem logged) and the
    /// running configuration stays. A valid one is applied without restarting the process: a new
    /// MQTT client when the broker connection or topics changed, a pipeline restart (a gap of a few
    /// samples; `seq` continues) when the source, streams or fusion changed.
    func reload() {
        notifier.notify("RELOADING=1\nSTATUS=reloading configuration")
        defer { notifier.notify("READY=1\nSTATUS=" + statusLine()) }
        guard let path = configPath else {
            log.notice("SIGHUP: no --config file was given; nothing to reload")
            return
        }
        let fresh: AgentConfiguration
        do {
            fresh = try ConfigurationCheck.load(path: path, overrides: overrides)
        } catch {
            for d in error.diagnostics { log.error("reload rejected: invalid configuration", ["problem": "\(d)"]) }
            log.error("reload rejected; the running configuration stays", ["file": path, "problems": "\(error.diagnostics.count)"])
            let first = error.diagnostics.first.map { "\($0)" } ?? "invalid configuration"
            rejectReload(first + (error.diagnostics.count > 1 ? " (+\(error.diagnostics.count - 1) more)" : ""))
            return
        }
        switch apply(fresh) {
        case .success(let summary):
            log.notice("configuration reloaded", ["file": path, "changed": summary])
            rejectedReload.withLock { $0 = nil }
            healthDirty.store(true, ordering: .relaxed)
        case .failure(let e):
            log.error("reload rejected; the running configuration stays", ["file": path, "error": e.description])
            rejectReload(path + ": " + e.description)
        }
    }


    func rejectReload(_ text: String) {
        rejectedReload.withLock { $0 = (String(text.prefix(500)), MonotonicClock.realtimeNanos()) }
        healthDirty.store(true, ordering: .relaxed)
    }

    struct ApplyFailure: Error, CustomStringConvertible { var description: String }

    /// Applies a new, already validated configuration. Everything that can fail is built before
    /// anything running is touched.
    /// `restartPipeline` restarts the pipeline even when nothing changed (a new calibration file).
    func apply(_ new: AgentConfiguration, restartPipeline: Bool = false) -> Result<String, ApplyFailure> {
        let old = configuration
        if new == old && !restartPipeline { return .success("nothing") }
        guard new.mqtt.broker != nil else { return .failure(ApplyFailure(description: "mqtt.broker: no broker configured")) }
        var changed: [String] = []
        let newID = new.device.resolvedID()
        let newTopics: TopicLayout
        do { newTopics = try TopicLayout(prefix: new.mqtt.resolvedTopicPrefix(deviceID: newID)) } catch {
            return .failure(ApplyFailure(description: "mqtt.topic_prefix: \(error)"))
        }
        let connectionChanged = new.mqtt != old.mqtt || newID != deviceID || new.control != old.control
        // The publisher is a static output of the service's pipeline: any stream change restarts it.
        let routesChanged = routes(new, newTopics) != routes(old, topics)
        let pipelineChanged = new.source != old.source || new.fusion != old.fusion || new.streams != old.streams
            || routesChanged || new.activity != old.activity || new.homeAssistant != old.homeAssistant
            || new.events != old.events || restartPipeline
        // Only rates (rate, publish_rate, enabled): new schedules for the running pipeline.
        let reschedule = pipelineChanged && !restartPipeline && ReloadPlan.onlySchedulesChanged(new, old, routesChanged: routesChanged)
        var replacement: MQTTClient?
        if connectionChanged {
            do { replacement = try makeClient(new, topics: newTopics) } catch {
                return .failure(ApplyFailure(description: "mqtt: \(error)"))
            }
        }
        // `auxiliary:` devices are reopened (seq and the altitude reference continue); the IMU
        // source is untouched. A device that cannot be opened rejects the whole reload.
        let auxiliaryChanged = new.auxiliary != old.auxiliary || (auxiliary != nil && newTopics != topics)
        var newAuxiliary: AuxiliaryStreams?
        if auxiliaryChanged {
            do { newAuxiliary = try AuxiliaryStreams.make(new, topics: newTopics, log: log) } catch {
                return .failure(ApplyFailure(description: "auxiliary: \(error)"))
            }
        }
        var newSource: (any IMUSource)?
        if pipelineChanged && !reschedule {
            do { newSource = try makeSource(new) } catch {
                return .failure(ApplyFailure(description: "source: \(error)"))
            }
        }
        if new.logging != old.logging { Logger.threshold = new.logging.level; changed.append("logging") }
        for warning in SecretFileCheck.warnings(for: new) { log.warning("secret readable by other users", ["problem": warning]) }
        if new.outbox != old.outbox || new.spool != old.spool || new.stateDirectory != old.stateDirectory || new.process != old.process {
            log.notice("outbox, spool, state_directory and process settings take effect at the next start")
        }
        if new.debug != old.debug {
            synthetic = new.debug.syntheticEventsPerMinute > 0
                ? SyntheticEventSource(topic: newTopics.event("synthetic"), perMinute: new.debug.syntheticEventsPerMinute) : nil
            changed.append("debug")
        }
        configuration = new

        if let replacement {
            // The old broker learns we left (retained offline), then the new client takes over;
            // the outbox re-sends what was in flight on the old one.
            let oldClient: MQTTClient = client
            _ = try? oldClient.publish(topic: topics.status, string: "offline", qos: 1, retain: true)
            oldClient.disconnect(timeout: .seconds(1))
            reconnectsBase += oldClient.statistics.reconnects
            deviceID = newID
            topics = newTopics
            brokerIndex = 0
            install(replacement)
            changed.append("mqtt")
        }
        if auxiliaryChanged {
            if let newAuxiliary, let previous = auxiliary { newAuxiliary.continuing(from: previous) }
            auxiliary = newAuxiliary
            changed.append("auxiliary (devices reopened)")
        }
        if reschedule, let r = pipeline.reschedule(accelerometer: StreamSchedule(new.streams.accelerometer),
                                                   gyroscope: StreamSchedule(new.streams.gyroscope),
                                                   magnetometer: StreamSchedule(new.streams.magnetometer),
                                                   motion: StreamSchedule(new.streams.motion)) {
            report = r
            announce(new)
            changed.append("stream rates (source kept)")
        }
        if let newSource {
            // Source, fusion, topics or QoS changed: restart the pipeline. A short gap in the
            // streams; `seq` continues because the publisher is kept, `first_sample` and the
            // counters because `continuity` carries them.
            activity?.stop()
            activity = nil
            motionEvents?.stop()
            motionEvents = nil
            movementAdvisor?.stop()
            movementAdvisor = nil
            latestSnapshots.withLock { $0?.stop(); $0 = nil }
            service.stop()
            continuity.retire(pipeline)
            deviceID = newID
            topics = newTopics
            publisher.setRoutes(routes(new, newTopics))
            do {
                try startPipeline(source: newSource, configuration: new)
            } catch {
                log.error("the new source does not start; restarting the previous one", ["error": "\(error)"])
                configuration.source = old.source
                configuration.streams = old.streams
                configuration.fusion = old.fusion
                if let back = try? makeSource(old) {
                    try? startPipeline(source: back, configuration: configuration)
                }
                return .failure(ApplyFailure(description: "source: \(error)"))
            }
            changed.append("pipeline (restarted)")
        }
        healthDirty.store(true, ordering: .relaxed)
        return .success(changed.isEmpty ? "nothing running" : changed.joined(separator: ", "))
    }
}
