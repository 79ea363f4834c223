import Foundation
import Testing
import TestSupport

/// Debian's real Prometheus scrapes the real agent on loopback with the shipped
/// `deploy/prometheus/` files, and the query API answers with the agent's counters; every
/// panel of the shipped Grafana dashboard and every alert rule evaluates against them.
@Suite("Prometheus scrapes the agent", .serialized, .ownThread,
       .enabled(if: curlAvailable && prometheusAvailable, "needs curl and Debian's prometheus (/usr/bin/prometheus)"))
struct PrometheusScrapeTests {
    @Test func aRealPrometheusScrapesTheAgentAndTheQueryAPIReturnsItsCounters() throws {
        let (broker, agent, url) = try Web.startAgent(id: "scraped")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        let target = "127.0.0.1:\(Web.port(of: url))"
        let prometheus = try PrometheusServer.start(targets: [target])
        defer { prometheus.stop() }

        let up = try prometheus.waitFor(#"up{job="edgemotion"}"#) { $0.first?.value == 1 }
        #expect(up.count == 1 && up.first?.value == 1, "up: \(up)\nprometheus log:\n\(prometheus.process.log)")
        #expect(up.first?.labels["instance"] == target)
        #expect(up.first?.labels["site"] == "test", "the targets file's labels reach the series")

        let samples = try prometheus.waitFor("edgemotion_samples_processed_total") { ($0.first?.value ?? 0) > 0 }
        #expect((samples.first?.value ?? 0) > 0, "samples_processed_total: \(samples)")

        // The simulator is configured at 200 Hz and paced in real time: the rate Prometheus
        // computes from its own scrapes (over 5 s) is that rate, within scheduling noise.
        let rate = try prometheus.waitFor("rate(edgemotion_samples_processed_total[5s])", timeout: 20) {
            guard let v = $0.first?.value else { return false }
            return v > 150 && v < 250
        }
        let hz = rate.first?.value ?? 0
        #expect(hz > 150 && hz < 250, "rate(samples_processed_total[5s]) = \(hz) Hz for a 200 Hz source")

        let published = try prometheus.waitFor("sum(edgemotion_messages_published_total)") { ($0.first?.value ?? 0) > 0 }
        #expect((published.first?.value ?? 0) > 0, "messages_published_total: \(published)")
        let build = try prometheus.query("edgemotion_build_info").series
        #expect(build.first?.labels["device_id"] == "scraped")
    }

    @Test func everyGrafanaPanelReturnsSeriesAndTheAgentDownAlertFollowsTheAgent() throws {
        let (broker, agent, url) = try Web.startAgent(id: "panels")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        let prometheus = try PrometheusServer.start(targets: ["127.0.0.1:\(Web.port(of: url))"])
        defer { prometheus.stop() }
        _ = try prometheus.waitFor(#"up{job="edgemotion"}"#) { $0.first?.value == 1 }

        // Grafana substitutes its variables before querying; the same substitution here.
        let expressions = try GrafanaDashboard.load().expressions.map(GrafanaDashboard.substituted)
        #expect(expressions.count >= 20)
        var empty = Set(expressions)
        let deadline = Date().addingTimeInterval(40)
        while !empty.isEmpty && Date() < deadline {
            for e in empty {
                let (status, series) = try prometheus.query(e)
                #expect(status == "success", "\(e): \(status)")
                if status != "success" || !series.isEmpty { empty.remove(e) }
            }
            if !empty.isEmpty { usleep(1_000_000) }
        }
        #expect(empty.isEmpty, "panels without data after 40 s of a walking agent: \(empty.sorted())")

        // Every shipped rule loads and evaluates without error against the agent's series.
        let groups = try prometheus.api("rules")["groups"] as? [[String: Any]] ?? []
        let rules = groups.flatMap { $0["rules"] as? [[String: Any]] ?? [] }
        #expect(rules.count == 6, "rules: \(rules.map { $0["name"] ?? "?" })")
        let ruleDeadline = Date().addingTimeInterval(10)
        var health: [String: String] = [:]
        repeat {
            let now = (try prometheus.api("rules")["groups"] as? [[String: Any]] ?? []).flatMap { $0["rules"] as? [[String: Any]] ?? [] }
            health = Dictionary(now.map { ($0["name"] as? String ?? "?", $0["health"] as? String ?? "?") }) { a, _ in a }
            if health.values.allSatisfy({ $0 == "ok" }) { break }
            usleep(500_000)
        } while Date() < ruleDeadline
        #expect(!health.isEmpty && health.values.allSatisfy { $0 == "ok" }, "rule health: \(health)")
        let firing = try prometheus.query(#"ALERTS{alertname="EdgeMotionAgentDown"}"#).series
        #expect(firing.isEmpty, "the agent is up: \(firing)")

        // The agent stops: the next scrapes fail and the agent-down alert goes pending (for: 2m).
        agent.signal()
        agent.waitForExit(timeout: 10)
        let pending = try prometheus.waitFor(#"ALERTS{alertname="EdgeMotionAgentDown"}"#, timeout: 20) { !$0.isEmpty }
        #expect(pending.first?.labels["alertstate"] == "pending", "ALERTS after the agent stopped: \(pending)")
    }

    @Test func promtoolAcceptsTheShippedScrapeConfigAndRules() throws {
        let dir = PrometheusServer.deploy.path
        let (config, configOut) = try Web.run("/usr/bin/promtool", ["check", "config", dir + "/prometheus.yml"])
        #expect(config == 0, "\(configOut)")
        let (rules, rulesOut) = try Web.run("/usr/bin/promtool", ["check", "rules", dir + "/edgemotion-rules.yml"])
        #expect(rules == 0, "\(rulesOut)")
        let targets = try JSONSerialization.jsonObject(with: Data(contentsOf: PrometheusServer.deploy.appendingPathComponent("edgemotion-targets.json")))
        #expect((targets as? [[String: Any]])?.allSatisfy { $0["targets"] is [String] } == true, "file_sd format: [{targets: [...], labels: {...}}]")
    }
}
