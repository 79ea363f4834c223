import Testing
import Glibc
import MotionCore
@testable import Sensors
import TestSupport

/// Reads `seconds` of samples from a non-real-time simulator started at `rate` Hz.
func simulatedSamples(_ options: SimulatorOptions, rate: Double, seconds: Double) throws -> (SimulatedIMU, [IMUSample]) {
    var options = options
    options.realTime = false
    let imu = SimulatedIMU(options: options)
    _ = try imu.start(requestedRate: rate)
    let wanted = Int((seconds * rate).rounded())
    var samples: [IMUSample] = []
    samples.reserveCapacity(wanted)
    let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 256)
    defer { buffer.deallocate() }
    while samples.count < wanted {
        let slice = UnsafeMutableBufferPointer(rebasing: buffer[0..<min(256, wanted - samples.count)])
        guard case .samples(let n) = try imu.read(into: slice, timeout: .seconds(1)) else { break }
        samples.append(contentsOf: slice[0..<n])
    }
    return (imu, samples)
}

func mean(_ vectors: [Vector3]) -> Vector3 {
    vectors.reduce(Vector3.zero, +) / Double(vectors.count)
}

/// Angle between two unit quaternions' rotations, degrees.
func angleBetween(_ a: Quaternion, _ b: Quaternion) -> Double {
    (a.conjugate * b).normalized.angle.degrees
}

/// Frequency (Hz) in `range` with the largest DFT magnitude of `signal` sampled at `rate`.
func dominantFrequency(_ signal: [Double], rate: Double, in range: ClosedRange<Double>, step: Double = 0.01) -> Double {
    let m = signal.reduce(0, +) / Double(signal.count)
    var best = (f: range.lowerBound, power: -1.0)
    var f = range.lowerBound
    while f <= range.upperBound {
        var re = 0.0
        var im = 0.0
        for (k, x) in signal.enumerated() {
            let phase = 2 * Double.pi * f * Double(k) / rate
            re += (x - m) * phase.cos
            im -= (x - m) * phase.sin
        }
        let power = re * re + im * im
        if power > best.power { best = (f, power) }
        f += step
    }
    return best.f
}

@Suite("SimulatedIMU", .ownThread)
struct SimulatedIMUTests {
    @Test func measuresStandardGravityAndTheEarthFieldAtRest() throws {
        let (_, samples) = try simulatedSamples(SimulatorOptions(scenario: .stationary), rate: 200, seconds: 1)
        #expect(samples.count == 200)
        let f = mean(samples.map(\.specificForce))
        let b = mean(samples.map(\.magneticField))
        #expect(abs(f.norm - 9.80665) < 0.02, "mean |f| = \(f.norm)")
        #expect(abs(b.norm - 48) < 0.2, "mean |B| = \(b.norm)")
        // Per-sample noise is present but modest (400 µg/√Hz at 200 Hz ≈ 0.055 m/s²).
        let spread = samples.map { ($0.specificForce - f).norm }.max()!
        #expect(spread > 0.01 && spread < 0.5)
    }

    @Test func specificForceAndFieldPointWhereTheTiltSays() throws {
        let tilt = Attitude(roll: 25.0.radians, pitch: -15.0.radians, yaw: 70.0.radians)
        let (imu, samples) = try simulatedSamples(
            SimulatorOptions(scenario: .stationary(attitude: tilt)), rate: 100, seconds: 2)
        // Independent expectation: the up axis and the field (north, 64° down) seen in the sensor
        // frame through the transpose of the attitude's rotation matrix.
        let r = tilt.rotationMatrix.transposed
        let up = r * Vector3(0, 0, 1)
        let field = r * Vector3(0, 48 * 64.0.radians.cos, -48 * 64.0.radians.sin)
        let f = mean(samples.map(\.specificForce))
        let b = mean(samples.map(\.magneticField))
        #expect(f.normalized.dot(up).acos.degrees < 0.3)
        #expect(b.normalized.dot(field.normalized).acos.degrees < 0.5)
        #expect(angleBetween(imu.truth(at: 1).attitude, tilt.quaternion) < 1e-9)
        #expect(imu.truth(at: 1).activity == .stationary)
        // Yaw is counter-clockwise from east-north axes, heading clockwise from north.
        let flat = SimulatedIMU(options: SimulatorOptions(scenario: .stationary(attitude: Attitude(roll: 0, pitch: 0, yaw: 30.0.radians))))
        #expect(abs(flat.truth(at: 0).heading - 330) < 1e-9)
        #expect((flat.truth(at: 0).sensorFrameUp - Vector3(0, 0, 1)).norm < 1e-12)
    }

    @Test func gyroscopeIntegratesToTheScriptedAttitude() throws {
        for scenario in [SimulationScenario.rotation, .walking, .cycling, .automotive,
                         .sequence([(.walking, 20), (.running, 20), (.rotation, 20)])] {
            let options = SimulatorOptions(scenario: scenario, gyroBias: .zero, noise: false)
            let rate = 200.0
            let (imu, samples) = try simulatedSamples(options, rate: rate, seconds: 60)
            var q = imu.truth(at: 0).attitude
            var worst = 0.0
            for k in 1..<samples.count {
                // Trapezoidal rate over each interval.
                let w = (samples[k - 1].rotationRate + samples[k].rotationRate) / 2
                q = (q * Quaternion(rotationVector: w / rate)).normalized
                worst = max(worst, angleBetween(q, imu.truth(at: Double(k) / rate).attitude))
            }
            #expect(worst < 0.1, "\(scenario.name): worst attitude error \(worst)° over 60 s")
        }
    }

    @Test func rotationScenarioReallyRotatesAndHasStillPeriods() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .rotation))
        let rates = stride(from: 0.0, to: 60, by: 0.05).map { imu.truth(at: $0).angularVelocity.norm }
        #expect(rates.max()! > 20.0.radians)
        #expect(rates.filter { $0 < 1e-9 }.count > 100)  // ≥ 5 s still in a minute
    }

    @Test func gyroscopeBiasIsTheMeanRateAtRest() throws {
        let bias = Vector3(0.5.radians, -0.3.radians, 0.2.radians)
        let (_, samples) = try simulatedSamples(SimulatorOptions(scenario: .stationary), rate: 200, seconds: 2)
        let w = mean(samples.map(\.rotationRate))
        #expect((w - bias).norm.degrees < 0.02, "mean gyro \(w) vs bias \(bias)")
        #expect(w.norm > 0.5 * bias.norm)
    }

    @Test(arguments: [(SimulationScenario.walking(cadence: 1.7), 1.7), (.walking, 1.9),
                      (.running(cadence: 3.1), 3.1), (.running, 2.8)])
    func verticalAccelerationOscillatesAtTheCadence(scenario: SimulationScenario, cadence: Double) throws {
        let rate = 100.0
        let (imu, samples) = try simulatedSamples(SimulatorOptions(scenario: scenario), rate: rate, seconds: 20)
        let vertical = samples.map { s in
            imu.truth(for: s).attitude.rotate(s.specificForce).z - standardGravity
        }
        let f = dominantFrequency(vertical, rate: rate, in: 0.5...6)
        #expect(abs(f - cadence) < 0.03, "\(scenario.name): dominant \(f) Hz, cadence \(cadence)")
        let steps = imu.truth(at: 20).steps
        #expect(abs(Double(steps) - cadence * 20) <= 1, "steps \(steps)")
        let peak = vertical.map(abs).max()! / standardGravity
        if imu.truth(at: 1).activity == .running {
            #expect(peak > 0.8 && peak < 2)
        } else {
            #expect(peak > 0.15 && peak < 0.6)
        }
    }

    @Test func irregularCadenceStillCountsOneStepPerBounce() throws {
        var gait = GaitMotion.walking(cadence: 2.0)
        gait.cadenceVariation = 0.1
        gait.cadenceVariationPeriod = 20
        let rate = 100.0
        let scenario = SimulationScenario(name: "walking", motion: .gait(gait))
        let (imu, samples) = try simulatedSamples(
            SimulatorOptions(scenario: scenario, noise: false), rate: rate, seconds: 40)
        // Count upward crossings of +0.1 g in the noise-free vertical acceleration.
        let vertical = samples.map { imu.truth(for: $0).attitude.rotate($0.specificForce).z - standardGravity }
        var crossings = 0
        for k in 1..<vertical.count where vertical[k - 1] < 0.1 * standardGravity && vertical[k] >= 0.1 * standardGravity {
            crossings += 1
        }
        let steps = imu.truth(at: 40).steps
        #expect(abs(crossings - steps) <= 1, "\(crossings) bounces, \(steps) true steps")
        #expect(abs(Double(steps) - 80) <= 1)  // whole modulation periods average out
        // The step rate really varies: ≈ 21.3 steps in the fast half period, ≈ 18.7 in the slow one.
        let fast = imu.truth(at: 10).steps
        let slow = imu.truth(at: 20).steps - fast
        #expect(fast - slow >= 2, "fast half \(fast), slow half \(slow)")
    }

    @Test func cyclingGyroscopeFollowsThePedals() throws {
        let rate = 100.0
        let (_, samples) = try simulatedSamples(SimulatorOptions(scenario: .cycling), rate: rate, seconds: 20)
        let f = dominantFrequency(samples.map(\.rotationRate.x), rate: rate, in: 0.3...5)
        #expect(abs(f - 1.33) < 0.03)
        let peakUser = samples.map { ($0.specificForce.norm - standardGravity) / standardGravity }.map(abs).max()!
        #expect(peakUser < 0.6)
    }

    @Test func automotiveHasDrivingAccelerationsTurnsAndStops() {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .automotive))
        let truths = stride(from: 0.0, to: 100, by: 0.01).map { imu.truth(at: $0) }
        // Low-pass the linear acceleration over 1 s to remove vibration.
        var smooth: [Vector3] = []
        for k in stride(from: 0, to: truths.count - 100, by: 50) {
            smooth.append(mean(truths[k..<(k + 100)].map(\.linearAcceleration)))
        }
        let horizontal = smooth.map { Vector3($0.x, $0.y, 0).norm / standardGravity }
        #expect(horizontal.max()! > 0.15 && horizontal.max()! < 0.35)
        #expect(horizontal.filter { $0 < 0.01 }.count >= 10)  // stops
        let yawRates = truths.map { $0.attitude.rotate($0.angularVelocity).z }
        #expect(yawRates.max()! > 0.1 && yawRates.min()! < -0.1)
        #expect(truths.allSatisfy { $0.activity == .automotive })
    }

    @Test func sequenceReportsTheActiveLabelAndCountsStepsOnlyWhileOnFoot() {
        let scenario = SimulationScenario.sequence([(.walking, 10), (.running, 10), (.stationary, 10)])
        #expect(scenario.segments.count == 3)
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: scenario))
        #expect(imu.truth(at: 5).activity == .walking)
        #expect(imu.truth(at: 15).activity == .running)
        #expect(imu.truth(at: 25).activity == .stationary)
        #expect(imu.truth(at: 40).activity == .stationary)
        let steps = imu.truth(at: 30).steps
        #expect(abs(Double(steps) - (1.9 * 10 + 2.8 * 10)) <= 2, "steps \(steps)")
        #expect(imu.truth(at: 23).steps == imu.truth(at: 40).steps)
        #expect(imu.truth(at: 9).steps < imu.truth(at: 10).steps + 1)
        // Smooth transitions: the angular rate stays bounded through every boundary.
        let maxRate = stride(from: 8.0, to: 24, by: 0.005).map { imu.truth(at: $0).angularVelocity.norm }.max()!
        #expect(maxRate < 3)
    }

    @Test func samplesAreDeterministicBySeed() throws {
        let a = try simulatedSamples(SimulatorOptions(scenario: .walking, seed: 7), rate: 100, seconds: 1).1
        let b = try simulatedSamples(SimulatorOptions(scenario: .walking, seed: 7), rate: 100, seconds: 1).1
        let c = try simulatedSamples(SimulatorOptions(scenario: .walking, seed: 8), rate: 100, seconds: 1).1
        #expect(a.map(\.specificForce) == b.map(\.specificForce))
        #expect(a.map(\.rotationRate) == b.map(\.rotationRate))
        #expect(a.map(\.magneticField) == b.map(\.magneticField))
        #expect(a.map(\.specificForce) != c.map(\.specificForce))
        #expect(a.map(\.rotationRate) != c.map(\.rotationRate))
    }

    @Test func rateIsCappedAndCapabilitiesFollowTheOptions() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(
            scenario: .stationary, realTime: false, includeMagnetometer: false, maximumRate: 500))
        #expect(imu.capabilities.sensors == .inertial)
        #expect(imu.capabilities.supportedRates.isEmpty)
        #expect(imu.capabilities.name == "simulator:stationary")
        let config = try imu.start(requestedRate: 1000)
        #expect(config.rate == 500)
        #expect(config.timing == .simulated)
        #expect(config.lossless)
        #expect(try SimulatedIMU(options: SimulatorOptions(scenario: .stationary)).start(requestedRate: 100).lossless == false)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 10)
        defer { buffer.deallocate() }
        #expect(try imu.read(into: buffer, timeout: .zero) == .samples(10))
        #expect(buffer.allSatisfy { $0.contents == .inertial })
        #expect(buffer.map(\.sequence) == Array(0..<10))
        #expect(zip(buffer.dropFirst(), buffer).allSatisfy { $0.timestampNanos - $1.timestampNanos == 2_000_000 })
        #expect(throws: SensorError.self) { try imu.start(requestedRate: 0) }
    }

    @Test func realTimeReadsArePacedByTheClock() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .walking))
        _ = try imu.start(requestedRate: 200)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        let begin = MonotonicClock.nowNanos()
        var received = 0
        var last: UInt64 = 0
        while received < 41 {
            guard case .samples(let n) = try imu.read(into: buffer, timeout: .seconds(1)) else { continue }
            #expect(n >= 1)
            for s in buffer[0..<n] {
                #expect(s.sequence == UInt64(received))
                #expect(s.timestampNanos <= MonotonicClock.nowNanos())
                if received > 0 { #expect(s.timestampNanos - last == 5_000_000) }
                last = s.timestampNanos
                received += 1
            }
        }
        let elapsed = Double(MonotonicClock.nowNanos() - begin) * 1e-9
        #expect(elapsed >= 0.15, "41 samples at 200 Hz came in \(elapsed) s")
    }

    @Test func realTimeReadTimesOutWhenNothingIsDue() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .stationary))
        _ = try imu.start(requestedRate: 1)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        #expect(try imu.read(into: buffer, timeout: .milliseconds(50)) == .samples(1))
        #expect(try imu.read(into: buffer, timeout: .milliseconds(20)) == .timeout)
        imu.stop()
        #expect(try imu.read(into: buffer, timeout: .zero) == .endOfStream)
    }

    @Test func aLateRealTimeReaderLosesTheOldestSamplesLikeAFIFOOverrun() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .stationary, fifoDepth: 100))
        _ = try imu.start(requestedRate: 2000)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 1000)
        defer { buffer.deallocate() }
        #expect(try imu.read(into: buffer, timeout: .seconds(1)) == .samples(1))
        var pause = timespec(tv_sec: 0, tv_nsec: 200_000_000)  // 400 samples become due
        nanosleep(&pause, nil)
        guard case .samples(let n) = try imu.read(into: buffer, timeout: .seconds(1)) else {
            Issue.record("expected samples")
            return
        }
        #expect(n == 100)
        #expect(buffer[0].sequence > 300)
        #expect(buffer[0].flags.contains(.discontinuity))
        #expect(buffer[1..<n].allSatisfy { $0.flags.isEmpty })
        #expect(zip(buffer[1..<n], buffer[0..<(n - 1)]).allSatisfy { $0.sequence == $1.sequence + 1 })
    }

    @Test func realTimeBurstsWakeOncePerWatermarkAndKeepEachSamplesGridTimestamp() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .stationary, burstSize: 10))
        _ = try imu.start(requestedRate: 1000)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 64)
        defer { buffer.deallocate() }
        var samples: [IMUSample] = []
        var reads = 0
        while samples.count < 50 {
            guard case .samples(let n) = try imu.read(into: buffer, timeout: .seconds(1)) else {
                Issue.record("expected samples")
                return
            }
            reads += 1
            let now = MonotonicClock.nowNanos()
            // The watermark: a read returns only once the burst of 10 its first sample belongs to
            // (samples 10k … 10k+9) is complete. A late wake-up takes what became due beyond it, so
            // the next read may start mid-burst and return fewer than 10, but never before that
            // burst's last sample (two late wake-ups in a row, under load, do exactly that).
            let burstEnd = (buffer[0].sequence / 10 + 1) * 10 - 1
            #expect(buffer[n - 1].sequence >= burstEnd, "read \(reads) returned samples \(buffer[0].sequence)…\(buffer[n - 1].sequence), before its burst ended at \(burstEnd)")
            #expect(buffer[n - 1].timestampNanos <= now, "a sample was delivered before it was due")
            samples.append(contentsOf: buffer[0..<n])
        }
        #expect(reads <= 5, "50 samples in bursts of 10 took \(reads) reads")
        #expect(samples.map(\.sequence) == (0..<UInt64(samples.count)).map { $0 })
        // Every sample keeps its own time on the 1 ms grid (not the burst's time).
        #expect(samples.allSatisfy { $0.timestampNanos == imu.startNanos + $0.sequence * 1_000_000 })
    }

    @Test func aBurstLargerThanTheReadersBufferIsCappedAtTheBuffer() throws {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .stationary, burstSize: 100))
        _ = try imu.start(requestedRate: 1000)
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        let begin = MonotonicClock.nowNanos()
        #expect(try imu.read(into: buffer, timeout: .seconds(1)) == .samples(4))
        #expect(MonotonicClock.nowNanos() - begin < 90_000_000, "waited for the whole burst of 100 instead of the 4 the buffer takes")
    }

    @Test func readBeforeStartIsAnError() {
        let imu = SimulatedIMU(options: SimulatorOptions(scenario: .stationary))
        let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 4)
        defer { buffer.deallocate() }
        #expect(throws: SensorError.self) { try imu.read(into: buffer, timeout: .zero) }
    }

    @Test func scenariosAreFoundByNameAndTimeline() {
        for name in SimulationScenario.names {
            #expect(SimulationScenario(named: name)?.name == name)
        }
        let timeline = SimulationScenario(named: "walking:60, running:30,stationary")
        #expect(timeline?.segments.map(\.motion.activity) == [.walking, .running, .stationary])
        #expect(timeline?.segments.map(\.duration) == [60, 30, .infinity])
        #expect(timeline?.name == "walking+running+stationary")
        #expect(SimulationScenario(named: "swimming") == nil)
        #expect(SimulationScenario(named: "walking:-3") == nil)
    }
}
