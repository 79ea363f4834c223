import Testing
@testable import Agent
import EdgeMotion
import Messaging
import MotionCore

/// The exact bytes of the `sensor/<name>` and `motion` batch payloads (docs/topics.md), written
/// out by hand from the documented format: any change to the publish path (encoders, writer,
/// buffers handed to the outbox) must leave subscribers' bytes identical.
@Suite("Batch payload bytes")
struct BatchPayloadBytesTests {
    /// 2025-11-30T08:30:25Z in UTC ns minus 1 s of monotonic time: sample 0 (t = 1 s) is at
    /// 1764491426 s UTC.
    let clock = WallClockMapping(offsetNanos: 1_764_491_425_000_000_000, floorUTCNanos: .min)

    func sensorPayload(_ samples: [IMUSample], _ stream: SensorStream, seq: UInt64, interval: Double) -> String {
        var w = JSONWriter(capacity: 4096)
        samples.withUnsafeBufferPointer { SensorBatchEncoder.encode($0.span, stream: stream, sequence: seq, interval: interval, clock: clock, into: &w) }
        return String(decoding: w.buffer, as: UTF8.self)
    }

    @Test func aGyroscopeBatch() {
        // dt_us: 1 000 000 ns → 1000 µs; 2 000 500 ns → 2000 µs (truncated to whole µs).
        // 0.123456789 rad/s with 6 digits → 0.123457 (rounded); 1.5 → 1.5 (trailing zeros trimmed).
        let samples = [
            IMUSample(timestampNanos: 1_000_000_000, sequence: 7, rotationRate: Vector3(0.1, -0.25, 1.5), contents: [.accelerometer, .gyroscope]),
            IMUSample(timestampNanos: 1_001_000_000, sequence: 8, rotationRate: Vector3(0.123456789, 2, -3), contents: [.accelerometer, .gyroscope]),
            IMUSample(timestampNanos: 1_002_000_500, sequence: 9, rotationRate: Vector3(-0.000125, 0.5, 4), contents: [.accelerometer, .gyroscope]),
        ]
        let expected = #"{"seq":42,"sensor":"gyroscope","unit":"rad/s","frame":"sensor","n":3,"interval_s":0.001,"#
            + #""t0_mono_ns":1000000000,"t0_utc_us":1764491426000000,"first_sample":7,"dt_us":[0,1000,2000],"#
            + #""x":[0.1,0.123457,-0.000125],"y":[-0.25,2,0.5],"z":[1.5,-3,4]}"#
        #expect(sensorPayload(samples, .gyroscope, seq: 42, interval: 0.001) == expected)
    }

    @Test func anAccelerometerBatchIsInGWithCoreMotionSigns() {
        // Core Motion's acceleration is −specific force / g: at rest, flat, +z specific force reads −1 g.
        let g = standardGravity
        let samples = [
            IMUSample(timestampNanos: 5_000_000_000, sequence: 100, specificForce: Vector3(g * 0.5, -g, g), contents: [.accelerometer]),
            IMUSample(timestampNanos: 5_010_000_000, sequence: 101, specificForce: Vector3(-g * 0.25, 0.25 * g, 2 * g), contents: [.accelerometer]),
        ]
        let expected = #"{"seq":0,"sensor":"accelerometer","unit":"g","frame":"sensor","n":2,"interval_s":0.01,"#
            + #""t0_mono_ns":5000000000,"t0_utc_us":1764491430000000,"first_sample":100,"dt_us":[0,10000],"#
            + #""x":[-0.5,0.25],"y":[1,-0.25],"z":[-1,-2]}"#
        #expect(sensorPayload(samples, .accelerometer, seq: 0, interval: 0.01) == expected)
    }

    @Test func aMagnetometerBatchHasThreeDigits() {
        // µT with 3 digits: 22.1234 → 22.123, −40.0005 → −40.001 (half away from zero; 0.0005 is
        // not exact in binary, so a value clearly past the half is used: −40.00051).
        let samples = [
            IMUSample(timestampNanos: 2_000_000_000, sequence: 1, magneticField: Vector3(22.1234, -40.00051, 12), contents: [.accelerometer, .magnetometer]),
        ]
        let expected = #"{"seq":3,"sensor":"magnetometer","unit":"uT","frame":"sensor","n":1,"interval_s":0.02,"#
            + #""t0_mono_ns":2000000000,"t0_utc_us":1764491427000000,"first_sample":1,"dt_us":[0],"#
            + #""x":[22.123],"y":[-40.001],"z":[12]}"#
        #expect(sensorPayload(samples, .magnetometer, seq: 3, interval: 0.02) == expected)
    }

    @Test func aMotionBatch() {
        // Identity attitude: quaternion [1,0,0,0], roll = pitch = yaw = 0; the second state 2.5 ms later.
        let one = DeviceMotion(timestamp: 3, attitude: Attitude(quaternion: Quaternion(w: 1, x: 0, y: 0, z: 0)),
                               referenceFrame: .xMagneticNorthZVertical,
                               rotationRate: RotationRate(Vector3(0.01, -0.02, 0.5)), gravity: Acceleration(Vector3(0, 0, -1)),
                               userAcceleration: Acceleration(Vector3(0.125, 0, -0.0625)),
                               magneticField: CalibratedMagneticField(field: MagneticField(Vector3(20.5, 0, -43.25)), accuracy: .high),
                               heading: 12.3456, gyroBias: Vector3(0.001, 0, -0.002), restDetected: true, magneticDisturbance: false)
        var two = one
        two.timestamp = 3.0025
        two.restDetected = false
        two.magneticDisturbance = true
        two.magneticField = .unavailable
        two.heading = -1
        var w = JSONWriter(capacity: 8192)
        [one, two].withUnsafeBufferPointer { MotionBatchEncoder.encode($0.span, sequence: 9, interval: 0.0025, clock: clock, into: &w) }
        let state = #""quaternion":[1,0,0,0],"roll":0,"pitch":0,"yaw":0,"gravity":[0,0,-1],"user_acceleration":[0.125,0,-0.0625],"#
            + #""rotation_rate":[0.01,-0.02,0.5],"#
        let expected = #"{"seq":9,"frame":"xMagneticNorthZVertical","n":2,"interval_s":0.0025,"t0_mono_ns":3000000000,"#
            + #""t0_utc_us":1764491428000000,"samples":["#
            + #"{"dt_us":0,"# + state + #""heading":12.35,"magnetic_field":[20.5,0,-43.25],"magnetic_accuracy":"high","#
            + #""rest":true,"magnetic_disturbance":false,"gyro_bias":[0.001,0,-0.002]},"#
            + #"{"dt_us":2500,"# + state + #""heading":-1,"magnetic_field":[0,0,0],"magnetic_accuracy":"uncalibrated","#
            + #""rest":false,"magnetic_disturbance":true,"gyro_bias":[0.001,0,-0.002]}]}"#
        #expect(String(decoding: w.buffer, as: UTF8.self) == expected)
    }
}
