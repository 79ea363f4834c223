import Testing
@testable import MotionCore

@Suite("Sensor calibration")
struct CalibrationTests {
    /// Readings of a 48 µT field seen from many orientations through a known soft-iron matrix and
    /// hard-iron offset.
    func distortedReadings(softIron s: Matrix3, offset: Vector3, count: Int = 2000) -> [Vector3] {
        var signals = FusionTestSignals()
        var out: [Vector3] = []
        let field = Vector3(0, 20, -43.6)
        for k in 0..<count {
            // Golden-angle spiral of orientations, plus a turn about the field direction.
            let t = Double(k)
            let q = Quaternion.aboutZ(t * 2.399963) * Quaternion.aboutX((1 - 2 * (t + 0.5) / Double(count)).acos)
                * Quaternion.aboutY(t * 0.7)
            let m = q.inverseRotate(field)
            out.append(s * m + offset + signals.noiseVector(0.05))
        }
        return out
    }

    @Test func ellipsoidFitRecoversHardAndSoftIron() throws {
        let soft = Matrix3(1.10, 0.05, -0.02, 0.05, 0.92, 0.03, -0.02, 0.03, 1.0)
        let offset = Vector3(12.5, -30.2, 7.7)
        var cal = MagnetometerCalibrator()
        for m in distortedReadings(softIron: soft, offset: offset) { cal.add(m) }
        let r = try cal.fit()
        #expect((r.offset - offset).norm < 0.2, "offset \(r.offset)")
        // Corrected readings lie on a sphere: W·S must be a rotation times a scalar.
        let ws = r.softIron * soft
        let product = ws.transposed * ws
        let scale = product.trace / 3
        for (a, b) in [(product.a11, scale), (product.a22, scale), (product.a33, scale), (product.a12, 0.0), (product.a13, 0.0), (product.a23, 0.0)] {
            #expect(abs(a - b) < 0.005 * scale, "WᵀW not isotropic: \(product)")
        }
        #expect(abs(r.fieldStrength - 48 * scale.squareRoot()) < 0.5)
        #expect(r.residual < 0.01)
        #expect(r.coverage >= 0.75)
        #expect(r.verdict == .good)
    }

    @Test func turningAboutOneAxisOnlyGivesPoorCoverage() throws {
        var cal = MagnetometerCalibrator()
        var signals = FusionTestSignals()
        for k in 0..<500 {
            let m = Quaternion.aboutZ(Double(k) * 0.02).inverseRotate(Vector3(0, 20, -43.6)) + signals.noiseVector(0.05)
            cal.add(Quaternion.aboutX(0.3 * (Double(k) * 0.05).sin).inverseRotate(m))
        }
        if let r = try? cal.fit() {
            #expect(r.verdict != .good, "coverage \(r.coverage)")
        }
    }

    @Test func calibrationFileRoundTrips() throws {
        let c = SensorCalibration(gyroBias: Vector3(0.001, -0.002, 0.0005), accelerometerOffset: Vector3(0.1, -0.05, 0.2),
                                  accelerometerScale: Vector3(1.01, 0.99, 1.0), magnetometerOffset: Vector3(12, -3, 40),
                                  magnetometerSoftIron: Matrix3(1.1, 0.05, 0, 0.05, 0.9, 0, 0, 0, 1.0), magnetometerFieldStrength: 48)
        let text = CalibrationFile.encode(c, sensor: "sim@0")
        let back = try CalibrationFile.decode(text, expectedSensor: "sim@0", source: "cal.txt")
        #expect(back == c)
    }

    @Test func corruptedCalibrationFileIsRejectedWithAClearError() {
        let c = SensorCalibration(gyroBias: Vector3(0.001, -0.002, 0.0005), magnetometerOffset: Vector3(12, -3, 40))
        let text = CalibrationFile.encode(c, sensor: "sim@0")
        let tampered = text.replacingFirst("12.0", with: "13.0")
        #expect(tampered != text)
        #expect(throws: CalibrationFileError.self) { try CalibrationFile.decode(tampered, source: "cal.txt") }
        do {
            _ = try CalibrationFile.decode(tampered, source: "cal.txt")
        } catch {
            #expect(error.description.contains("checksum mismatch"))
            #expect(error.description.contains("cal.txt"))
        }
        let truncated = String(text.prefix(text.count / 2))
        #expect(throws: CalibrationFileError.self) { try CalibrationFile.decode(truncated, source: "cal.txt") }
    }

    /// A file with a valid checksum but a value no sensor's calibration has (a hand-made or damaged
    /// file resealed) is refused naming the key, not applied (before the bounds a gyro bias of
    /// 1e300 rad/s was subtracted from every gyroscope reading fusion got).
    @Test(arguments: [
        (SensorCalibration(gyroBias: Vector3(1e300, 0, 0)), "gyro.bias"),
        (SensorCalibration(gyroBias: Vector3(0, 0, -10.5)), "gyro.bias"),
        (SensorCalibration(accelerometerOffset: Vector3(0, 25, 0)), "accel.offset"),
        (SensorCalibration(magnetometerOffset: Vector3(2e4, 0, 0)), "mag.offset"),
        (SensorCalibration(magnetometerSoftIron: Matrix3(1e200, 0, 0, 0, 1, 0, 0, 0, 1)), "mag.soft_iron"),
        (SensorCalibration(magnetometerSoftIron: Matrix3(0.001, 0, 0, 0, 1, 0, 0, 0, 1)), "mag.soft_iron"),
        (SensorCalibration(magnetometerFieldStrength: 0), "mag.field_strength"),
        (SensorCalibration(magnetometerFieldStrength: -5), "mag.field_strength"),
    ])
    func aSealedFileWithAValueNoSensorNeedsIsRefusedNamingTheKey(calibration: SensorCalibration, key: String) {
        let text = CalibrationFile.encode(calibration, sensor: "sim@0")
        do {
            let c = try CalibrationFile.decode(text, source: "cal.txt")
            Issue.record("accepted: \(c)")
        } catch {
            #expect(error.problem.contains(key) && error.description.contains("cal.txt:"), "\(error)")
        }
    }

    /// At the bounds, a reading at a sensor's full scale calibrates to a finite value.
    @Test func atTheBoundsEveryCalibratedFullScaleReadingIsFinite() throws {
        let edge = SensorCalibration(gyroBias: Vector3(10, -10, 10), accelerometerOffset: Vector3(20, -20, 20),
                                     accelerometerScale: Vector3(1.99, 0.51, 1), magnetometerOffset: Vector3(1e4, -1e4, 1e4),
                                     magnetometerSoftIron: Matrix3(100, 100, 0, 0, 1, 0, 0, 0, 0.01), magnetometerFieldStrength: 1e4)
        let c = try CalibrationFile.decode(CalibrationFile.encode(edge, sensor: "sim@0"), source: "cal.txt")
        #expect(c == edge)
        for s in [-1.0, 1.0] {
            let g = c.gyroscope(Vector3(35, 35, 35) * s), a = c.accelerometer(Vector3(157, 157, 157) * s)
            let m = c.magnetometer(Vector3(4912, 4912, 4912) * s)
            let all = [g.x, g.y, g.z, a.x, a.y, a.z, m.x, m.y, m.z]
            #expect(all.allSatisfy { $0.isFinite }, "\(all)")
        }
    }

    @Test func calibrationForAnotherSensorIsRejected() {
        let text = CalibrationFile.encode(SensorCalibration(gyroBias: .zero), sensor: "mpu9250@i2c-1:0x68")
        do {
            _ = try CalibrationFile.decode(text, expectedSensor: "lsm9ds1@i2c-1:0x6b", source: "cal.txt")
            Issue.record("a file for another sensor was accepted")
        } catch {
            #expect(error.problem.contains("mpu9250@i2c-1:0x68"))
        }
    }

    @Test func gyroBiasIsTheMeanOfAStillRecordingAndMotionIsRefused() throws {
        var signals = FusionTestSignals(truth: Quaternion.aboutX(0.2))
        signals.gyroBias = Vector3(0.01, -0.02, 0.005)
        var still = GyroscopeCalibrator()
        for _ in 0..<1000 {
            let s = signals.step(omegaEarth: .zero, dt: 0.01)
            still.add(gyroscope: s.gyro, accelerometer: s.acc)
        }
        let r = try still.fit()
        #expect((r.bias - signals.gyroBias).norm < 0.0005)
        var moving = GyroscopeCalibrator()
        for k in 0..<1000 {
            let s = signals.step(omegaEarth: Vector3(0, 0, (Double(k) * 0.01).sin), dt: 0.01)
            moving.add(gyroscope: s.gyro, accelerometer: s.acc)
        }
        #expect(throws: GyroscopeCalibrator.Failure.self) { try moving.fit() }
    }

    @Test func sixFaceCalibrationRecoversOffsetAndScale() throws {
        let offset = Vector3(0.15, -0.1, 0.25), scale = Vector3(1.02, 0.98, 1.01)
        var signals = FusionTestSignals()
        var cal = AccelerometerCalibrator(samplePeriod: 0.01)
        let faces: [Quaternion] = [.aboutY(-.pi / 2), .aboutY(.pi / 2), .aboutX(.pi / 2), .aboutX(-.pi / 2), .identity, .aboutX(.pi)]
        for face in faces {
            signals.truth = face
            for _ in 0..<500 {
                let s = signals.step(omegaEarth: .zero, dt: 0.01)
                cal.add(gyroscope: s.gyro, accelerometer: s.acc.scaled(by: scale) + offset, dt: 0.01)
            }
            for _ in 0..<50 {   // picked up and turned
                cal.add(gyroscope: Vector3(1, 0, 0), accelerometer: Vector3(3, 0, 9), dt: 0.01)
            }
        }
        let r = try cal.fit()
        #expect((r.offset - offset).norm < 0.02, "offset \(r.offset)")
        #expect((r.scale - scale).norm < 0.005, "scale \(r.scale)")
        var missing = AccelerometerCalibrator(samplePeriod: 0.01)
        signals.truth = .identity
        for _ in 0..<300 {
            let s = signals.step(omegaEarth: .zero, dt: 0.01)
            missing.add(gyroscope: s.gyro, accelerometer: s.acc, dt: 0.01)
        }
        #expect(throws: AccelerometerCalibrator.Failure.self) { try missing.fit() }
    }
}

private extension String {
    func replacingFirst(_ a: String, with b: String) -> String {
        let parts = split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let i = parts.firstIndex(where: { $0.contains(a) }) else { return self }
        var out = parts
        let line = out[i]
        let prefix = line.prefix { _ in true }
        var done = false
        out[i] = String(prefix).split(separator: " ", omittingEmptySubsequences: false).map { w -> String in
            if !done, w == a { done = true; return b }
            return String(w)
        }.joined(separator: " ")
        return out.joined(separator: "\n")
    }
}
