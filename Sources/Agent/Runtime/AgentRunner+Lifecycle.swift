import EdgeMotion
import Logging
import Messaging
import MotionCore
import Sensors

extension AgentRunner {
    // MARK: Parts, their start order and their stop order (the one place both are written)
    //
    // `agentParts`, started in this order and stopped in reverse:
    //   1. broker connection  start: wire the MQTT client (callbacks, subscriptions, outbox) and connect
    //                         stop: retained `offline`, disconnect (waits for the PUBACKs, budget share 1.0)
    //   2. health reporter    (`HealthReporter`) periodic `stats`/`health` while started;
    //                         stop: the last `stats` and `health` directly at QoS 1 (before `offline`)
    //   3. outbox             stop: deliver what it holds (0.6), then stop its pump (0.7)
    //   4. dashboard          start: the HTTP server when `http.enabled`; stop: close it
    //   5. pipeline           the group below
    //   6. command handler    (`CommandHandler`) `cmd/*` performed by the main loop while started;
    //                         stopped first, so no command acts on a stopping agent
    // `pipelineParts` (stopped and started again alone by a reload that restarts the pipeline):
    //   1. motion service     the source and the pipeline, delivery held; stop: stop, fold the counters into `continuity`
    //   2. activity           activity detection, pedometer (`activity.enabled`)
    //   3. motion events      (`events.enabled`)
    //   4. latest snapshots   `latest/<stream>`, `query/latest`
    //   5. movement advisor   "device requires movement"
    //   6. delivery           the publishers' mode, the dashboard's feed, then samples flow

    /// The client leaves: retained `offline` (QoS 1), then `disconnect`, which waits up to
    /// `timeout` for the acknowledgements of what was published directly.
    func retireClient(timeout: Duration) {
        _ = try? client.publish(topic: topics.status, string: "offline", qos: 1, retain: true)
        client.disconnect(timeout: timeout)
    }

    /// The pipeline's counters with the earlier pipelines' (reloads); nil before the first one started.
    var currentStatistics: PipelineStatistics? {
        guard let p = pipeline else { return continuity.retiredTotals }
        return continuity.totals(p.statistics)
    }

    /// Tells the log (debug) and `partObserver` of a part started, stopped or failed.
    func partEvent(_ e: PartEvent) {
        log.debug("part \(e.kind.rawValue)", ["part": e.part])
        partObserver?(e)
    }

    /// The broker connection: `client` wired and connecting. Its stop says `offline` and disconnects.
    func brokerConnectionPart() -> ClosurePart {
        ClosurePart("broker connection", start: { [unowned self] in
            try install(client)
        }, stop: { [unowned self] budget in
            retireClient(timeout: budget.remaining(1.0))
        })
    }

    /// The `health reporter` part's stop: the last `stats` and `health`, published directly (QoS 1)
    /// so `disconnect` waits for their PUBACKs; only once a pipeline ran.
    func publishFinalReport() {
        guard let stats = currentStatistics else { return }
        _ = try? client.publish(topic: topics.stats, payload: statsPayload(stats), qos: 1, retain: false)
        publishHealth(direct: true)
    }

    /// The outbox (its pump runs from its creation; the broker connection attaches it). Its stop
    /// delivers what it holds, keeps unacknowledged events in the spool and stops the pump.
    func outboxPart() -> ClosurePart {
        ClosurePart("outbox", stop: { [unowned self] budget in
            if !outbox.drain(timeout: budget.remaining(0.6)) {
                let o = outbox.statistics
                log.warning("stop deadline: not everything was delivered",
                            ["unacknowledged_events_kept_in_spool": "\(o.unacknowledgedEvents)", "queued_stream_messages": "\(o.queuedStreamMessages)"])
            }
            outbox.stop(timeout: budget.remaining(0.7))
        })
    }

    func dashboardPart() -> ClosurePart {
        ClosurePart("dashboard", start: { [unowned self] in
            startDashboard(configuration)
        }, stop: { [unowned self] _ in
            dashboard?.stop()
        })
    }

    /// The pipeline's parts over `source` for configuration `c`, in start order.
    func makePipelineParts(source: any IMUSource, configuration c: AgentConfiguration) -> [any AgentPart] {
        [
            ClosurePart("motion service", start: { [unowned self] in
                try startMotionService(source: source, configuration: c)
            }, stop: { [unowned self] _ in
                // `pipeline` stays for the counters; the next start folds it into `continuity`.
                service?.stop()
            }),
            ClosurePart("activity", start: { [unowned self] in
                if let r = report { startActivity(c, report: r) }
            }, stop: { [unowned self] _ in
                activity?.stop()
                activity = nil
            }),
            ClosurePart("motion events", start: { [unowned self] in
                if let r = report { startMotionEvents(c, report: r) }
                // The history queries answer from the activity store started just before.
                attachHistoryQueries(to: client, subscribe: false)
            }, stop: { [unowned self] _ in
                motionEvents?.stop()
                motionEvents = nil
            }),
            ClosurePart("latest snapshots", start: { [unowned self] in
                guard let svc = service else { return }
                latestSnapshots.withLock { $0 = LatestSnapshots(service: svc, topics: topics) }
            }, stop: { [unowned self] _ in
                latestSnapshots.withLock { $0?.stop(); $0 = nil }
            }),
            ClosurePart("movement advisor", start: { [unowned self] in
                guard let svc = service else { return }
                movementAdvisor = MovementAdvisor(service: svc, frame: c.fusion.referenceFrame, outbox: outbox, topics: topics, sequence: statusEvents)
                movementAdvisor?.start()
            }, stop: { [unowned self] _ in
                movementAdvisor?.stop()
                movementAdvisor = nil
            }),
            ClosurePart("delivery", start: { [unowned self] in
                beginDelivery(configuration: c)
            }),
        ]
    }
}
