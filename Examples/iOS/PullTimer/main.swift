// Seed 1 of issue 15, as written for iOS (UIKit removed): pull the accelerometer and gyroscope
// with a Timer on the run loop (Apple's "Getting raw accelerometer events" pattern).
// Swift 5 language mode. Prints 20 readings at 10 Hz, then exits.
import Foundation
import CoreMotion

let motion = CMMotionManager()
var timer: Timer?
var readings = 0

func startAccelerometers() {
    // Make sure the accelerometer hardware is available.
    if motion.isAccelerometerAvailable {
        motion.accelerometerUpdateInterval = 1.0 / 50.0  // 50 Hz
        motion.startAccelerometerUpdates()
        if motion.isGyroAvailable {
            motion.gyroUpdateInterval = 1.0 / 50.0
            motion.startGyroUpdates()
        }

        // Configure a timer to fetch the data.
        timer = Timer(fire: Date(), interval: (1.0 / 10.0), repeats: true, block: { (timer) in
            // Get the accelerometer data.
            if let data = motion.accelerometerData {
                let x = data.acceleration.x
                let y = data.acceleration.y
                let z = data.acceleration.z
                print(String(format: "accelerometer x %.3f y %.3f z %.3f g  t %.3f", x, y, z, data.timestamp))
            }
            if let gyro = motion.gyroData {
                print(String(format: "gyro x %.4f y %.4f z %.4f rad/s", gyro.rotationRate.x, gyro.rotationRate.y, gyro.rotationRate.z))
            }
            readings += 1
            if readings == 20 {
                timer.invalidate()
                motion.stopAccelerometerUpdates()
                motion.stopGyroUpdates()
                print("interval \(motion.accelerometerUpdateInterval)")
                exit(0)
            }
        })

        // Add the timer to the current run loop.
        RunLoop.current.add(timer!, forMode: RunLoop.Mode.default)
    } else {
        print("accelerometer not available")
        exit(2)
    }
}

startAccelerometers()
RunLoop.current.run()
