#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import EdgeMotion
import MotionCore
import TestSupport

@Suite("ActivityHistoryStore", .serialized, .ownThread)
struct HistoryStoreTests {
    /// A fresh temporary state directory.
    static func tempDirectory() -> String {
        var template = Array("/tmp/edgemotion-history-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return String(cString: p!)
    }

    static func activity(_ i: Int, start: Double) -> MotionActivity {
        MotionActivity(primary: i % 2 == 0 ? .walking : .automotive, stoppedInVehicle: i % 4 == 3,
                       confidence: MotionActivityConfidence(rawValue: i % 3)!, startDate: start, previousDuration: Double(i))
    }

    @Test func storesAndQueriesActivityChangesByRange() throws {
        let store = try ActivityHistoryStore(directory: Self.tempDirectory())
        let t0 = 1_796_000_000.0
        for i in 0..<5 { try store.record(Self.activity(i, start: t0 + Double(i) * 60), utcStart: t0 + Double(i) * 60) }
        let page = try store.activities(from: t0 + 60, to: t0 + 240)
        #expect(page.items.map(\.start) == [t0 + 60, t0 + 120, t0 + 180])
        #expect(page.nextPage == nil)
        let third = page.items[2].activity
        #expect(third.automotive && third.stationary && !third.walking)
        #expect(third.confidence == .low)
        #expect(page.items.map(\.activity.confidence) == [.medium, .high, .low])
        #expect(third.previousDuration == 3)
    }

    @Test func paginatesLargeRanges() throws {
        let store = try ActivityHistoryStore(directory: Self.tempDirectory())
        let t0 = 1_796_000_000.0
        for i in 0..<25 { try store.record(Self.activity(i, start: t0 + Double(i)), utcStart: t0 + Double(i)) }
        var starts: [Double] = []
        var page: Int? = 0
        var pages = 0
        while let p = page {
            let result = try store.activities(from: t0, to: t0 + 100, page: p, pageSize: 10)
            starts += result.items.map(\.start)
            page = result.nextPage
            pages += 1
        }
        #expect(pages == 3)
        #expect(starts == (0..<25).map { t0 + Double($0) })
    }

    @Test func sumsPedometerTotalsOverARange() throws {
        let store = try ActivityHistoryStore(directory: Self.tempDirectory())
        let t0 = 1_796_000_000.0
        for i in 0..<10 {
            try store.record(PedometerRecord(start: t0 + Double(i) * 60, end: t0 + Double(i + 1) * 60, steps: 100 + i, distance: 70))
        }
        let total = try store.pedometerTotals(from: t0 + 120, to: t0 + 300)
        #expect(total.steps == 102 + 103 + 104)
        #expect(total.distance == 210)
        #expect(total.floorsAscended == nil)
    }

    @Test func prunesRowsOlderThanTheRetention() throws {
        let store = try ActivityHistoryStore(directory: Self.tempDirectory(), retention: 7 * 86_400)
        let now = 1_796_000_000.0
        try store.record(Self.activity(0, start: now - 8 * 86_400), utcStart: now - 8 * 86_400)
        try store.record(Self.activity(1, start: now - 6 * 86_400), utcStart: now - 6 * 86_400)
        try store.record(PedometerRecord(start: now - 9 * 86_400, end: now - 8 * 86_400, steps: 5, distance: 3))
        let deleted = try store.prune(now: now)
        #expect(deleted == 2)
        let left = try store.activities(from: 0, to: now)
        #expect(left.items.map(\.start) == [now - 6 * 86_400])
    }

    @Test func rejectsMalformedQueriesNamingTheProblem() throws {
        let store = try ActivityHistoryStore(directory: Self.tempDirectory())
        #expect(throws: HistoryError.self) { _ = try store.activities(from: 10, to: 5) }
        do {
            _ = try store.activities(from: 0, to: 5, page: 0, pageSize: 0)
            Issue.record("page size 0 was accepted")
        } catch {
            #expect(error.kind == .invalidQuery)
            #expect(error.description.contains("page size"))
        }
    }

    @Test func movesACorruptDatabaseAsideAndStartsFresh() throws {
        let dir = Self.tempDirectory()
        let path = dir + "/" + ActivityHistoryStore.fileName
        let garbage = String(repeating: "this is not an SQLite database ", count: 200)
        let f = fopen(path, "w")!
        fputs(garbage, f)
        fclose(f)
        let store = try ActivityHistoryStore(directory: dir)
        let aside = try #require(store.recoveredCorruptFile)
        #expect(aside.hasPrefix(path + ".corrupt-"))
        // The corrupt file is kept, byte for byte.
        var st = stat()
        #expect(stat(aside, &st) == 0 && Int(st.st_size) == garbage.utf8.count)
        try store.record(Self.activity(0, start: 1), utcStart: 1)
        #expect(try store.activities(from: 0, to: 2).items.count == 1)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func reportsAndCountsAFullDiskAndKeepsWorking() throws {
        let store = try ActivityHistoryStore(directory: Self.tempDirectory())
        try store.setMaximumPageCount(8)
        var failures = 0
        for i in 0..<2000 {
            do {
                try store.record(PedometerRecord(start: Double(i), end: Double(i + 1), steps: i, distance: 1))
            } catch {
                #expect(error.kind == .full, "\(error)")
                failures += 1
            }
        }
        #expect(failures > 0)
        #expect(store.diskFullCount == failures)
        // Reads still work, and what was written is intact.
        let page = try store.pedometer(from: 0, to: 5000, pageSize: 10_000)
        #expect(page.items.count == 2000 - failures)
        #expect(try store.integrityCheck() == "ok")
    }

    @Test func survivesSIGKILLMidWrite() throws {
        let dir = Self.tempDirectory()
        // Create the schema first so the child only writes.
        _ = try ActivityHistoryStore(directory: dir)
        let child = fork()
        if child == 0 {
            // Child: write pairs (activity i, pedometer i) in single transactions until killed.
            guard let store = try? ActivityHistoryStore(directory: dir) else { _exit(3) }
            var i = 0
            while true {
                let t = Double(i)
                try? store.record(Self.activity(i, start: t), utcStart: t,
                                  pedometer: PedometerRecord(start: t, end: t + 1, steps: i, distance: Double(i)))
                i += 1
            }
        }
        #expect(child > 0)
        usleep(700_000)
        kill(child, SIGKILL)
        var status: Int32 = 0
        waitpid(child, &status, 0)
        #expect(status & 0x7f == SIGKILL, "child ended by SIGKILL (status \(status))")

        let store = try ActivityHistoryStore(directory: dir)
        #expect(store.recoveredCorruptFile == nil)
        #expect(try store.integrityCheck() == "ok")
        let activities = try store.activities(from: 0, to: 1e12, pageSize: 10_000).items
        let steps = try store.pedometer(from: 0, to: 1e12, pageSize: 10_000).items
        #expect(activities.count > 0, "the child wrote before it was killed")
        // Every transaction wrote both rows or neither, in order, without gaps.
        #expect(activities.count == steps.count)
        #expect(activities.map(\.start) == (0..<activities.count).map(Double.init))
        #expect(steps.map(\.steps) == Array(0..<steps.count))
    }
}
