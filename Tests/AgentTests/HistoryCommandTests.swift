import Foundation
import Testing
import EdgeMotion
import MotionCore
import TestSupport

/// `edgemotion activity` and `edgemotion steps` over a history written by the real store: the
/// JSON users pipe into jq, the table they read, paging and time forms.
@Suite("History commands", .ownThread)
struct HistoryCommandTests {
    let t0 = 1_764_460_800.0  // 2025-11-30T00:00:00Z

    func makeHistory() throws -> String {
        let dir = NSTemporaryDirectory() + "edgemotion-history-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let store = try ActivityHistoryStore(directory: dir, retention: 400 * 86_400)
        for (i, k) in [ActivityClass.walking, .running, .stationary].enumerated() {
            try store.record(MotionActivity(primary: k, confidence: .high, startDate: t0 + Double(i) * 60, previousDuration: i == 0 ? 0 : 60.25),
                             utcStart: t0 + Double(i) * 60)
        }
        try store.record(PedometerRecord(start: t0, end: t0 + 60, steps: 110, distance: 80))
        try store.record(PedometerRecord(start: t0 + 60, end: t0 + 120, steps: 170, distance: 190.5, floorsAscended: 2))
        return dir
    }

    func run(_ arguments: [String]) throws -> (Int32?, String) {
        let p = try AgentProcess(arguments)
        let status = p.waitForExit(timeout: 30)
        return (status, p.log)
    }

    func object(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    @Test func activityPrintsTheChangesInRangeAsJSONWithRFC3339TimesAndPages() throws {
        let dir = try makeHistory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, out) = try run(["activity", "--from", "2025-11-30T00:00:00Z", "--to", "2025-11-30T00:30:00.5+00:00",
                                     "--state-dir", dir, "--page-size", "2"])
        #expect(status == 0, "\(out)")
        let json = try object(out)
        #expect(json["from"] as? String == "2025-11-30T00:00:00.000Z")
        #expect(json["to"] as? String == "2025-11-30T00:30:00.500Z")
        let items = try #require(json["activities"] as? [[String: Any]])
        #expect(items.count == 2 && json["next_page"] as? Int == 1)
        #expect(items.first?["start_utc"] as? Double == t0 && items.first?["activity"] as? String == "walking")
        #expect(items.last?["running"] as? Bool == true && items.last?["previous_duration_s"] as? Double == 60.25)

        let (_, last) = try run(["activity", "--from", "\(Int(t0))", "--to", "\(Int(t0) + 1800)", "--state-dir", dir,
                                 "--page-size", "2", "--page", "1"])
        let lastPage = try object(last)
        #expect((lastPage["activities"] as? [[String: Any]])?.count == 1)
        #expect(lastPage["next_page"] is NSNull)
    }

    @Test func stepsPrintsTotalsAndIntervalsAsJSONAndAsATable() throws {
        let dir = try makeHistory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, out) = try run(["steps", "--from", "2025-11-30T00:00:00Z", "--to", "2025-11-30T01:00:00Z", "--state-dir", dir])
        #expect(status == 0, "\(out)")
        let json = try object(out)
        let total = try #require(json["total"] as? [String: Any])
        #expect(total["steps"] as? Int == 280 && total["distance_m"] as? Double == 270.5 && total["floors_ascended"] as? Int == 2)
        #expect((json["intervals"] as? [[String: Any]])?.count == 2)

        let (_, table) = try run(["steps", "--from", "2025-11-30T00:00:00Z", "--to", "2025-11-30T01:00:00Z", "--state-dir", dir,
                                  "--format", "table"])
        #expect(table.contains("total: 280 steps, 270.5 m, floors up 2"), "\(table)")
        #expect(table.contains("2025-11-30T00:01:00.000Z") && table.contains("190.5"), "\(table)")
    }

    @Test(arguments: [
        (["activity", "--from", "2025-02-30T00:00:00Z", "--to", "now"], "--from '2025-02-30T00:00:00Z' is not a time"),
        (["activity", "--from", "yesterday", "--to", "now"], "--from 'yesterday' is not a time"),
        (["activity", "--from", "-2h", "--to", "-3h"], "is after --to"),
        (["steps", "--from", "-1h"], "--from and --to are required"),
        (["activity", "--from", "-1h", "--to", "now", "--format", "xml"], "--format xml: use json or table"),
    ])
    func badTimesAndOptionsAreNamed(arguments: [String], message: String) throws {
        let (status, out) = try run(arguments + ["--state-dir", NSTemporaryDirectory()])
        #expect(status == 64)
        #expect(out.contains(message), "\(out)")
    }
}
