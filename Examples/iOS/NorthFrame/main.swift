// Seed 3 of issue 15, as written for iOS (UIKit removed): device motion in a north frame with
// Core Motion's error handling (CMErrorDomain, CMErrorTrueNorthNotAvailable,
// CMErrorDeviceRequiresMovement). Swift 5 language mode. Prints 60 updates at 20 Hz.
import Foundation
import CoreMotion

class CompassController {
    let motionManager = CMMotionManager()
    var updates = 0
    var referenceAttitude: CMAttitude?

    func start() {
        guard motionManager.isDeviceMotionAvailable else {
            print("device motion not available")
            exit(2)
        }
        let frames = CMMotionManager.availableAttitudeReferenceFrames()
        let frame: CMAttitudeReferenceFrame = frames.contains(.xTrueNorthZVertical) ? .xTrueNorthZVertical : .xMagneticNorthZVertical
        motionManager.deviceMotionUpdateInterval = 1.0 / 20.0
        motionManager.showsDeviceMovementDisplay = true
        motionManager.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: OperationQueue.main) { [weak self] (motion, error) in
            guard let self = self else { return }
            if let error = error {
                let nsError = error as NSError
                if nsError.domain == CMErrorDomain {
                    switch nsError.code {
                    case Int(CMErrorTrueNorthNotAvailable.rawValue):
                        print("error: true north not available (code \(nsError.code)), using magnetic north")
                    case Int(CMErrorDeviceRequiresMovement.rawValue):
                        print("error: device requires movement (code \(nsError.code))")
                    default:
                        print("error: Core Motion code \(nsError.code)")
                    }
                } else {
                    print("error: \(nsError.domain) \(nsError.code)")
                }
                return
            }
            guard let motion = motion else { return }
            self.handle(motion, frame: frame)
        }
    }

    func handle(_ motion: CMDeviceMotion, frame: CMAttitudeReferenceFrame) {
        updates += 1
        let attitude = motion.attitude
        let degrees = 180.0 / Double.pi
        print(String(format: "roll %.1f pitch %.1f yaw %.1f heading %.1f gravity %.3f %.3f %.3f",
                     attitude.roll * degrees, attitude.pitch * degrees, attitude.yaw * degrees, motion.heading,
                     motion.gravity.x, motion.gravity.y, motion.gravity.z))
        if referenceAttitude == nil, updates == 40 {
            referenceAttitude = attitude.copy() as? CMAttitude
        }
        if updates == 60 {
            if let reference = referenceAttitude {
                let relative = motion.attitude
                relative.multiply(byInverseOf: reference)
                print(String(format: "relative yaw %.1f", relative.yaw * degrees))
            }
            motionManager.stopDeviceMotionUpdates()
            let used = motionManager.attitudeReferenceFrame
            print("frame after stop: \(used == .xMagneticNorthZVertical ? "xMagneticNorthZVertical" : used == .xTrueNorthZVertical ? "xTrueNorthZVertical" : "other")")
            exit(0)
        }
    }
}

let controller = CompassController()
controller.start()
RunLoop.main.run()
