// An activity logger: prints activity changes and walking pauses/resumes as they happen, then
// queries the last hour of activity history and steps, like an app calling
// CMMotionActivityManager.queryActivityStarting(from:to:to:withHandler:) and
// CMPedometer.queryPedometerData(from:to:withHandler:).
//
// By default the simulator plays a timeline as fast as possible (a few minutes of activity in a
// second; times are the simulated ones); --real-time runs it on the wall clock.
//
//   swift run activity-logger --duration 5 [--scenario walking:120,running:90,stationary:60] [--real-time] [--replay FILE]
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EdgeMotion
import ExampleSupport
import MotionCore
import Sensors

let options = ExampleOptions.parse(defaultScenario: "walking:120,running:90,cycling:120,stationary:60")
let source: any IMUSource
var timeline: TimelineSource?
if let replay = options.replay {
    do {
        source = try ReplaySource(path: replay, speed: options.realTime ? .recorded : .asFastAsPossible)
    } catch {
        fail("\(error)")
    }
} else {
    guard let scenario = SimulationScenario(named: options.scenario) else {
        fail("unknown scenario '\(options.scenario)'; use one of \(SimulationScenario.names.joined(separator: ", ")) or a timeline name:seconds,…")
    }
    if options.realTime {
        source = SimulatedIMU(options: SimulatorOptions(scenario: scenario))
    } else {
        timeline = TimelineSource(scenario: scenario)
        source = timeline!
    }
}
let service = MotionService(source: source, configuration: MotionService.libraryConfiguration(for: source, rate: 50))
let activity = MotionActivityManager(service: service)
let pedometer = PedometerManager(service: service)
guard activity.isActivityAvailable() else { fail("\(source.capabilities.name) cannot detect activity (no accelerometer)") }

print("logging activity from \(source.capabilities.name)")
activity.startActivityUpdates(to: .main) { a in
    guard let a else { return }
    print("\(timeOfDay(a.startDate))  \(a.flagNames.isEmpty ? "-" : a.flagNames) (\(a.confidence.name) confidence)")
}
pedometer.startEventUpdates(to: .main) { event, _ in
    guard let event else { return }
    print("\(timeOfDay(event.date))  walking \(event.kind == .pause ? "paused" : "resumed")")
}

timeline?.open()   // every handler is registered: let the simulated hours flow

/// Queries the last hour (of the device's clock: the newest sample's time) and exits.
func report() {
    activity.stopActivityUpdates()
    pedometer.stopEventUpdates()
    let now = service.activityEngine.latestSampleDate ?? 0
    activity.queryActivityStarting(from: UTCInstant(secondsSince1970: now - 3600), to: UTCInstant(secondsSince1970: now + 1), to: .main) { activities, error in
        if let error { print("query failed: \(error)"); exit(1) }
        print("\nlast hour (\(timeOfDay(now - 3600))–\(timeOfDay(now)) UTC): \(activities?.count ?? 0) activity changes")
        for a in activities ?? [] {
            print("  \(timeOfDay(a.startDate))  \(a.primary.name.padding(10))  after \(Int(a.previousDuration)) s of the previous")
        }
        pedometer.queryPedometerData(from: UTCInstant(secondsSince1970: now - 3600), to: UTCInstant(secondsSince1970: now + 1), to: .main) { data, error in
            if let data { print("  steps \(data.numberOfSteps), distance \(Int(data.distance)) m") }
            if let error { print("  steps: \(error)") }
            exit(0)
        }
    }
}

let started = MonotonicClock.nowNanos()
let timer = DispatchSource.makeTimerSource(queue: .main)
timer.schedule(deadline: .now(), repeating: .milliseconds(100))
timer.setEventHandler {
    let elapsed = Double(MonotonicClock.nowNanos() - started) * 1e-9
    if service.pipeline?.end != nil || elapsed >= options.duration {
        timer.cancel()
        report()
    }
}
timer.resume()
dispatchMain()

extension String {
    fileprivate func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
