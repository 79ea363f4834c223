// Seed 5 of issue 15, as written for iOS (UIKit removed): record the accelerometer with
// CMSensorRecorder while counting steps with CMPedometer, then read both back.
// Swift 5 language mode.
import Foundation
import CoreMotion

let recorder = CMSensorRecorder()
let pedometer = CMPedometer()
let start = Date()
let seconds = Double(ProcessInfo.processInfo.environment["SEED_SECONDS"] ?? "") ?? 12

guard CMSensorRecorder.isAccelerometerRecordingAvailable() else {
    print("recording not available")
    exit(2)
}
recorder.recordAccelerometer(forDuration: seconds - 2)

if CMPedometer.isStepCountingAvailable() {
    pedometer.startUpdates(from: start) { data, error in
        if let error = error {
            print("pedometer error \((error as NSError).code)")
            return
        }
        if let data = data {
            print("steps \(data.numberOfSteps.intValue) distance \(data.distance?.doubleValue ?? 0)")
        }
    }
}
if CMPedometer.isPedometerEventTrackingAvailable() {
    pedometer.startEventUpdates { event, error in
        if let event = event { print("pedometer event \(event.type == .pause ? "pause" : "resume") at \(event.date)") }
    }
}

DispatchQueue.main.asyncAfter(deadline: .now() + seconds) {
    pedometer.stopUpdates()
    pedometer.stopEventUpdates()
    if let list = recorder.accelerometerData(from: start, to: Date()) {
        var count = 0
        var first: Date?
        var last: Date?
        var sumX = 0.0, sumY = 0.0, sumZ = 0.0
        for item in list {
            if let data = item as? CMRecordedAccelerometerData {
                count += 1
                if first == nil { first = data.startDate }
                last = data.startDate
                sumX += data.acceleration.x
                sumY += data.acceleration.y
                sumZ += data.acceleration.z
            }
        }
        let span = (last ?? start).timeIntervalSince(first ?? start)
        let rate = span > 0 ? Double(count - 1) / span : 0
        print(String(format: "recorded %d samples at %.1f Hz, mean %.3f %.3f %.3f g", count, rate,
                     sumX / Double(max(count, 1)), sumY / Double(max(count, 1)), sumZ / Double(max(count, 1))))
    } else {
        print("recorded 0 samples")
    }
    pedometer.queryPedometerData(from: start, to: Date()) { data, error in
        if let data = data {
            print("history steps \(data.numberOfSteps)")
        } else {
            print("history error \((error as NSError?)?.code ?? 0)")
        }
        exit(0)
    }
}

RunLoop.main.run()
