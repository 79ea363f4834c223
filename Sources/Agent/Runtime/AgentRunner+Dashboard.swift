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
    // MARK: Dashboard (http.enabled; Sources/Agent/Dashboard). Settings apply at the next start.

    func startDashboard(_ c: AgentConfiguration) {
        guard c.http.enabled else { return }
        do { dashboard = try AgentDashboard(configuration: c) } catch {
            log.error("the dashboard does not start; the agent runs without it", ["listen": c.http.listen, "error": "\(error)"])
            recordError("http: \(error)")
        }
    }

    func updateDashboard(_ stats: PipelineStatistics) {
        let o = outbox.statistics
        var error = lastError.withLock { $0 }
        if error == nil, let e = o.lastError { error = (e, MonotonicClock.realtimeNanos()) }
        dashboard?.update(AgentStatusSnapshot(
            deviceID: deviceID, topicPrefix: topics.prefix, sourceName: report?.source.name ?? "",
            sourceRate: report?.sourceConfiguration.rate ?? configuration.source.rate, pipeline: stats, outbox: o,
            connected: client.isConnected, broker: client.options.address.description,
            reconnects: reconnectsBase + client.statistics.reconnects, failovers: failover.failovers,
            lastError: error?.text, lastErrorNanos: error?.nanos))
    }
}
