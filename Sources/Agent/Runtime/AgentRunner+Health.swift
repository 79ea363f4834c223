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
    // MARK: Reporting

    /// `stats` with the pipeline counters `pipeline` (`currentStatistics`).
    func statsPayload(_ pipeline: PipelineStatistics) -> [UInt8] {
        let m = client.statistics
        return StatsPayload.stats(pipeline: pipeline, outbox: outbox.statistics, mqtt: m,
                                  reconnects: reconnectsBase + m.reconnects, refusals: client.refusals)
    }

    func publishHealth(direct: Bool = false) {
        let source = sourceHealth.takeStatus()
        let o = outbox.statistics
        let refusals = client.refusals
        if refusals.total != refusalsSeen, let text = refusals.last {
            refusalsSeen = refusals.total
            lastError.withLock { $0 = ("mqtt: " + text, MonotonicClock.realtimeNanos()) }
        }
        var error = lastError.withLock { $0 }
        if error == nil, let e = o.lastError { error = (e, MonotonicClock.realtimeNanos()) }
        let storage = storageProblems()
        if storage != storageProblemsSeen {
            if !storage.isEmpty { log.warning("a store cannot write; health is degraded", ["problems": storage.joined(separator: "; ")]) }
            else if !storageProblemsSeen.isEmpty { log.notice("every store writes again") }
            storageProblemsSeen = storage
        }
        let input = activity?.inputProblem
        noteActivityInput(input)
        let payload = StatsPayload.health(sourceFailing: source.failing, sourceError: source.error, connected: client.isConnected,
                                          lastError: error?.text, lastErrorNanos: error?.nanos, outbox: o,
                                          reconnects: reconnectsBase + client.statistics.reconnects,
                                          broker: client.options.address.description, failovers: failover.failovers,
                                          reloadRejected: rejectedReload.withLock { $0 },
                                          storageProblems: storage,
                                          activityInput: activity == nil ? nil : (input.map { ("\($0.code)", $0.message) } ?? ("ok", nil)),
                                          activityModel: activity?.modelName)
        if direct {
            _ = try? client.publish(topic: topics.health, payload: payload, qos: 1, retain: true)
        } else {
            outbox.enqueueState(topic: topics.health, payload: payload, qos: 1, retain: true)
        }
    }

    /// The kind of problem the activity detector has with its input, `nil` when none (or off).
    func activityInputCode() -> String? {
        activity?.inputProblem.map { "\($0.code)" }
    }

    /// Logs an activity-input problem once when it appears (again at most every
    /// `activityInputLogInterval` while it lasts) and once when it clears.
    func noteActivityInput(_ problem: ActivityInputProblem?) {
        let code = problem.map { "\($0.code)" }
        let now = MonotonicClock.nowNanos()
        if let problem {
            if code != activityInputSeen || now &- activityInputLoggedAt >= Self.activityInputLogInterval {
                log.warning("activity detection withheld: \(problem.message)", ["problem": "\(problem.code)"])
                activityInputLoggedAt = now
            }
        } else if activityInputSeen != nil {
            log.notice("activity input usable again; decisions resume")
        }
        activityInputSeen = code
    }

    /// Every store that cannot write right now, with its reason: the spool, the activity history
    /// (writes kept in memory for retry) and the recorder (paused).
    func storageProblems() -> [String] {
        var out: [String] = []
        if let p = outbox.statistics.spoolWriteProblem { out.append(p) }
        if let store = activity?.store, let p = store.writeProblem {
            out.append("activity history: \(store.pendingWrites) write(s) kept in memory for retry: \(p)")
        }
        if let r = recorder, let e = r.status.error { out.append("recorder paused: \(e)") }
        return out
    }

    func statusLine() -> String {
        guard let s = currentStatistics else { return "starting: waiting for the broker" }
        let o = outbox.statistics
        return "samples=\(s.samplesProcessed) mqtt=\(client.isConnected ? "connected" : "disconnected") "
            + "published=\(o.acknowledged) dropped=\(o.dropped.values.reduce(0, +)) outbox_bytes=\(o.queuedBytes) "
            + "events_unacked=\(o.unacknowledgedEvents)"
    }

    func availableFrames(_ sensors: IMUSample.Contents, _ c: AgentConfiguration) -> [AttitudeReferenceFrame] {
        guard sensors.contains(.magnetometer) else { return [.xArbitraryZVertical] }
        var frames: [AttitudeReferenceFrame] = [.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical]
        if c.fusion.latitude != nil && c.fusion.longitude != nil { frames.append(.xTrueNorthZVertical) }
        return frames
    }

    func logEffectiveRates(_ report: PipelineStartReport, _ c: AgentConfiguration) {
        let requested = c.source.rate
        let actual = report.sourceConfiguration.rate
        if abs(requested - actual) > 1e-6 {
            log.notice("source runs at a different rate than requested", ["requested_hz": "\(requested)", "rate_hz": "\(actual)"])
        }
        for stream in SensorStream.allCases {
            guard let s = report.streams[stream], s.enabled else { continue }
            if s.capped {
                log.notice("stream rate capped to what the source can do",
                           ["stream": stream.rawValue, "requested_hz": "\(c.streams.settings(for: stream).rate)",
                            "rate_hz": "\(s.rate)"])
            }
        }
    }
}
