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

    @Test func autoKeepsTwoThreadsWhenEverySampleIsItsOwnWakeUp() throws {
        #expect(try thread("source: { type: simulator, rate: 1000, simulator: { burst: 1 } }\n") == .separate)
        #expect(try thread("source: { type: i2c }\n") == .separate)
        #expect(try thread("source: { type: iio }\n") == .separate)
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
