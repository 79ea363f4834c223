import Platform
import Testing
@testable import Agent
import TestSupport

/// A part that writes what happens to it into a shared journal and can be told to refuse its start.
final class JournalPart: AgentPart {
    let name: String
    let journal: Journal
    let refuses: Bool
    init(_ name: String, _ journal: Journal, refuses: Bool = false) {
        self.name = name
        self.journal = journal
        self.refuses = refuses
    }
    struct Refused: Error, CustomStringConvertible { let description = "refused on purpose" }
    func start() throws {
        if refuses { journal.lines.append("refuse " + name); throw Refused() }
        journal.lines.append("start " + name)
    }
    func stop(within budget: StopBudget) { journal.lines.append("stop " + name) }
}

final class Journal { var lines: [String] = [] }

/// The order the agent's parts start and stop in (`PartGroup`): in order, in reverse, and after a
/// failed start the started ones in reverse; the agent's own order is in `AgentLifecycleTests`.
@Suite("Part group", .ownThread)
struct PartGroupTests {
    @Test func partsStartInOrderAndStopInReverse() throws {
        let j = Journal()
        let g = PartGroup("g", parts: ["a", "b", "c"].map { JournalPart($0, j) })
        try g.start()
        #expect(g.isRunning)
        g.stop(within: StopBudget(seconds: 1))
        #expect(j.lines == ["start a", "start b", "start c", "stop c", "stop b", "stop a"])
        #expect(!g.isRunning)
    }

    @Test func aSecondStopStopsNothingAgain() throws {
        let j = Journal()
        let g = PartGroup("g", parts: [JournalPart("a", j)])
        try g.start()
        g.stop(within: StopBudget(seconds: 1))
        g.stop(within: StopBudget(seconds: 1))
        #expect(j.lines == ["start a", "stop a"])
    }

    @Test func aFailedStartStopsTheStartedPartsInReverseAndNamesThePart() {
        let j = Journal()
        var events: [String] = []
        let g = PartGroup("g", parts: [JournalPart("a", j), JournalPart("b", j), JournalPart("c", j, refuses: true), JournalPart("d", j)],
                          observer: { events.append($0.description) })
        do {
            try g.start()
            Issue.record("the start of c throws")
        } catch let failure as PartStartFailure {
            #expect(failure.part == "c")
            #expect(failure.description == "refused on purpose", "the part's own error, as logged")
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(j.lines == ["start a", "start b", "refuse c", "stop b", "stop a"], "d never starts; c, never started, is not stopped")
        #expect(events == ["started a", "started b", "failed c", "stopped b", "stopped a"])
        #expect(!g.isRunning)
    }

    @Test func aGrowingGroupStartsOnlyTheNewPartsAndStopsEverythingInReverse() throws {
        let j = Journal()
        let g = PartGroup("g", parts: [JournalPart("connection", j)])
        try g.start()
        g.append(JournalPart("dashboard", j), JournalPart("pipeline", j))
        try g.start()
        g.stop(within: StopBudget(seconds: 1))
        #expect(j.lines == ["start connection", "start dashboard", "start pipeline", "stop pipeline", "stop dashboard", "stop connection"])
    }

    @Test func aNestedGroupStopsAloneAndRestartsWithNewPartsInItsPlace() throws {
        let j = Journal()
        let inner = PartGroup("pipeline", parts: [JournalPart("service", j), JournalPart("activity", j)])
        let outer = PartGroup("agent", parts: [JournalPart("outbox", j), inner])
        try outer.start()
        // A reload: the inner group alone, stopped in reverse, then built anew and started.
        inner.stop(within: StopBudget(seconds: 1))
        inner.replaceParts([JournalPart("service 2", j), JournalPart("activity 2", j)])
        try inner.start()
        outer.stop(within: StopBudget(seconds: 1))
        #expect(j.lines == ["start outbox", "start service", "start activity",
                            "stop activity", "stop service",
                            "start service 2", "start activity 2",
                            "stop activity 2", "stop service 2", "stop outbox"])
    }

    @Test func aStopBudgetGivesEachShareWhatIsLeftOfItAndNeverLessThan50ms() {
        let now = MonotonicClock.nowNanos()
        // Started 3 s ago with 4 s: until 60 % (2.4 s) nothing is left but the floor; 1 s until 100 %.
        let b = StopBudget(seconds: 4, startNanos: now - 3_000_000_000)
        #expect(b.remaining(0.6) == .milliseconds(50))
        let whole = b.remaining(1.0)
        #expect(whole <= .milliseconds(1000) && whole > .milliseconds(900), "\(whole)")
    }
}
