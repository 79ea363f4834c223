import Dispatch
import MotionCore
import Synchronization

/// The activity engine's pipeline consumer: runs `ActivityDetector` and the step detector
/// (`MotionCore.Pedometer`) on every accelerometer sample it receives, on the processing
/// thread. Both are allocation-free per sample; only changes (an activity, a pause/resume, a
/// step count at most once a second) go further: to the observers' queues and, through the
/// engine's serial history queue, to the history store.
///
/// Times leave here in UTC seconds (Core Motion's `Date`s), mapped once from the sample clock.
final class ActivitySink: PipelineOutput, @unchecked Sendable {
    private let detector: ActivityDetector
    private var pedometer: MotionCore.Pedometer
    private let observers: ActivityObservers
    private let history: any ActivityHistoryStoring
    private let historyQueue: DispatchQueue
    private let utcOffset: Double
    /// Seconds of sample time between two step-count writes to the history.
    private let flushInterval: Double

    /// Newest activity (UTC `startDate`), newest pedometer totals (UTC dates), newest sample (UTC).
    let latestActivity = LatestValue<MotionActivity>()
    let latestPedometer = LatestValue<PedometerData>()
    let latestSampleUTC = LatestValue<Double>()
    /// Why the detector withholds decisions (`nil`: the input is usable), as of the latest batch.
    let inputProblem = LatestValue<ActivityInputProblem?>()
    /// Whether the latest decision used the detector's low-rate model (`nil` before the first).
    let usedLowRateModel = LatestValue<Bool?>()
    /// Steps and distance already written to the history (written on the history queue only).
    let flushed = LatestValue<PedometerRecord.Totals>()

    private var lastPushTime = -Double.infinity
    private var lastPushedSteps = -1
    /// Whether a walk was in progress (cadence > 0) after the previous batch.
    private var wasWalking = false
    private var lastFlushTime: Double?
    private var flushedSteps = 0
    private var flushedDistance = 0.0

    init(activity: ActivityConfiguration, pedometer: PedometerConfiguration, observers: ActivityObservers,
         history: any ActivityHistoryStoring, historyQueue: DispatchQueue, clock: WallClockMapping, flushInterval: Double = 5) {
        detector = ActivityDetector(configuration: activity)
        self.pedometer = MotionCore.Pedometer(configuration: pedometer)
        // Steps count only while the detector sees walking or running (gestures are not steps).
        self.pedometer.startGating()
        self.observers = observers
        self.history = history
        self.historyQueue = historyQueue
        utcOffset = Double(clock.offsetNanos) * 1e-9
        self.flushInterval = flushInterval
        flushed.store(PedometerRecord.Totals(steps: 0, distance: 0, utcEnd: 0))
    }

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        guard stream == .accelerometer, samples.count > 0 else { return }
        for i in samples.indices {
            let s = samples[i]
            if var changed = detector.update(s) {
                changed.startDate += utcOffset
                let change = changed
                latestActivity.store(change)
                let history = self.history
                historyQueue.async { try? history.record(change, utcStart: change.startDate) }
                observers.activityChanged(change)
                if var event = pedometer.setGait(for: change) {
                    event.date += utcOffset
                    observers.event(event)
                }
            }
            if var event = pedometer.update(time: s.timestamp, specificForce: s.specificForce) {
                event.date += utcOffset
                observers.event(event)
            }
        }
        let time = samples[samples.count - 1].timestamp
        latestSampleUTC.store(time + utcOffset)
        // Once per batch, not per sample; the detector re-checks its input at every decision hop.
        inputProblem.store(detector.inputProblem)
        usedLowRateModel.store(detector.decisionCount > 0 ? detector.usedLowRateModel : nil)
        var data = pedometer.data
        data.startDate += utcOffset
        data.endDate += utcOffset
        latestPedometer.store(data)
        // A new count at most once a second; the end of a walk (cadence and pace back to 0)
        // at once, even without a new step, so no observer keeps the last walk's cadence.
        let walking = pedometer.isWalking
        let walkEnded = wasWalking && !walking
        wasWalking = walking
        if data.numberOfSteps != lastPushedSteps && time - lastPushTime >= 1 || walkEnded {
            lastPushTime = time
            lastPushedSteps = data.numberOfSteps
            observers.pedometerUpdated(data)
        }
        flushSteps(data, at: time)
    }

    /// Writes the steps counted since the last write as one history interval.
    private func flushSteps(_ data: PedometerData, at time: Double) {
        guard let last = lastFlushTime else {
            lastFlushTime = time
            return
        }
        guard time - last >= flushInterval else { return }
        lastFlushTime = time
        let steps = data.numberOfSteps - flushedSteps
        guard steps > 0 else { return }
        let record = PedometerRecord(start: last + utcOffset, end: time + utcOffset, steps: steps,
                                     distance: data.distance - flushedDistance)
        flushedSteps = data.numberOfSteps
        flushedDistance = data.distance
        // The totals move with the write, on the history queue, so a query (queued there too)
        // sees the history and "what is not in it yet" consistently.
        let totals = PedometerRecord.Totals(steps: flushedSteps, distance: flushedDistance, utcEnd: time + utcOffset)
        let history = self.history, flushed = self.flushed
        historyQueue.async {
            try? history.record(record)
            flushed.store(totals)
        }
    }
}

extension PedometerRecord {
    /// Running totals written so far (for counting what is not yet in the history).
    struct Totals: BitwiseCopyable {
        var steps: Int
        var distance: Double
        var utcEnd: Double
    }
}
