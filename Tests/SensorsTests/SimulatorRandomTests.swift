import Testing
@testable import Sensors

@Suite("SimulatorRandom")
struct SimulatorRandomTests {
    @Test func normalsHaveUnitVarianceAndZeroMean() {
        var rng = SimulatorRandom(seed: 42)
        let n = 100_000
        var sum = 0.0
        var sumSq = 0.0
        for _ in 0..<n {
            let x = rng.normal()
            sum += x
            sumSq += x * x
        }
        let mean = sum / Double(n)
        #expect(abs(mean) < 0.02)
        #expect(abs(sumSq / Double(n) - mean * mean - 1) < 0.02)
    }

    @Test func seedZeroStillGivesAMixedStream() {
        var rng = SimulatorRandom(seed: 0)
        let values = (0..<8).map { _ in rng.next() }
        #expect(Set(values).count == 8)
        #expect(!values.contains(0))
    }
}
