import Foundation
import Testing
import TestSupport

/// `deploy/prometheus/edgemotion-fleet.json`, the Grafana dashboard for a fleet, read as Grafana reads it.
struct GrafanaDashboard {
    static let path = PrometheusServer.deploy.appendingPathComponent("edgemotion-fleet.json")
    let root: [String: Any]

    static func load() throws -> GrafanaDashboard {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: path))
        return GrafanaDashboard(root: try #require(object as? [String: Any], "the dashboard is a JSON object"))
    }

    var panels: [[String: Any]] { root["panels"] as? [[String: Any]] ?? [] }
    /// Every PromQL expression of every panel, and of the variables' queries.
    var expressions: [String] {
        panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
    }

    /// What Grafana sends for `expr` with the board variable at "All" and a 30 s range.
    static func substituted(_ expr: String) -> String {
        expr.replacingOccurrences(of: "$instance", with: ".+").replacingOccurrences(of: "$__rate_interval", with: "5s")
            .replacingOccurrences(of: "$__range", with: "30s")
    }

    /// The metric names an expression reads (`edgemotion_…`, `process_…`, `up`).
    static func metricNames(_ expr: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: #"\b(edgemotion_[a-z_]+|process_[a-z_]+|up)\b(?=\s*[{\[)])"#)
        let range = NSRange(expr.startIndex..., in: expr)
        return Set(regex.matches(in: expr, range: range).map { String(expr[Range($0.range(at: 1), in: expr)!]) })
    }

    /// The labels named in `by (…)` clauses.
    static func groupingLabels(_ expr: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: #"by \(([a-z_, ]+)\)"#)
        let range = NSRange(expr.startIndex..., in: expr)
        return Set(regex.matches(in: expr, range: range).flatMap {
            expr[Range($0.range(at: 1), in: expr)!].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        })
    }
}

@Suite("Grafana fleet dashboard", .serialized, .enabled(if: curlAvailable, "curl is not installed"), .ownThread)
struct GrafanaDashboardTests {
    @Test func theDashboardIsGrafanaJSONWithAPanelPerQuestionAndABoardVariable() throws {
        let d = try GrafanaDashboard.load()
        #expect(d.root["uid"] as? String == "edgemotion-fleet")
        #expect((d.root["schemaVersion"] as? Int ?? 0) >= 36)
        let ids = d.panels.compactMap { $0["id"] as? Int }
        #expect(ids.count == d.panels.count && Set(ids).count == ids.count, "every panel has a unique id")
        for p in d.panels {
            let grid = try #require(p["gridPos"] as? [String: Int], "\(p["title"] ?? "?") has a gridPos")
            #expect((grid["x"] ?? -1) >= 0 && (grid["x"] ?? 0) + (grid["w"] ?? 99) <= 24, "\(p["title"] ?? "?") fits 24 columns")
            if p["type"] as? String != "row" {
                #expect(!(p["targets"] as? [[String: Any]] ?? []).isEmpty, "\(p["title"] ?? "?") queries something")
            }
        }
        let titles = d.panels.compactMap { $0["title"] as? String }
        #expect(titles.contains("Which boards drop samples") && titles.contains("Which boards reconnect"))
        let variables = (d.root["templating"] as? [String: Any])?["list"] as? [[String: Any]] ?? []
        #expect(variables.contains { $0["name"] as? String == "instance" })
        // Every query is scoped to the board variable, so picking boards narrows every panel.
        for e in d.expressions { #expect(e.contains("instance=~\"$instance\""), "\(e)") }
    }

    @Test func everyMetricAndLabelTheDashboardQueriesIsOneTheAgentExports() throws {
        let (broker, agent, url) = try Web.startAgent(id: "grafana")
        defer { agent.signal(); agent.waitForExit(timeout: 10); broker.stop() }
        usleep(1_500_000)
        let metrics = try Web.get(url + "metrics")
        let families = Set(metrics.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map { String($0.split(separator: " ")[2]) })
        #expect(families.count > 30, "/metrics: \(metrics.prefix(300))")
        let d = try GrafanaDashboard.load()
        var used = Set<String>()
        for e in d.expressions {
            let names = GrafanaDashboard.metricNames(e)
            #expect(!names.isEmpty, "no metric found in \(e)")
            for n in names where n != "up" {
                used.insert(n)
                #expect(families.contains(n), "the dashboard queries \(n), which /metrics does not export (\(e))")
            }
            for l in GrafanaDashboard.groupingLabels(e) where l != "instance" && l != "job" {
                #expect(metrics.contains("\(l)=\""), "the dashboard groups by \(l), a label /metrics does not have")
            }
        }
        // The questions of issue 20 are on the board: drops, reconnects, per-topic traffic, CPU.
        for needed in ["edgemotion_ring_drops_total", "edgemotion_source_gaps_total", "edgemotion_mqtt_reconnects_total",
                       "edgemotion_messages_dropped_total", "edgemotion_messages_published_total", "process_cpu_seconds_total"] {
            #expect(used.contains(needed), "no panel shows \(needed)")
        }
    }
}
