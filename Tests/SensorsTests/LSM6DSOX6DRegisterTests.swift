import MotionCore
import Sensors
import Testing

/// The LSM6DSOX 6D engine's register codes, worked by hand from ST's lsm6dsox_reg.h field
/// layout (D6D_SRC 0x1D: XL b0, XH b1, YL b2, YH b3, ZL b4, ZH b5, D6D_IA b6, DEN_DRDY b7;
/// TAP_THS_6D 0x59: TAP_THS_Z b4:0, SIXD_THS b6:5 with 80° = 0, 70° = 1, 60° = 2, 50° = 3).
@Suite("LSM6DSOX 6D register codes")
struct LSM6DSOX6DRegisterTests {
    @Test func sixDThresholdCodes() {
        #expect(LSM6DSx.orientationThresholdCode(degrees: 80) == 0)
        #expect(LSM6DSx.orientationThresholdCode(degrees: 70) == 1)
        #expect(LSM6DSx.orientationThresholdCode(degrees: 60) == 2)
        #expect(LSM6DSx.orientationThresholdCode(degrees: 50) == 3)
        #expect(LSM6DSx.orientationThresholdCode(degrees: 65) == nil)
    }

    /// TAP_THS_Z 0x10 (the VM check's tap code) with 60° (code 2 → bits 6:5 = 10): 0b0101_0000
    /// = 0x50; with 50° (11): 0b0111_0000 = 0x70; 80° leaves 0x10; a TAP_THS_Z over 5 bits is cut.
    @Test func tapThreshold6DKeepsTheTapThresholdBeside() {
        #expect(LSM6DSx.tapThreshold6DRegister(tapThresholdZ: 0x10, orientationCode: 2) == 0x50)
        #expect(LSM6DSx.tapThreshold6DRegister(tapThresholdZ: 0x10, orientationCode: 3) == 0x70)
        #expect(LSM6DSx.tapThreshold6DRegister(tapThresholdZ: 0x10, orientationCode: 0) == 0x10)
        #expect(LSM6DSx.tapThreshold6DRegister(tapThresholdZ: 0xFF, orientationCode: 1) == 0x3F)
    }

    /// D6D_IA (0x40) plus one position bit: 0x60 ZH, 0x50 ZL, 0x48 YH, 0x44 YL, 0x42 XH, 0x41 XL;
    /// DEN_DRDY (0x80) changes nothing (0xE0 is still ZH).
    @Test func d6dSourceFaces() {
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x60) == .faceUp)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x50) == .faceDown)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x48) == .portrait)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x44) == .portraitUpsideDown)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x42) == .landscapeLeft)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x41) == .landscapeRight)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0xE0) == .faceUp)
    }

    /// Without D6D_IA no event, whatever the position bits say (0x20 ZH alone, 0x3F, 0x80);
    /// D6D_IA with no or two position bits is an event without a face.
    @Test func noEventWithoutD6DIA() {
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x20) == nil)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x3F) == nil)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x80) == nil)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x00) == nil)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x40) == .unknown)
        #expect(LSM6DSx.decodeOrientation(d6dSource: 0x68) == .unknown)
    }

    @Test func routingAndFilterBits() {
        #expect(LSM6DSx.int1Orientation == 0b0000_0100)   // MD1_CFG bit 2
        #expect(LSM6DSx.lowPassOn6D == 0b0000_0001)       // CTRL8_XL bit 0
        #expect(LSM6DSx.orientationActive == 0b0100_0000) // D6D_SRC bit 6
    }
}
