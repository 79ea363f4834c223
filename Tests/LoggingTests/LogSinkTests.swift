import Foundation
import Testing
@testable import Logging

/// `LogSink.capturing`: the lines the process itself logs, read without redirecting fd 2.
///
/// The threshold is process-wide and other suites change it while these run (CoreMotion's
/// `SystemMotion` sets `warning`), so lines are written through the sink (`LogSink.write` of
/// `Logger.line`), never through `Logger.log`, whose threshold check is not what is tested here.
@Suite("Log sink")
struct LogSinkTests {
    /// A label no other test logs with, so lines other suites write meanwhile are told apart.
    static func label() -> String { "sinktest-\(UInt32.random(in: 0...UInt32.max))" }

    @Test func aCapturedLineIsTheFormattedLineWithoutItsNewline() throws {
        let label = Self.label()
        let (_, lines) = LogSink.capturing {
            LogSink.write(Logger(label: label).line(.error, "a b", ["k": "v", "q": "x\"y"]))
        }
        let mine = lines.filter { $0.contains(" \(label) ") }
        #expect(mine.count == 1)
        let line = try #require(mine.first)
        // The documented format (Logger's doc comment), written out: RFC 3339 UTC with
        // milliseconds, level, label, event quoted (it has a space), k unquoted, q quoted with
        // its quote escaped.
        let pattern = #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z error "# + label + #" event="a b" k=v q="x\\"y"$"#
        #expect(line.range(of: pattern, options: .regularExpression) != nil, "\(line)")
    }

    @Test func linesFromEveryThreadAreCapturedAndNoneAfterTheScope() {
        let label = Self.label()
        let log = Logger(label: label)
        let (_, lines) = LogSink.capturing {
            DispatchQueue.concurrentPerform(iterations: 4) { t in
                for i in 0..<100 { LogSink.write(log.line(.notice, "line", ["thread": "\(t)", "i": "\(i)"])) }
            }
        }
        // 4 threads × 100 lines, each once.
        let mine = lines.filter { $0.contains(" \(label) ") }
        #expect(mine.count == 400)
        #expect(Set(mine.map { $0.split(separator: " ").dropFirst(4).joined(separator: " ") }).count == 400)
        LogSink.write(log.line(.notice, "after the scope", [:]))
        let (_, later) = LogSink.capturing { }
        #expect(!later.contains { $0.contains("after the scope") && $0.contains(label) })
    }

    @Test func overlappingScopesEachGetTheLinesWrittenWhileTheyAreOpen() {
        let label = Self.label()
        let log = Logger(label: label)
        let (inner, outer) = LogSink.capturing { () -> [String] in
            LogSink.write(log.line(.notice, "outer only", [:]))
            let (_, inner) = LogSink.capturing { LogSink.write(log.line(.notice, "both", [:])) }
            return inner
        }
        #expect(inner.filter { $0.contains(label) }.map { $0.hasSuffix("event=both") } == [true])
        #expect(outer.filter { $0.contains(label) }.count == 2)
    }
}
