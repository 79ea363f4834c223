import Testing
import EdgeMotion
@testable import Agent

/// `process.pipeline_threads`: which thread runs processing, and what auto picks.
@Suite("Config: pipeline threads")
struct PipelineThreadsConfigTests {
    func thread(_ yaml: String) throws -> ProcessingThread {
        PipelineConfiguration(try ConfigurationLoader.parse(yaml: yaml, fileName: "t.yaml")).processingThread
    }

    @Test func autoUsesOneThreadForTheSimulatorsBurstsAtOneKilohertz() throws {
        // 1 kHz with the default streams: auto burst 10.
        #expect(try thread("source: { type: simulator, rate: 1000 }\n") == .acquisition)
    }

    /// Something holds the samples while processing runs, so a late read loses none: one thread
    /// (measured at one wake-up per sample: ~45 % less CPU and a shorter p99 than two).
    @Test func autoUsesOneThreadWhereSamplesWaitForALateRead() throws {
        #expect(try thread("source: { type: simulator, rate: 1000, simulator: { burst: 1 } }\n") == .acquisition)
        #expect(try thread("source: { type: iio }\n") == .acquisition)
        #expect(try thread("source: { type: iio, iio: { buffer: true, buffer_length: 1 } }\n") == .acquisition)
        #expect(try thread("source: { type: i2c, i2c: { fifo: true, fifo_watermark: 1 } }\n") == .acquisition)
    }

    /// A polled sensor loses the sample a late read misses; a source read as fast as it goes one
    /// sample at a time overlaps reading with processing: two threads.
    @Test func autoKeepsTwoThreadsWhereALateReadLosesASampleOrReadingOverlapsProcessing() throws {
        #expect(try thread("source: { type: i2c }\n") == .separate)
        #expect(try thread("source: { type: iio, iio: { buffer: false, trigger: none } }\n") == .separate)
        #expect(try thread("source: { type: simulator, rate: 1000, simulator: { burst: 1, real_time: false } }\n") == .separate)
        #expect(try thread("source: { type: replay, replay: { file: r.csv } }\n") == .separate)
    }

    @Test func autoUsesOneThreadForAnI2CFIFO() throws {
        #expect(try thread("source: { type: i2c, i2c: { fifo: true, fifo_watermark: 20 } }\n") == .acquisition)
    }

    @Test func autoKeepsTwoThreadsWhileTheRecorderWritesToDisk() throws {
        #expect(try thread("source: { type: simulator, rate: 1000 }\nrecorder: { enabled: true }\n") == .separate)
    }

    @Test func anExplicitSettingWins() throws {
        #expect(try thread("source: { type: simulator, rate: 1000 }\nprocess: { pipeline_threads: 2 }\n") == .separate)
        #expect(try thread("source: { type: i2c }\nprocess: { pipeline_threads: 1 }\n") == .acquisition)
    }

    @Test func otherValuesAreRejectedNamingTheKey() throws {
        let problems = ConfigTestSupport.problems("process:\n  pipeline_threads: 3\n")
        #expect(problems.contains { $0.contains("pipeline_threads") && $0.contains("t.yaml:2") }, "\(problems)")
    }
}
