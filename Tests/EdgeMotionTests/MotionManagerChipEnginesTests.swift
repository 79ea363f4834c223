import Testing
import MotionCore
import Sensors
@testable import EdgeMotion

/// `MotionManager.i2c(chipEvents:)`: the source is asked to program exactly the chip engines the
/// event configuration hands to the chip, in the software detectors' own units.
@Suite("MotionManager chip engines")
struct MotionManagerChipEnginesTests {
    static let line = DataReadyLine.Configuration(chip: "gpiochip0", line: "17")

    func settings(_ chipEvents: MotionEventConfiguration?, chip: IMUChipModel = .lsm6dsox) throws -> IMUChipSettings {
        let m = MotionManager.i2c(bus: 1, address: 0x6a, chip: chip, dataReady: Self.line, chipEvents: chipEvents)
        return try #require(m.service.source as? I2CIMUSource).settings
    }

    @Test func theEnginesTheConfigurationHandsToTheChipAreProgrammedInItsUnits() throws {
        var c = MotionEventConfiguration()
        c.chipFreeFall = true
        c.chipTap = true
        c.freeFall.threshold = 0.35
        c.freeFall.minimumDuration = 0.3
        c.tap.threshold = 3
        c.tap.doubleTapMaximumGap = 0.5
        c.tap.maximumDuration = 0.2
        c.tap.quietAfter = 0.04
        let s = try settings(c)
        #expect(s.freeFallInterrupt == FreeFallInterruptSettings(thresholdG: 0.35, duration: 0.3))
        #expect(s.tapInterrupt == TapInterruptSettings(thresholdG: 3, maximumDuration: 0.2, quietAfter: 0.04, doubleTapMaximumGap: 0.5))
        #expect(s.motionInterrupt == nil)                    // chipMotion not asked for
        c.chipMotion = true
        c.anyMotion.accelerationThreshold = 1.0
        #expect(try settings(c).motionInterrupt?.thresholdMS2 == 1.0)
    }

    @Test func chipOrientationHandsTheSixDEngineItsAngle() throws {
        var c = MotionEventConfiguration()
        c.chipOrientation = true
        c.orientation.threshold = 70
        let s = try settings(c)
        #expect(s.orientationInterrupt == OrientationInterruptSettings(thresholdDegrees: 70))
        #expect(s.tapInterrupt == nil && s.freeFallInterrupt == nil && s.motionInterrupt == nil)
        c.chipOrientation = false
        #expect(try settings(c).orientationInterrupt == nil)
    }

    @Test func aBMI160IsHandedItsAnyMotionLowGAndTapEnginesInTheDetectorsUnits() throws {
        var c = MotionEventConfiguration()
        c.chipMotion = true
        c.chipFreeFall = true
        c.chipTap = true
        c.anyMotion.accelerationThreshold = 0.8
        c.anyMotion.motionDuration = 0.05
        c.freeFall.threshold = 0.25
        c.freeFall.minimumDuration = 0.4
        c.tap.threshold = 1.5
        let s = try settings(c, chip: .bmi160)
        #expect(s.motionInterrupt == MotionInterruptSettings(thresholdMS2: 0.8, duration: 0.05))
        #expect(s.freeFallInterrupt == FreeFallInterruptSettings(thresholdG: 0.25, duration: 0.4))
        #expect(s.tapInterrupt?.thresholdG == 1.5)
        #expect(s.dataReadyInterrupt && s.orientationInterrupt == nil)
        // The chip the manager drives takes exactly these engines (the BMI160 has no 6D engine).
        #expect(IMUChipModel.bmi160.chipEngines == [.chipMotion, .chipFreeFall, .chipTap, .chipDoubleTap])
    }

    @Test func withoutChipEventsNothingIsProgrammed() throws {
        let s = try settings(nil)
        #expect(s.motionInterrupt == nil && s.freeFallInterrupt == nil && s.tapInterrupt == nil)
    }
}
