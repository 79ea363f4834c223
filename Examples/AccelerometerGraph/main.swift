// A handler-based accelerometer graph: updates pushed to a handler on the main queue, each axis
// drawn as a text bar (−2 g … +2 g), ten lines a second.
//
//   swift run accelerometer-graph --duration 5 [--scenario running] [--replay FILE]
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EdgeMotion
import ExampleSupport
import Synchronization

let options = ExampleOptions.parse(defaultScenario: "running")
let manager = options.makeManager()

/// One axis as a 41-character bar centred on 0 g, ±2 g full scale.
func bar(_ value: Double) -> String {
    let half = 20
    let k = max(-half, min(half, Int((value / 2 * Double(half)).rounded())))
    var cells = [Character](repeating: " ", count: 2 * half + 1)
    cells[half] = "|"
    if k > 0 { for i in (half + 1)...(half + k) { cells[i] = "#" } }
    if k < 0 { for i in (half + k)...(half - 1) { cells[i] = "#" } }
    return String(cells)
}

let seen = Mutex(0)
manager.accelerometerUpdateInterval = 1.0 / 100
manager.startAccelerometerUpdates(to: .main) { data, error in
    if let error {
        print("accelerometer: \(error)")
        return
    }
    guard let data else { return }
    let n = seen.withLock { count -> Int in
        count += 1
        return count
    }
    guard n % 10 == 0 else { return }   // 100 Hz in, 10 lines/s out
    let a = data.acceleration
    print("x [\(bar(a.x))] y [\(bar(a.y))] z [\(bar(a.z))] \(fixed(a.z, 2))")
}
print("accelerometer at \(1 / manager.accelerometerUpdateInterval) Hz from \(manager.service.capabilities.name)")

DispatchQueue.main.asyncAfter(deadline: .now() + options.duration) {
    manager.stopAccelerometerUpdates()
    print("\(seen.withLock { $0 }) samples")
    exit(0)
}
dispatchMain()
