import Testing
import Glibc
import Platform
@testable import EdgeMotion
import TestSupport

/// `pthread_create` failing at pipeline start is an error the caller can report, not a crash.
@Suite("Pipeline thread start", .ownThread)
struct PipelineThreadStartTests {
    /// Starts real threads except `failing`, which fails as `pthread_create` does when the
    /// process has no threads left (EAGAIN, pthread_create(3)).
    static func starter(failing: String) -> ThreadStarter {
        { name, body throws(ThreadStartError) in
            if name == failing { throw ThreadStartError(thread: name, errno: Errno(EAGAIN)) }
            return try PlatformThread.start(name: name, body)
        }
    }

    @Test(arguments: [(ProcessingThread.separate, "em-acquire"), (.separate, "em-process"), (.acquisition, "em-acquire")])
    func failedThreadCreationThrowsNamingTheThread(on thread: ProcessingThread, failing: String) throws {
        var configuration = PipelineConfiguration(requestedRate: 100)
        configuration.processingThread = thread
        let output = RecordingOutput()
        let pipeline = MotionPipeline(source: ScriptedSource(count: 100, rate: 100), configuration: configuration,
                                      outputs: [output], threadStarter: Self.starter(failing: failing))
        let error = try #require(throws: ThreadStartError.self) { try pipeline.start() }
        #expect(error.thread == failing)
        #expect(error.errno == Errno(EAGAIN))
        // What to do is in the message.
        #expect(error.description.contains(failing) && error.description.contains("ulimit -u"))
        // Not running: no report, and stop() returns (a processing thread already started is joined).
        #expect(pipeline.report == nil)
        pipeline.stop()
    }
}
