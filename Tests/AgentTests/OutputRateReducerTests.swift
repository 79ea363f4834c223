import Testing
@testable import Agent
@testable import Sensors
import MotionCore

/// `classify --rate HZ [--average]`: a recording reduced to a lower output data rate the way a
/// sensor set to that rate delivers it. Truth written by hand from a ramp.
@Suite("Reducing a recording's rate")
struct OutputRateReducerTests {
    /// 100 Hz rows whose x is the row number (0, 1, 2, …), the gyroscope on every row but the 15th.
    static func ramp(_ n: Int) -> [RecordingRow] {
        (0..<n).map { i in
            RecordingRow(time: Double(i) / 100, specificForce: Vector3(Double(i), 0, 9.81),
                         rotationRate: i == 15 ? nil : Vector3(0, 0, Double(i)), magneticField: nil, truth: nil,
                         movement: nil, label: "walking", line: i + 2)
        }
    }

    static func reduce(_ rows: [RecordingRow], rate: Double, mode: OutputRateReducer.Mode) -> [RecordingRow] {
        var reducer = OutputRateReducer(rate: rate, averaging: mode == .averaged)
        var out: [RecordingRow] = []
        for r in rows { reducer.add(r) { out.append($0) } }
        reducer.finish { out.append($0) }
        return out
    }

    @Test func plainDecimationKeepsEveryTenthRowOfA100HzRecordingAt10Hz() {
        let out = Self.reduce(Self.ramp(50), rate: 10, mode: .plain)
        #expect(out.map(\.specificForce.x) == [0, 10, 20, 30, 40])
        #expect(out.map(\.time) == [0, 0.1, 0.2, 0.3, 0.4])
    }

    /// Rows 0–9 average to 4.5 at t = 0.05 s, 10–19 to 14.5 at 0.15 s, …; the interval holding the
    /// row without a gyroscope (15) has none, the others the mean rotation rate.
    @Test func averagingGivesTheMeanOfEachIntervalAtItsCentre() {
        let out = Self.reduce(Self.ramp(50), rate: 10, mode: .averaged)
        #expect(out.map(\.specificForce.x) == [4.5, 14.5, 24.5, 34.5, 44.5])
        #expect(out.map(\.time).enumerated().allSatisfy { abs($0.element - (0.05 + 0.1 * Double($0.offset))) < 1e-12 })
        #expect(out.map(\.rotationRate?.z) == [4.5, nil, 24.5, 34.5, 44.5])
        #expect(out.allSatisfy { $0.label == "walking" && $0.specificForce.z == 9.81 })
    }
}
