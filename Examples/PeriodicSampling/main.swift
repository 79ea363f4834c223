// The "periodic sampling" pattern: start accelerometer updates without a handler and read the
// newest value from a 50 Hz timer, like an app polling CMMotionManager.accelerometerData.
//
//   swift run periodic-sampling --duration 5 [--scenario walking] [--replay FILE]
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EdgeMotion
import ExampleSupport
import Synchronization

let options = ExampleOptions.parse()
let manager = options.makeManager()
guard manager.isAccelerometerAvailable else {
    print("this source has no accelerometer")
    exit(1)
}

manager.accelerometerUpdateInterval = 1.0 / 50
manager.startAccelerometerUpdates()
print("source \(manager.service.capabilities.name), accelerometer every \(manager.accelerometerUpdateInterval) s")

let polls = Mutex((count: 0, empty: 0, lastTimestamp: 0.0, fresh: 0))
let timer = DispatchSource.makeTimerSource(queue: .main)
timer.schedule(deadline: .now(), repeating: .milliseconds(20))
timer.setEventHandler {
    let data = manager.accelerometerData   // nil until the first sample
    let line: String? = polls.withLock { p in
        p.count += 1
        guard let data else { p.empty += 1; return nil }
        if data.timestamp != p.lastTimestamp { p.fresh += 1 }
        p.lastTimestamp = data.timestamp
        guard p.count % 25 == 0 else { return nil }   // print twice a second
        let a = data.acceleration
        return "t=\(fixed(data.timestamp, 3)) s  x=\(fixed(a.x, 3)) y=\(fixed(a.y, 3)) z=\(fixed(a.z, 3)) g"
    }
    if let line { print(line) }
}
timer.resume()

DispatchQueue.main.asyncAfter(deadline: .now() + options.duration) {
    timer.cancel()
    manager.stopAccelerometerUpdates()
    let p = polls.withLock { $0 }
    print("polled \(p.count) times: \(p.fresh) new samples, \(p.empty) before the first sample")
    exit(0)
}
dispatchMain()
