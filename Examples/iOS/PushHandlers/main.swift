// Seed 2 of issue 15, as written for iOS (UIKit removed): accelerometer, gyroscope and
// magnetometer pushed to handlers on an OperationQueue. Swift 6 language mode.
import Foundation
import CoreMotion

let manager = CMMotionManager()

guard manager.isAccelerometerAvailable, manager.isGyroAvailable else {
    print("accelerometer or gyroscope not available")
    exit(2)
}

manager.accelerometerUpdateInterval = 0.02
manager.gyroUpdateInterval = 0.02
manager.magnetometerUpdateInterval = 0.1

manager.startAccelerometerUpdates(to: OperationQueue.main) { data, error in
    if let error = error {
        print("accelerometer error: \(error.localizedDescription)")
        return
    }
    guard let data = data else { return }
    let a = data.acceleration
    let norm = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
    print(String(format: "accelerometer x %.3f y %.3f z %.3f |a| %.3f g", a.x, a.y, a.z, norm))
}

manager.startGyroUpdates(to: OperationQueue.main) { data, error in
    guard let rate = data?.rotationRate else { return }
    print(String(format: "gyro x %.4f y %.4f z %.4f rad/s", rate.x, rate.y, rate.z))
}

if manager.isMagnetometerAvailable {
    manager.startMagnetometerUpdates(to: OperationQueue.main) { data, error in
        guard let field = data?.magneticField else { return }
        let norm = (field.x * field.x + field.y * field.y + field.z * field.z).squareRoot()
        print(String(format: "magnetometer |B| %.1f uT", norm))
    }
}

DispatchQueue.main.asyncAfter(deadline: .now() + 2) {
    print("active \(manager.isAccelerometerActive) \(manager.isGyroActive)")
    manager.stopAccelerometerUpdates()
    manager.stopGyroUpdates()
    manager.stopMagnetometerUpdates()
    print("stopped: active \(manager.isAccelerometerActive) \(manager.isGyroActive)")
    exit(0)
}

RunLoop.main.run()
