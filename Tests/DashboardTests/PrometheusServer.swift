import Foundation
import TestSupport

let prometheusAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/prometheus")

/// Debian's real Prometheus server on a free loopback port, configured with the shipped
/// `deploy/prometheus/prometheus.yml` and `edgemotion-rules.yml`, scraping the given targets.
///
/// The only changes to the shipped files: scrape and rule evaluation every second instead of
/// 15 s (a test cannot wait minutes), and `edgemotion-targets.json` naming the test's agents.
/// Storage lives in a temporary directory removed on `stop`.
final class PrometheusServer {
    let port: Int
    let directory: String
    let process: SpawnedProcess
    var url: String { "http://127.0.0.1:\(port)/" }

    static let deploy = Web.packageRoot.appendingPathComponent("deploy/prometheus")

    /// Starts Prometheus on a free loopback port; another one when a parallel test took it first
    /// (`FreePortServer`: Prometheus then exits with "bind: address already in use").
    static func start(targets: [String]) throws -> PrometheusServer {
        try FreePortServer.start { try PrometheusServer(targets: targets, port: $0) }
    }

    private init(targets: [String], port: Int) throws {
        self.port = port
        directory = NSTemporaryDirectory() + "edgemotion-prometheus-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/data", withIntermediateDirectories: true)
        let shipped = try String(contentsOf: Self.deploy.appendingPathComponent("prometheus.yml"), encoding: .utf8)
        let fast = shipped.replacingOccurrences(of: "scrape_interval: 15s", with: "scrape_interval: 1s")
            .replacingOccurrences(of: "evaluation_interval: 15s", with: "evaluation_interval: 1s")
            .replacingOccurrences(of: "scrape_timeout: 5s", with: "scrape_timeout: 1s")
        precondition(fast != shipped, "deploy/prometheus/prometheus.yml no longer sets 15 s intervals")
        try fast.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: Self.deploy.appendingPathComponent("edgemotion-rules.yml").path,
                                         toPath: directory + "/edgemotion-rules.yml")
        let list = targets.map { "\"\($0)\"" }.joined(separator: ", ")
        try "[{\"targets\": [\(list)], \"labels\": {\"site\": \"test\"}}]\n"
            .write(toFile: directory + "/edgemotion-targets.json", atomically: true, encoding: .utf8)
        process = try SpawnedProcess("/usr/bin/prometheus", [
            "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
            "--web.listen-address=127.0.0.1:\(port)", "--log.level=warn",
        ], logPath: directory + "/prometheus.log")
        let deadline = Date().addingTimeInterval(30)
        while (try? Web.status(url + "-/ready")) != 200 {
            guard Date() < deadline, process.isRunning else {
                throw MosquittoBrokerError("prometheus did not become ready on port \(port):\n\(process.log)")
            }
            usleep(200_000)
        }
    }

    func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    /// One instant query through `/api/v1/query`: (status, the result vector).
    func query(_ promQL: String) throws -> (status: String, series: [(labels: [String: String], value: Double)]) {
        let body = try Web.get(url + "api/v1/query", ["-G", "--data-urlencode", "query=\(promQL)"])
        guard let root = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            return ("unparsable: \(body.prefix(300))", [])
        }
        let status = root["status"] as? String ?? "?"
        guard status == "success" else { return ("\(status): \(root["error"] ?? "")", []) }
        let result = ((root["data"] as? [String: Any])?["result"] as? [[String: Any]]) ?? []
        return (status, result.map { r in
            let labels = r["metric"] as? [String: String] ?? [:]
            let value = (r["value"] as? [Any]).flatMap { $0.last as? String }.flatMap(Double.init) ?? .nan
            return (labels, value)
        })
    }

    /// `/api/v1/<path>`'s `data` object.
    func api(_ path: String) throws -> [String: Any] {
        let root = try JSONSerialization.jsonObject(with: Data(try Web.get(url + "api/v1/" + path).utf8)) as? [String: Any]
        return root?["data"] as? [String: Any] ?? [:]
    }

    /// Polls `promQL` until `accept` holds for its result or `timeout` s pass; returns the last result.
    func waitFor(_ promQL: String, timeout: Double = 30,
                 until accept: ([(labels: [String: String], value: Double)]) -> Bool) throws -> [(labels: [String: String], value: Double)] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let r = try query(promQL).series
            if accept(r) || Date() > deadline { return r }
            usleep(500_000)
        }
    }
}
