// Seed 4 of issue 15, as written for iOS (UIKit removed): live activity updates and the
// activity history of the last hour. Swift 6 language mode.
import Foundation
import CoreMotion

let activityManager = CMMotionActivityManager()

func describe(_ activity: CMMotionActivity) -> String {
    var kinds: [String] = []
    if activity.stationary { kinds.append("stationary") }
    if activity.walking { kinds.append("walking") }
    if activity.running { kinds.append("running") }
    if activity.automotive { kinds.append("automotive") }
    if activity.cycling { kinds.append("cycling") }
    if activity.unknown { kinds.append("unknown") }
    let confidence: String
    switch activity.confidence {
    case .low: confidence = "low"
    case .medium: confidence = "medium"
    case .high: confidence = "high"
    @unknown default: confidence = "?"
    }
    return "\(kinds.isEmpty ? "none" : kinds.joined(separator: ",")) confidence \(confidence) since \(activity.startDate)"
}

guard CMMotionActivityManager.isActivityAvailable() else {
    print("activity not available")
    exit(2)
}

activityManager.startActivityUpdates(to: OperationQueue.main) { activity in
    guard let activity = activity else { return }
    print("activity " + describe(activity))
}

let seconds = Double(ProcessInfo.processInfo.environment["SEED_SECONDS"] ?? "") ?? 12
DispatchQueue.main.asyncAfter(deadline: .now() + seconds) {
    activityManager.stopActivityUpdates()
    let now = Date()
    activityManager.queryActivityStarting(from: now.addingTimeInterval(-3600), to: now, to: OperationQueue.main) { activities, error in
        if let error = error as NSError? {
            print("history error \(error.domain) \(error.code)")
            exit(1)
        }
        let list = activities ?? []
        print("history \(list.count) changes")
        for activity in list {
            print("  history " + describe(activity))
        }
        exit(0)
    }
}

RunLoop.main.run()
