import EdgeMotion
import Logging
import Messaging
import Platform
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
            log.error(lostForGood == nil ? "reload rejected; the running configuration stays" : "reload rejected; no pipeline runs",
                      ["file": path, "error": e.description])
            rejectReload(path + ": " + e.description)
        }
    }


    func rejectReload(_ text: String) {
        rejectedReload.withLock { $0 = (String(text.prefix(500)), MonotonicClock.realtimeNanos()) }
        healthDirty.store(true, ordering: .relaxed)
    }

    struct ApplyFailure: Error, CustomStringConvertible { var description: String }

    /// Applies a new, already validated configuration, as `ConfigurationDiff` decides. Everything
    /// that can fail is built before anything running is touched.
    /// `restartPipeline` restarts the pipeline even when nothing changed (a new calibration file).
    func apply(_ new: AgentConfiguration, restartPipeline: Bool = false) -> Result<String, ApplyFailure> {
        let old = configuration
        let diff = ConfigurationDiff(from: old, to: new, auxiliaryRunning: auxiliary != nil, restartPipeline: restartPipeline)
        if diff.unchanged { return .success("nothing") }
        guard new.mqtt.broker != nil else { return .failure(ApplyFailure(description: "mqtt.broker: no broker configured")) }
        var changed: [String] = []
        let newID = new.device.resolvedID()
        let newTopics: TopicLayout
        do { newTopics = try TopicLayout(prefix: new.mqtt.resolvedTopicPrefix(deviceID: newID)) } catch {
            return .failure(ApplyFailure(description: "mqtt.topic_prefix: \(error)"))
        }
        var replacement: MQTTClient?
        if diff.reconnectBroker {
            do { replacement = try Self.makeClient(new, topics: newTopics, threadStarter: threadStarter) } catch {
                return .failure(ApplyFailure(description: "mqtt: \(error)"))
            }
        }
        // `auxiliary:` devices are reopened (seq and the altitude reference continue); the IMU
        // source is untouched. A device that cannot be opened rejects the whole reload.
        var newAuxiliary: AuxiliaryStreams?
        if diff.reopenAuxiliary {
            do { newAuxiliary = try AuxiliaryStreams.make(new, topics: newTopics, log: log) } catch {
                return .failure(ApplyFailure(description: "auxiliary: \(error)"))
            }
        }
        var newSource: (any IMUSource)?
        if diff.pipeline == .restart {
            do { newSource = try makeSource(new) } catch {
                return .failure(ApplyFailure(description: "source: \(error)"))
            }
        }
        if diff.retuneLogging { Logger.threshold = new.logging.level; changed.append("logging") }
        ConfigurationAdvice.log(new, to: log)
        if !diff.deferredToNextStart.isEmpty {
            log.notice("outbox, spool, state_directory and process settings take effect at the next start")
        }
        if diff.replaceSyntheticEvents {
            synthetic = new.debug.syntheticEventsPerMinute > 0
                ? SyntheticEventSource(topic: newTopics.event("synthetic"), perMinute: new.debug.syntheticEventsPerMinute) : nil
            changed.append("debug")
        }
        configuration = new

        if let replacement {
            // The old broker learns we left (retained offline), then the new client takes over;
            // the outbox re-sends what was in flight on the old one.
            let oldClient = client
            retireClient(timeout: .seconds(1))
            reconnectsBase += oldClient.statistics.reconnects
            deviceID = newID
            topics = newTopics
            failover.restartAtFirstBroker()
            installReplacement(replacement)
            changed.append("mqtt")
        }
        if diff.reopenAuxiliary {
            if let newAuxiliary, let previous = auxiliary { newAuxiliary.continuing(from: previous) }
            auxiliary = newAuxiliary
            changed.append("auxiliary (devices reopened)")
        }
        if diff.pipeline == .retune, let r = pipeline?.reschedule(accelerometer: StreamSchedule(new.streams.accelerometer),
                                                                  gyroscope: StreamSchedule(new.streams.gyroscope),
                                                                  magnetometer: StreamSchedule(new.streams.magnetometer),
                                                                  motion: StreamSchedule(new.streams.motion)) {
            report = r
            announce(new)
            changed.append("stream rates (source kept)")
        }
        if let newSource {
            // Source, fusion, topics or QoS changed: the pipeline's parts stop in reverse order
            // (as at the full stop) and start again on the new source. A short gap in the
            // streams; `seq` continues because the publisher is kept, `first_sample` and the
            // counters because `continuity` carries them.
            pipelineParts.stop(within: StopBudget(seconds: 1))
            let previousID = deviceID, previousTopics = topics
            deviceID = newID
            topics = newTopics
            publisher.setRoutes(Self.routes(new, newTopics))
            pipelineParts.replaceParts(makePipelineParts(source: newSource, configuration: new))
            do {
                try pipelineParts.start()
            } catch {
                // The reload policy: a new pipeline that does not start (its source, or one of its
                // threads) leaves the previous source, streams and fusion running. If that does
                // not start either, nothing samples: the agent stops with exit status 1.
                if let t = Self.threadStartFailure(in: error) {
                    Self.logThreadStartFailure(t, .reload, log: log)
                } else {
                    log.error("the new source does not start; restarting the previous one", ["error": "\(error)"])
                }
                configuration.source = old.source
                configuration.streams = old.streams
                configuration.fusion = old.fusion
                // The previous pipeline publishes as before: its streams' QoS, retain and format,
                // and its topics unless a new broker client (which owns the new ones) took over.
                if replacement == nil {
                    deviceID = previousID
                    topics = previousTopics
                    configuration.mqtt = old.mqtt
                    configuration.device = old.device
                }
                publisher.setRoutes(Self.routes(configuration, topics))
                do {
                    let back = try makeSource(old)
                    pipelineParts.replaceParts(makePipelineParts(source: back, configuration: configuration))
                    try pipelineParts.start()
                } catch let previous {
                    if let t = Self.threadStartFailure(in: previous) {
                        Self.logThreadStartFailure(t, .previousPipeline, log: log)
                    } else {
                        log.error("the previous pipeline does not start either; stopping (exit status 1)", ["error": "\(previous)"])
                    }
                    lostForGood = "no pipeline runs after a failed reload"
                }
                return .failure(ApplyFailure(description: "source: \(error)"))
            }
            changed.append("pipeline (restarted)")
        }
        healthDirty.store(true, ordering: .relaxed)
        return .success(changed.isEmpty ? "nothing running" : changed.joined(separator: ", "))
    }
}
