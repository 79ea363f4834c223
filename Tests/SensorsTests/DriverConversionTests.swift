import Testing
@testable import Sensors
import MotionCore

@Suite("Chip drivers: register maths (host)")
struct DriverConversionTests {
    @Test func bigAndLittleEndianAxesDecodeSigned() {
        let bytes: [UInt8] = [0x40, 0x00, 0xE0, 0x00, 0xFF, 0xFF]
        bytes.withUnsafeBytes { raw in
            #expect(RegisterDecoding.int16(raw, at: 0, bigEndian: true) == 16384)
            #expect(RegisterDecoding.int16(raw, at: 2, bigEndian: true) == -8192)
            #expect(RegisterDecoding.int16(raw, at: 0, bigEndian: false) == 64)
            #expect(RegisterDecoding.int16(raw, at: 4, bigEndian: false) == -1)
            let v = RegisterDecoding.vector(raw, at: 0, bigEndian: true, scale: RegisterDecoding.accelScale(lsbPerG: 16384))
            #expect(abs(v.x - standardGravity) < 1e-12)
            #expect(abs(v.y + standardGravity / 2) < 1e-12)
        }
    }

    @Test func mpu6050DividerAndLowpassFollowTheDataSheet() {
        #expect(MPU6050.sampleRateDivider(for: 100) == (9, 100))
        #expect(MPU6050.sampleRateDivider(for: 1000) == (0, 1000))
        #expect(MPU6050.sampleRateDivider(for: 3) == (255, 1000.0 / 256))
        #expect(MPU6050.sampleRateDivider(for: 150).rate == 1000.0 / 7)
        #expect(MPU6050.lowpass(requested: nil, rate: 100) == (44, 3))     // widest ≤ Nyquist (50 Hz)
        #expect(MPU6050.lowpass(requested: 20, rate: 1000) == (10, 5))
        #expect(MPU6050.lowpass(requested: 1, rate: 100) == (5, 6))
    }

    @Test func rangesRoundUpToWhatTheChipHas() {
        #expect(RegisterDecoding.pickRange(MPU6050.accelRanges, covering: 3).range == 4)
        #expect(RegisterDecoding.pickRange(MPU6050.gyroRanges, covering: 2000).value.lsb == 16.4)
        #expect(RegisterDecoding.pickRange(MPU6050.gyroRanges, covering: 5000).range == 2000)
        #expect(RegisterDecoding.pickRange(BMI160.accelRanges, covering: 8).value.code == 0x08)
        #expect(RegisterDecoding.pickRange(LSM6DSx.accelRanges, covering: 16).value.code == 0b01)
        #expect(abs(RegisterDecoding.gyroScale(lsbPerDPS: 131) * 131 - Double.pi / 180) < 1e-15)
    }

    @Test func bmi160AndLSM6DSxRateCodes() {
        #expect(BMI160.rates.map(\.rate) == [25, 50, 100, 200, 400, 800, 1600])
        #expect(RegisterDecoding.pickRate(BMI160.rates, atLeast: 150).value == 0x09)
        #expect(RegisterDecoding.pickRate(LSM6DSx.rates, atLeast: 100).rate == 104)
        #expect(RegisterDecoding.pickRate(LSM6DSx.rates, atLeast: 5000).rate == 1666)
    }

    @Test func ak8963SensitivityAdjustmentAndTemperature() {
        #expect(AK8963.sensitivity(asa: 128) == 1)
        #expect(AK8963.sensitivity(asa: 176) == 1.1875)
        #expect(abs(MPU6050.temperature(raw: 0) - 36.53) < 1e-12)
        #expect(abs(MPU6050.temperature(raw: -3400) - 26.53) < 1e-12)
    }

    @Test func chipsAreIdentifiedByTheirIdentityRegister() {
        #expect(IMUChipModel.identify(register: 0x75, value: 0x68) == [.mpu6050])
        #expect(IMUChipModel.identify(register: 0x0F, value: 0x6C) == [.lsm6dsox])
        #expect(IMUChipModel.identify(register: 0x00, value: 0xD1) == [.bmi160])
        #expect(IMUChipModel.knownIdentity(0x70, register: 0x75) == "mpu6500")
    }
}
