// The "butterfly" demo: tilting the device moves a cursor (a butterfly) across a 60×20 field.
// Gravity in the device frame, from device-motion updates, is the cursor's acceleration; it
// bounces softly off the edges. Prints the position five times a second.
//
//   swift run butterfly --duration 5 [--scenario rotation] [--replay FILE]
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import EdgeMotion
import ExampleSupport
import Synchronization
import MotionCore

let options = ExampleOptions.parse(defaultScenario: "rotation")
let manager = options.makeManager()
guard manager.isDeviceMotionAvailable else {
    print("this source cannot compute device motion")
    exit(1)
}

struct Butterfly {
    static let width = 60.0, height = 20.0
    var x = width / 2, y = height / 2
    var vx = 0.0, vy = 0.0
    var lastTimestamp: Double?

    /// Moves with the tilt: gravity's x/y components (g) push the butterfly, cells/s².
    mutating func update(gravity: Acceleration, timestamp: Double) {
        defer { lastTimestamp = timestamp }
        guard let last = lastTimestamp else { return }
        let dt = timestamp - last
        let gain = 60.0
        vx = (vx + gravity.x * gain * dt) * 0.98
        vy = (vy - gravity.y * gain * dt) * 0.98
        x += vx * dt
        y += vy * dt
        if x < 0 { x = 0; vx = -vx * 0.5 }
        if x > Self.width - 1 { x = Self.width - 1; vx = -vx * 0.5 }
        if y < 0 { y = 0; vy = -vy * 0.5 }
        if y > Self.height - 1 { y = Self.height - 1; vy = -vy * 0.5 }
    }
}

let butterfly = Mutex(Butterfly())
let updates = Mutex(0)
manager.deviceMotionUpdateInterval = 1.0 / 60
manager.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: .main) { motion, error in
    if let error { print("device motion: \(error)"); return }
    guard let motion else { return }
    let (n, b) = updates.withLock { count -> (Int, Butterfly) in
        count += 1
        return (count, butterfly.withLock { $0.update(gravity: motion.gravity, timestamp: motion.timestamp); return $0 })
    }
    guard n % 12 == 0 else { return }   // 60 Hz in, 5 lines/s out
    let column = Int(b.x.rounded()), row = Int(b.y.rounded())
    let track = String(repeating: ".", count: column) + "*" + String(repeating: ".", count: Int(Butterfly.width) - 1 - column)
    print("\(track)  x=\(fixed(b.x, 1)) y=\(fixed(b.y, 1))  row \(row)  roll \(fixed(motion.attitude.roll * 180 / .pi, 0))° pitch \(fixed(motion.attitude.pitch * 180 / .pi, 0))°")
}

DispatchQueue.main.asyncAfter(deadline: .now() + options.duration) {
    manager.stopDeviceMotionUpdates()
    let b = butterfly.withLock { $0 }
    print("butterfly ended at x=\(fixed(b.x, 1)) y=\(fixed(b.y, 1)) after \(updates.withLock { $0 }) updates")
    exit(0)
}
dispatchMain()
