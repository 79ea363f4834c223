import Foundation
import Testing
@testable import CoreMotion
import EdgeMotion
import MotionCore

/// Core Motion's constants and error bridging, checked against Apple's published values
/// (CMError.h: `CMErrorNULL = 100` and the codes after it in order; CMAttitude.h: the
/// reference-frame bits 1 << 0 … 1 << 3; CMMagnetometer.h: accuracy −1 … 2).
@Suite("CoreMotion constants and NSError bridging")
struct CoreMotionAPITests {
    @Test func errorCodesAreCoreMotionsRawValues() {
        let codes: [(CMError, UInt32)] = [
            (CMErrorNULL, 100), (CMErrorDeviceRequiresMovement, 101), (CMErrorTrueNorthNotAvailable, 102),
            (CMErrorUnknown, 103), (CMErrorMotionActivityNotAvailable, 104), (CMErrorMotionActivityNotAuthorized, 105),
            (CMErrorMotionActivityNotEntitled, 106), (CMErrorInvalidParameter, 107), (CMErrorInvalidAction, 108),
            (CMErrorNotAvailable, 109), (CMErrorNotEntitled, 110), (CMErrorNotAuthorized, 111), (CMErrorNilData, 112),
            (CMErrorSize, 113),
        ]
        for (error, raw) in codes { #expect(error.rawValue == raw) }
        #expect(CMErrorDomain == "CMErrorDomain")
    }

    @Test("Handler errors are NSErrors in CMErrorDomain with CMError codes")
    func handlerErrorsBridge() {
        let movement = MotionError(.deviceRequiresMovement, detail: "move it").nsError
        #expect(movement.domain == CMErrorDomain && movement.code == 101)
        #expect(movement.localizedDescription == "move it")
        let north = MotionError(.trueNorthNotAvailable).nsError
        #expect(north.domain == CMErrorDomain && north.code == Int(CMErrorTrueNorthNotAvailable.rawValue))
        // EdgeMotion's own source failures become Core Motion codes, with the original kept.
        let start = MotionError(.sourceStartFailed).nsError
        #expect(start.code == 109 && start.userInfo[EdgeMotionErrorCodeKey] as? Int == 200)
    }

    @Test("EdgeMotion's MotionError bridges by itself: `error as NSError` has Core Motion's domain and code")
    func motionErrorAsNSError() {
        let error: any Error = MotionError.deviceRequiresMovement
        let ns = error as NSError
        #expect(ns.domain == "CMErrorDomain" && ns.code == 101)
        let ns2 = (MotionError.trueNorthNotAvailable as any Error) as NSError
        #expect(ns2.code == 102)
    }

    @Test func referenceFrameAndAccuracyRawValues() {
        #expect(CMAttitudeReferenceFrame.xArbitraryZVertical.rawValue == 1)
        #expect(CMAttitudeReferenceFrame.xArbitraryCorrectedZVertical.rawValue == 2)
        #expect(CMAttitudeReferenceFrame.xMagneticNorthZVertical.rawValue == 4)
        #expect(CMAttitudeReferenceFrame.xTrueNorthZVertical.rawValue == 8)
        #expect(CMMagneticFieldCalibrationAccuracy.uncalibrated.rawValue == -1)
        #expect(CMMagneticFieldCalibrationAccuracy.high.rawValue == 2)
        #expect(CMPedometerEventType.resume.rawValue == 1)
        #expect(CMMotionActivityConfidence.high.rawValue == 2)
    }

    @Test("CMAttitude.multiply(byInverseOf:) of a pose by itself is the identity; copy() is independent")
    func attitudeRelative() throws {
        // Flat, x to east in a north frame: yaw −90° (a −90° turn about z), by hand.
        let east = CMAttitude(Attitude(roll: 0, pitch: 0, yaw: -Double.pi / 2))
        let reference = try #require(east.copy() as? CMAttitude)
        #expect(abs(east.yaw + Double.pi / 2) < 1e-9)
        east.multiply(byInverseOf: reference)
        #expect(abs(east.yaw) < 1e-9 && abs(east.quaternion.w) > 1 - 1e-9)
        #expect(abs(reference.yaw + Double.pi / 2) < 1e-9)
    }

    @Test("No source: the resolver finds none and says how to choose one")
    func noSourceResolution() {
        let r = SystemMotion.resolve(environment: ["EDGEMOTION_CONFIG": "/nonexistent.yaml", "EDGEMOTION_LOG_LEVEL": "info"])
        if SystemMotion.probeIIO() == nil {
            #expect(r.service == nil)
            #expect(r.summary.contains("EDGEMOTION_SOURCE"))
        }
    }

    @Test("EDGEMOTION_SOURCE forms", arguments: ["simulator:walking", "simulator:walking:5,stationary", "i2c:1:0x68:mpu6050", "iio:lsm6dsox"])
    func sourceSpecifications(_ spec: String) throws {
        _ = try SystemMotion.makeSource(spec)
    }

    @Test("Bad EDGEMOTION_SOURCE values are refused with what to write", arguments: ["simulator:flying", "i2c:1:68", "serial:/dev/tty", "replay:", ":", ""])
    func badSourceSpecifications(_ spec: String) {
        #expect(throws: (any Error).self) { _ = try SystemMotion.makeSource(spec) }
    }
}

/// `EDGEMOTION_SOURCE` is input from outside: no value may crash or hang the resolver.
@Suite("EDGEMOTION_SOURCE parsing never crashes")
struct SourceSpecificationFuzzTests {
    @Test func randomSpecificationsEitherParseOrThrow() {
        let pieces = ["simulator", "replay", "iio", "i2c", ":", ":", ",", "0x68", "68", "-1", "99999999999999999999", "walking",
                      "stationary", "shielded", "mpu6050", "bmi160", "/nonexistent", "", " ", "0x", "zz", "60", "nan", "∞", "\u{0}"]
        var seed: UInt64 = 0x2545F4914F6CDD1D
        for _ in 0..<3000 {
            var spec = ""
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            for _ in 0..<Int(seed >> 60) + 1 {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                spec += pieces[Int(seed >> 33) % pieces.count]
            }
            _ = try? SystemMotion.makeSource(spec)
        }
    }
}
