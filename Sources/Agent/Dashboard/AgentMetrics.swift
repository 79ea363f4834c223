import Dashboard
import EdgeMotion
import Messaging
import MotionCore

#if canImport(Glibc)
import Glibc
#endif

/// `/metrics`: the agent's counters in Prometheus' text format (docs/dashboard.md lists them).
///
/// Conventions: counters end in `_total`, sizes are bytes, times seconds; labels only with a
/// handful of fixed values (`topic` relative to the prefix, `reason`, `state`, `activity`), so a
/// fleet's series count does not grow with time or traffic. The device is Prometheus' `instance`.
enum AgentMetrics {
    static func text(_ s: AgentStatusSnapshot, motion: DeviceMotion?, activity: MotionActivity?, pedometer: PedometerData?,
                     hub: EventHub.Statistics, http: (served: Int, rejected: Int)) -> String {
        var m = PrometheusText()
        m.single("edgemotion_build_info", .info, "Build of the agent (always 1).", 1,
                 [("version", CommandLineTool.version), ("device_id", s.deviceID), ("source", s.sourceName)])
        let p = s.pipeline
        m.single("edgemotion_samples_acquired_total", .counter, "Samples read from the source.", Double(p?.samplesAcquired ?? 0))
        m.single("edgemotion_samples_processed_total", .counter, "Samples run through fusion.", Double(p?.samplesProcessed ?? 0))
        m.single("edgemotion_ring_drops_total", .counter, "Samples refused by the full ring (processing fell behind).", Double(p?.ringDrops ?? 0))
        m.single("edgemotion_source_gaps_total", .counter, "Samples the source lost before the agent (sequence gaps).", Double(p?.sourceGaps ?? 0))
        m.single("edgemotion_source_errors_total", .counter, "Source read or start failures.", Double(p?.sourceErrors ?? 0))
        m.single("edgemotion_source_retries_total", .counter, "Attempts to re-open a failed source.", Double(p?.sourceRetries ?? 0))
        m.single("edgemotion_source_rate_hertz", .gauge, "The source's configured sample rate.", s.sourceRate)
        m.single("edgemotion_sample_rate_hertz", .gauge, "Samples processed per second, measured over about a second.", s.achievedRate)
        m.single("edgemotion_ring_max_depth_samples", .gauge, "Deepest the sample ring has been.", Double(p?.maximumRingDepth ?? 0))

        let topics = s.outbox.topics.sorted { $0.key < $1.key }
        func label(_ topic: String) -> String {
            TopicLayout.relative(topic, toPrefix: s.topicPrefix)
        }
        m.family("edgemotion_messages_produced_total", .counter, "Messages queued for the broker, per topic.")
        for (t, c) in topics { m.sample("edgemotion_messages_produced_total", [("topic", label(t))], c.produced) }
        m.family("edgemotion_messages_published_total", .counter, "Messages delivered: QoS 0 written, QoS 1 acknowledged, per topic.")
        for (t, c) in topics { m.sample("edgemotion_messages_published_total", [("topic", label(t))], c.acknowledged) }
        m.family("edgemotion_messages_dropped_total", .counter, "Messages lost, per topic and reason (full, expired, refused, connection_lost, shutdown).")
        for (t, c) in topics {
            for reason in OutboxDropReason.allCases {
                m.sample("edgemotion_messages_dropped_total", [("topic", label(t)), ("reason", reason.rawValue)], c.dropped[reason] ?? 0)
            }
        }
        let o = s.outbox
        m.single("edgemotion_outbox_queued_bytes", .gauge, "Bytes of stream messages waiting in the outbox.", Double(o.queuedBytes))
        m.single("edgemotion_outbox_queued_messages", .gauge, "Stream messages waiting in the outbox.", Double(o.queuedStreamMessages))
        m.single("edgemotion_outbox_inflight_messages", .gauge, "QoS 1 messages sent and not yet acknowledged.", Double(o.inflight))
        m.single("edgemotion_outbox_retransmitted_total", .counter, "QoS 1 messages sent again after a reconnection.", Double(o.retransmitted))
        m.single("edgemotion_spool_records", .gauge, "Events kept in the spool until the broker acknowledges them.", Double(o.unacknowledgedEvents))
        m.single("edgemotion_spool_bytes", .gauge, "Size of the spool file.", Double(o.spoolFileBytes))
        m.single("edgemotion_spool_corrupt_records_total", .counter, "Spool records skipped because their CRC failed.", Double(o.spoolCorruptRecords))
        m.single("edgemotion_spool_write_failures_total", .counter, "Spool writes that failed.", Double(o.spoolWriteFailures))

        m.single("edgemotion_mqtt_connected", .gauge, "1 while connected to the broker.", s.connected ? 1 : 0)
        m.single("edgemotion_mqtt_reconnects_total", .counter, "Connections to the broker after the first.", Double(s.reconnects))
        m.single("edgemotion_mqtt_failovers_total", .counter, "Moves to the next configured broker.", Double(s.failovers))

        m.single("edgemotion_fusion_rest", .gauge, "1 while the filter detects rest (gyro bias is learnt).", motion?.restDetected == true ? 1 : 0)
        m.single("edgemotion_fusion_magnetic_disturbance", .gauge, "1 while the magnetometer is rejected as disturbed.",
                 motion?.magneticDisturbance == true ? 1 : 0)
        m.family("edgemotion_activity", .stateset, "Current activity: 1 for the primary class, 0 for the others.")
        for c in ActivityClass.allCases {
            m.sample("edgemotion_activity", [("activity", c.name)], activity.map { $0.primary == c ? 1 : 0 } ?? 0)
        }
        m.single("edgemotion_activity_confidence", .gauge, "Confidence of the current activity: 0 low, 1 medium, 2 high.",
                 Double(activity?.confidence.rawValue ?? 0))
        m.single("edgemotion_steps_total", .counter, "Steps counted since the agent started.", Double(pedometer?.numberOfSteps ?? 0))
        m.single("edgemotion_distance_meters_total", .counter, "Distance walked since the agent started (stride model).", pedometer?.distance ?? 0)
        m.single("edgemotion_cadence_steps_per_second", .gauge, "Current step cadence.", pedometer?.currentCadence ?? 0)

        m.single("edgemotion_dashboard_pages", .gauge, "Live pages connected now.", Double(hub.clients))
        m.single("edgemotion_dashboard_events_dropped_total", .counter, "Live updates a slow page lost (its queue was full).", Double(hub.dropped))
        m.single("edgemotion_dashboard_pages_refused_total", .counter, "Live pages refused (http.max_clients).", Double(hub.refused))
        m.single("edgemotion_http_requests_total", .counter, "HTTP requests received.", Double(http.served))
        m.single("edgemotion_http_requests_rejected_total", .counter, "HTTP requests answered with an error.", Double(http.rejected))

        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6
        m.single("process_cpu_seconds_total", .counter, "User and system CPU time of the agent.", cpu)
        m.single("process_resident_memory_bytes", .gauge, "Resident memory of the agent.", Double(residentBytes()))
        return m.text
    }

    /// Resident set size from `/proc/self/statm` (pages × page size); 0 when unreadable.
    static func residentBytes() -> Int {
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 127) }
        guard n > 0 else { return 0 }
        let fields = String(decoding: buffer[..<n], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
