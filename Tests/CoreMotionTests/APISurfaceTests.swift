import Foundation
import Testing
import CoreMotion
import TestSupport

/// Core Motion as iOS code uses it, written from Apple's Swift interface: this file only has to
/// compile (in Swift 6 language mode; the seed programs cover Swift 5). Each line is a
/// signature real iOS code calls.
@MainActor
final class IOSStyleMotionClient {
    let motion = CMMotionManager()
    let activity = CMMotionActivityManager()
    let pedometer = CMPedometer()
    let recorder = CMSensorRecorder()
    let batched = CMBatchedSensorManager()
    let queue: OperationQueue = {
        let q = OperationQueue()
        q.maxConcurrentOperationCount = 1
        return q
    }()
    var last: CMDeviceMotion?
    var reference: CMAttitude?

    func all() {
        motion.accelerometerUpdateInterval = 1.0 / 60.0
        motion.gyroUpdateInterval = 0.01
        motion.magnetometerUpdateInterval = 0.1
        motion.deviceMotionUpdateInterval = 1.0 / 30.0
        motion.showsDeviceMovementDisplay = true
        _ = motion.isAccelerometerAvailable && motion.isGyroAvailable && motion.isMagnetometerAvailable && motion.isDeviceMotionAvailable
        _ = motion.isAccelerometerActive || motion.isGyroActive || motion.isMagnetometerActive || motion.isDeviceMotionActive
        motion.startAccelerometerUpdates()
        motion.startGyroUpdates()
        motion.startMagnetometerUpdates()
        motion.startDeviceMotionUpdates()
        motion.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
        let x: Double = motion.accelerometerData?.acceleration.x ?? 0
        let r: CMRotationRate? = motion.gyroData?.rotationRate
        let b: CMMagneticField? = motion.magnetometerData?.magneticField
        let q: CMQuaternion? = motion.deviceMotion?.attitude.quaternion
        let m: CMRotationMatrix? = motion.deviceMotion?.attitude.rotationMatrix
        let t: TimeInterval? = motion.deviceMotion?.timestamp
        _ = (x, r, b, q, m?.m11, t)
        motion.startAccelerometerUpdates(to: .main) { data, error in
            if let error = error { print(error.localizedDescription) }
            guard let data = data else { return }
            print(data.acceleration.z, data.timestamp)
        }
        motion.startGyroUpdates(to: queue) { (data: CMGyroData?, error: Error?) in _ = data?.rotationRate.x }
        motion.startMagnetometerUpdates(to: OperationQueue()) { data, _ in _ = data?.magneticField.z }
        motion.startDeviceMotionUpdates(to: .main) { [weak self] motion, error in
            guard let motion = motion, error == nil else { return }
            self?.last = motion
            let field: CMCalibratedMagneticField = motion.magneticField
            if field.accuracy == .high || field.accuracy == .uncalibrated { _ = field.field.x }
            _ = (motion.gravity.z, motion.userAcceleration.x, motion.rotationRate.y, motion.heading, motion.sensorLocation)
            if let reference = self?.reference {
                let attitude = motion.attitude
                attitude.multiply(byInverseOf: reference)
                _ = (attitude.roll, attitude.pitch, attitude.yaw)
            } else {
                self?.reference = motion.attitude.copy() as? CMAttitude
            }
        }
        let handler: CMDeviceMotionHandler = { motion, error in
            if let error = error as NSError?, error.domain == CMErrorDomain,
               error.code == Int(CMErrorTrueNorthNotAvailable.rawValue) || error.code == Int(CMErrorDeviceRequiresMovement.rawValue) {
                return
            }
            _ = motion?.attitude.yaw
        }
        if CMMotionManager.availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical) {
            motion.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: queue, withHandler: handler)
        }
        let frame: CMAttitudeReferenceFrame = motion.attitudeReferenceFrame
        _ = frame == .xArbitraryCorrectedZVertical
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        motion.stopMagnetometerUpdates()
        motion.stopDeviceMotionUpdates()

        let accelerometerHandler: CMAccelerometerHandler = { _, _ in }
        let gyroHandler: CMGyroHandler = { _, _ in }
        let magnetometerHandler: CMMagnetometerHandler = { _, _ in }
        _ = (accelerometerHandler, gyroHandler, magnetometerHandler)

        if CMMotionActivityManager.isActivityAvailable() && CMMotionActivityManager.authorizationStatus() == .authorized {
            activity.startActivityUpdates(to: .main) { activity in
                guard let activity = activity else { return }
                if activity.walking && activity.confidence == .high { print(activity.startDate) }
                _ = (activity.stationary, activity.running, activity.automotive, activity.cycling, activity.unknown, activity.timestamp)
            }
            activity.queryActivityStarting(from: Date(timeIntervalSinceNow: -86_400), to: Date(), to: .main) { activities, error in
                _ = activities?.first?.startDate
                _ = (error as NSError?)?.code
            }
            activity.stopActivityUpdates()
        }

        if CMPedometer.isStepCountingAvailable() && CMPedometer.isDistanceAvailable() && !CMPedometer.isFloorCountingAvailable()
            && CMPedometer.isPaceAvailable() && CMPedometer.isCadenceAvailable() && CMPedometer.isPedometerEventTrackingAvailable()
            && CMPedometer.authorizationStatus() != .denied {
            pedometer.startUpdates(from: Date()) { data, error in
                let steps: Int = data?.numberOfSteps.intValue ?? 0
                let distance: Double = data?.distance?.doubleValue ?? 0
                _ = (steps, distance, data?.floorsAscended, data?.currentPace, data?.currentCadence, data?.averageActivePace,
                     data?.startDate, data?.endDate, data?.floorsDescended, error)
            }
            pedometer.queryPedometerData(from: Date(timeIntervalSinceNow: -3600), to: Date()) { data, error in _ = data?.numberOfSteps }
            pedometer.startEventUpdates { event, error in
                if event?.type == .pause { _ = event?.date }
            }
            pedometer.stopUpdates()
            pedometer.stopEventUpdates()
        }

        if CMSensorRecorder.isAccelerometerRecordingAvailable() && CMSensorRecorder.authorizationStatus() == .authorized {
            recorder.recordAccelerometer(forDuration: 20 * 60)
            if let list = recorder.accelerometerData(from: Date(timeIntervalSinceNow: -600), to: Date()) {
                for item in list {
                    if let data = item as? CMRecordedAccelerometerData { _ = (data.identifier, data.startDate, data.acceleration.x) }
                }
                for case let data as CMRecordedAccelerometerData in list { _ = data.timestamp }
            }
        }

        if CMBatchedSensorManager.isAccelerometerSupported && CMBatchedSensorManager.isDeviceMotionSupported {
            _ = (batched.accelerometerDataFrequency, batched.deviceMotionDataFrequency, batched.isAccelerometerActive, batched.isDeviceMotionActive)
            batched.startAccelerometerUpdates { batch, error in _ = batch.count }
            batched.startDeviceMotionUpdates { batch, error in _ = batch.last?.attitude }
            _ = (batched.accelerometerBatch, batched.deviceMotionBatch)
            batched.stopAccelerometerUpdates()
            batched.stopDeviceMotionUpdates()
        }

        let item: CMLogItem = CMAccelerometerData()
        if let data = item as? CMAccelerometerData { _ = data.acceleration }
        let object: NSObject = CMDeviceMotion.self == CMDeviceMotion.self ? CMGyroData() : CMMagnetometerData()
        _ = object.description
        _ = CMAcceleration(x: 0, y: 0, z: -1)
        _ = CMQuaternion(x: 0, y: 0, z: 0, w: 1)
        _ = CMError(rawValue: 101) == CMErrorDeviceRequiresMovement
        _ = [CMErrorNULL, CMErrorUnknown, CMErrorMotionActivityNotAvailable, CMErrorMotionActivityNotAuthorized,
             CMErrorMotionActivityNotEntitled, CMErrorInvalidParameter, CMErrorInvalidAction, CMErrorNotAvailable,
             CMErrorNotEntitled, CMErrorNotAuthorized, CMErrorNilData, CMErrorSize]
        if CMAltimeter.isRelativeAltitudeAvailable() {
            CMAltimeter().startRelativeAltitudeUpdates(to: .main) { data, error in _ = data?.relativeAltitude.doubleValue }
        }
        _ = CMAltimeter.isAbsoluteAltitudeAvailable()
        CMMotionLogging.isEnabled = true
    }
}

@Suite("CoreMotion API surface as iOS code calls it", .ownThread)
struct APISurfaceTests {
    @Test("The iOS-style client above compiled; its objects are NSObjects as on iOS")
    func compiledAndNSObjects() {
        let item: Any = CMAccelerometerData()
        #expect(item is CMLogItem && item is NSObject)
        #expect((CMRecordedAccelerometerData() as Any) is CMAccelerometerData)
        #expect((CMMotionManager() as Any) is NSObject)
    }
}
