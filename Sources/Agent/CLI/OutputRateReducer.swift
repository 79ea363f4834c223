import MotionCore
import Sensors

/// Reduces a recording's rows to a lower output data rate, the way a sensor set to that rate
/// delivers them (`edgemotion classify` / `steps --input … --rate HZ [--average]`).
///
/// - `every`: no `--rate`, every row as it is;
/// - `plain`: keeps each row that is at least 1/HZ s after the last one kept (a low-power mode that
///   samples without an anti-alias filter: a short impact is caught whole, in part or not at all);
/// - `averaged`: one row per 1/HZ s interval, the mean of the rows in it, stamped at the interval's
///   centre (a mode that averages its internal samples, as most chips' low-pass/averaging stages
///   do). The gyroscope is averaged when every row of the interval has one; the label is the last
///   row's.
///
/// Value type; `rate` in Hz.
struct OutputRateReducer {
    enum Mode { case every, plain, averaged }

    let rate: Double
    let mode: Mode
    /// 1/`rate`, s (`plain`'s spacing and `averaged`'s interval).
    private let interval: Double
    private var nextKept = -Double.infinity
    private var origin = Double.nan
    private var bin = 0
    private var count = 0
    private var gyroCount = 0
    private var sumForce = Vector3.zero
    private var sumRate = Vector3.zero
    private var last: RecordingRow?

    /// Highest `--rate` accepted, Hz (with the reader's ±1e10 s times every interval number fits).
    static let highestRate = 100_000.0

    /// A `--rate HZ` value: finite, above 0, at most `highestRate`; `nil` otherwise (1e300 used to
    /// trap numbering the intervals of `--average`).
    static func rate(_ text: String) -> Double? {
        guard let hz = Double(text), hz > 0, hz <= highestRate else { return nil }
        return hz
    }

    /// The refusal of a `--rate` value `text` the way `command` (e.g. `classify`) prints it.
    static func rateProblem(command: String, text: String) -> String {
        "edgemotion \(command): --rate \(text): expected a rate in Hz above 0, at most \(Int(highestRate))"
    }

    /// `rate` in Hz, 0 < rate ≤ `highestRate`, or `nil`: every row.
    init(rate: Double?, averaging: Bool) {
        guard let rate else {
            self.rate = .infinity
            interval = 0
            mode = .every
            return
        }
        precondition(rate > 0 && rate <= Self.highestRate, "OutputRateReducer rate \(rate) Hz: use 0 < rate ≤ \(Self.highestRate)")
        self.rate = rate
        interval = 1 / rate
        mode = averaging ? .averaged : .plain
    }

    /// Adds one row in time order; hands every row of the reduced stream to `emit`.
    mutating func add(_ row: RecordingRow, emit: (RecordingRow) -> Void) {
        switch mode {
        case .every:
            emit(row)
        case .plain:
            // 1e-6 s slack: a source at exactly HZ keeps every sample despite rounding.
            guard row.time >= nextKept - 1e-6 else { return }
            nextKept += interval
            if nextKept <= row.time { nextKept = row.time + interval }
            emit(row)
        case .averaged:
            if origin.isNaN { origin = row.time }
            let k = Int(((row.time - origin) * rate).rounded(.down))
            if k != bin { finish(emit: emit) }
            bin = k
            count += 1
            sumForce += row.specificForce
            if let w = row.rotationRate {
                gyroCount += 1
                sumRate += w
            }
            last = row
        }
    }

    /// Emits the interval in progress (`averaged`; call once after the last row).
    mutating func finish(emit: (RecordingRow) -> Void) {
        guard mode == .averaged, count > 0, var row = last else { return }
        let n = Double(count)
        row.time = origin + (Double(bin) + 0.5) / rate
        row.specificForce = sumForce / n
        row.rotationRate = gyroCount == count ? sumRate / n : nil
        row.magneticField = nil
        row.truth = nil
        emit(row)
        count = 0
        gyroCount = 0
        sumForce = .zero
        sumRate = .zero
        last = nil
    }
}
