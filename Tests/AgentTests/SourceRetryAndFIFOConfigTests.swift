import Foundation
import Testing
import EdgeMotion
@testable import Agent

/// `source.retry_max_s` and `source.i2c.fifo` / `fifo_watermark`: loaded, checked, reaching the pipeline.
@Suite("Config: source retry and I2C FIFO")
struct SourceRetryAndFIFOConfigTests {
    typealias S = ConfigTestSupport

    @Test func theKeysLoadAndReachThePipelineAndTheSource() throws {
        let c = try ConfigurationLoader.parse(yaml: """
        source:
          type: i2c
          retry_max_s: 2.5
          i2c: { chip: mpu9250, fifo: true, fifo_watermark: 25 }
        """, fileName: "t.yaml")
        #expect(c.source.retryMaxSeconds == 2.5)
        #expect(c.source.i2c.fifo)
        #expect(c.source.i2c.fifoWatermark == 25)
        #expect(PipelineConfiguration(c).sourceRetryMaximumSeconds == 2.5)
        let defaults = try ConfigurationLoader.parse(yaml: "source: { type: i2c }\n", fileName: "t.yaml")
        #expect(defaults.source.retryMaxSeconds == 10)
        #expect(!defaults.source.i2c.fifo)
    }

    @Test func outOfRangeValuesAreReportedByKeyAndFIFOIsAcceptedOnEveryChip() {
        let problems = S.problems("""
        source:
          type: i2c
          retry_max_s: 0.1
          i2c: { chip: mpu6050, fifo: true, fifo_watermark: 41 }
        """)
        #expect(problems.contains { $0.contains("source.retry_max_s") && $0.contains("0.5 ≤ retry_max_s ≤ 3600") }, "\(problems)")
        #expect(problems.contains { $0.contains("source.i2c.fifo_watermark") && $0.contains("1 ≤ fifo_watermark ≤ 40") }, "\(problems)")
        for chip in ["bmi160", "lsm6ds3", "lsm6dsox"] {
            let ok = S.problems("source: { type: i2c, i2c: { chip: \(chip), fifo: true, fifo_watermark: 20 } }\n")
            #expect(ok.isEmpty, "\(chip): \(ok)")
        }
    }
}
