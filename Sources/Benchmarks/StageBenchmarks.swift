#if canImport(Glibc)
import Glibc
#endif
import Agent
import EdgeMotion
import Messaging
import MotionCore
import Sensors

/// Per-stage costs of the per-sample path, single thread, in-process, on a recorded trial.
struct StageBenchmarks {
    var trial: TrialData
    var repeats: Int
    /// Samples per measured pass (the trial is cycled to reach it).
    var passSamples: Int

    func run() -> [StageResult] {
        var results: [StageResult] = []
        let samples = trial.retimed(rate: trial.rate, count: passSamples)
        let n = samples.count
        let dt = 1 / trial.rate

        // Ring: push + pop of one 96-byte sample, in bursts of 64 like a FIFO read.
        do {
            let ring = SampleRing<IMUSample>(minimumCapacity: 4096)
            var checksum = 0.0
            results.append(measureStage("ring push + pop", key: "ring", items: n, repeats: repeats) {
                var i = 0
                while i < n {
                    let end = min(i + 64, n)
                    for k in i..<end { ring.push(samples[k]) }
                    ring.drain { s in checksum += s.specificForce.z }
                    i = end
                }
            })
            blackHole(checksum)
        }

        // The agent's default source when no IMU is configured: the simulator (walking, noise, all
        // three sensors, exact kinematics). Not part of the agent's path on hardware, but part of
        // every `edgemotion run` measured on the simulator (a peer reading recorded arrays skips it).
        do {
            let imu = SimulatedIMU(options: SimulatorOptions(scenario: .walking, realTime: false))
            let buffer = UnsafeMutableBufferPointer<IMUSample>.allocate(capacity: 64)
            defer { buffer.deallocate() }
            var checksum = 0.0
            if (try? imu.start(requestedRate: 1000)) != nil {
                results.append(measureStage("simulated IMU (walking, noise, 3 sensors) @ 1 kHz", key: "simulator", items: n,
                                            repeats: repeats) {
                    var produced = 0
                    while produced < n {
                        guard case .samples(let k)? = try? imu.read(into: buffer, timeout: .seconds(1)) else { break }
                        checksum += buffer[0].specificForce.z
                        produced += k
                    }
                })
                imu.stop()
            }
            blackHole(checksum)
        }

        // Mount (`source.mount`): two 3×3 rotations per sample, as the processor applies them.
        do {
            let inertial = (try? SensorMount(remapX: SignedAxis(.y, negated: true), y: SignedAxis(.x), z: SignedAxis(.z))) ?? .identity
            let tilt = (try? SensorMount.learned(fromRestingSpecificForce: Vector3(1, 2, 9.5))) ?? .identity
            let mount = IMUMount(inertial: inertial, magnetometer: tilt)
            var checksum = 0.0
            results.append(measureStage("mount (accel/gyro remap + magnetometer rotation)", key: "mount", items: n, repeats: repeats) {
                for k in 0..<n { checksum += mount.apply(samples[k]).magneticField.x }
            })
            blackHole(checksum)
        }

        results.append(StageResult(name: "calibration", key: "calibration", runs: [],
                                   note: "n/a: no separate stage (gyro bias is estimated inside fusion)"))

        // Fusion: the filter update alone, concrete types (no generics), raw trial vectors.
        let gyr = samples.map(\.rotationRate), acc = samples.map(\.specificForce), mag = samples.map(\.magneticField)
        func fusion<F: AttitudeFilter>(_ make: @autoclosure () -> F, _ name: String, _ key: String, magnetometer: Bool) -> StageResult {
            var f = make()
            let r = measureStage(name, key: key, items: n, repeats: repeats) {
                if magnetometer {
                    for i in 0..<n { f.update(gyroscope: gyr[i], accelerometer: acc[i], magnetometer: mag[i], dt: dt) }
                } else {
                    for i in 0..<n { f.update(gyroscope: gyr[i], accelerometer: acc[i], magnetometer: nil, dt: dt) }
                }
            }
            blackHole(f.output)
            return r
        }
        results.append(fusion(RobustAttitudeFilter(samplePeriod: dt), "fusion 6D (RobustAttitudeFilter)", "fusion6d_robust", magnetometer: false))
        results.append(fusion(RobustAttitudeFilter(samplePeriod: dt), "fusion 9D (RobustAttitudeFilter)", "fusion9d_robust", magnetometer: true))
        results.append(fusion(ComplementaryFilter(samplePeriod: dt), "fusion 6D (ComplementaryFilter)", "fusion6d_complementary", magnetometer: false))
        results.append(fusion(ComplementaryFilter(samplePeriod: dt), "fusion 9D (ComplementaryFilter)", "fusion9d_complementary", magnetometer: true))

        // Device motion on top of fusion (gravity, user acceleration, frames, heading).
        do {
            var e = DeviceMotionEstimator<RobustAttitudeFilter>(samplePeriod: dt, referenceFrame: .xArbitraryCorrectedZVertical)
            var checksum = 0.0
            results.append(measureStage("fusion 9D + DeviceMotion (Robust, estimator)", key: "device_motion_robust", items: n, repeats: repeats) {
                for i in 0..<n { checksum += e.update(samples[i]).attitude.quaternion.w }
            })
            blackHole(checksum)
        }

        // Activity: resampling, features, classifier, state machine (MotionCore's ActivityDetector).
        do {
            let detector = ActivityDetector()
            var changes = 0
            results.append(measureStage("activity (features + classifier)", key: "activity", items: n, repeats: repeats) {
                for i in 0..<n { if detector.update(samples[i]) != nil { changes += 1 } }
            })
            blackHole(changes)
        }
        do {
            var pedometer = Pedometer()
            var events = 0
            results.append(measureStage("pedometer", key: "pedometer", items: n, repeats: repeats) {
                for i in 0..<n { if pedometer.update(time: samples[i].timestamp, specificForce: samples[i].specificForce) != nil { events += 1 } }
            })
            blackHole(events)
        }
        do {
            // Every motion-event detector (tilt with two thresholds, motion, shock, free fall,
            // tap, tamper, fall, vibration with two bands) per sample, beside fusion above.
            var c = MotionEventConfiguration()
            c.tiltThresholds = [TiltThreshold(name: "door", onAbove: 60, offBelow: 20), TiltThreshold(name: "lid", onAbove: 10, offBelow: 5)]
            c.vibration.bands = [VibrationBand(name: "drum", low: 10, high: 25), VibrationBand(name: "motor", low: 30, high: 80)]
            c.enabled.insert(.fall)
            var detectors = MotionEventDetectors(configuration: c, sampleRate: 1 / dt)
            var events = 0
            results.append(measureStage("motion events (all detectors, 2 thresholds, 2 bands)", key: "motion_events", items: n, repeats: repeats) {
                for i in 0..<n {
                    detectors.update(time: samples[i].timestamp, specificForce: samples[i].specificForce,
                                     rotationRate: samples[i].rotationRate) { _ in events += 1 }
                }
            })
            blackHole(events)
        }
        do {
            // The vibration analyser alone (inside the row above too): 20 Hz high-pass, 1 s windows of
            // RMS, peak and zero-crossing frequency, two bands, running/idle, STA/LTA.
            var c = VibrationConfiguration()
            c.bands = [VibrationBand(name: "drum", low: 10, high: 25), VibrationBand(name: "motor", low: 30, high: 80)]
            var vibration = VibrationAnalyzer(configuration: c, sampleRate: 1 / dt)
            var events = 0
            results.append(measureStage("vibration (RMS, peak, frequency, 2 bands, running, STA/LTA)", key: "vibration", items: n, repeats: repeats) {
                for i in 0..<n {
                    if vibration.update(specificForce: samples[i].specificForce, time: samples[i].timestamp, emit: { _ in events += 1 }) { events += 1 }
                }
            })
            blackHole(events)
        }
        do {
            // The vibration spectrum (`events.vibration.spectrum`, defaults: 256 samples, 16 bins):
            // per sample one store into its ring; at the publish interval a Hann window, a radix-2
            // FFT per axis and the band sums. Rows: the per-sample store alone (interval longer
            // than the run), the amortised cost at a 1 s interval, and one spectrum on its own.
            let rate = 1 / dt
            for (interval, label, key) in [(1e9, "store only", "spectrum_store"), (1.0, "1 s interval, FFT amortised", "spectrum_1s")] {
                var c = VibrationSpectrumConfiguration()
                c.enabled = true
                c.interval = interval
                let analyzer = VibrationSpectrumAnalyzer(configuration: c, sampleRate: rate)
                var spectra = 0
                // Each pass replays the same samples: its clock continues from the last pass, so
                // spectra stay due every `interval` instead of waiting for the first pass's end.
                var offset = 0.0
                let passDuration = Double(n) * dt
                results.append(measureStage("vibration spectrum, \(label)", key: key, items: n, repeats: repeats,
                                            note: interval < 1e9 ? "allocates once per spectrum (its result arrays), not per sample" : "") {
                    for i in 0..<n where analyzer.add(samples[i].specificForce, time: offset + samples[i].timestamp) {
                        spectra += analyzer.compute(time: offset + samples[i].timestamp).rms.count
                    }
                    offset += passDuration
                })
                blackHole(spectra)
            }
            var c = VibrationSpectrumConfiguration()
            c.enabled = true
            let analyzer = VibrationSpectrumAnalyzer(configuration: c, sampleRate: rate)
            for i in 0..<min(n, c.length) { _ = analyzer.add(samples[i].specificForce, time: samples[i].timestamp) }
            let count = 200
            var bins = 0
            results.append(measureStage("vibration spectrum, one spectrum (ns per spectrum)", key: "spectrum_compute", items: count,
                                        repeats: repeats, countAllocations: false) {
                for _ in 0..<count { bins += analyzer.compute(time: 0).rms.count }
            })
            blackHole(bins)
        }

        // The same two inside the pipeline, as the agent runs them: the activity engine's runtime
        // consumer (50 Hz accelerometer, batches of 10) on a 1 kHz source; ns per source sample.
        results.append(ActivityStage.measure(name: "activity features + classifier, in MotionProcessor @ 1 kHz (50 Hz consumer)",
                                             key: "activity_in_pipeline", activity: true, pedometer: false, rate: 1000,
                                             trial: trial, items: n, repeats: repeats))
        results.append(ActivityStage.measure(name: "pedometer, in MotionProcessor @ 1 kHz (50 Hz consumer)",
                                             key: "pedometer_in_pipeline", activity: false, pedometer: true, rate: 1000,
                                             trial: trial, items: n, repeats: repeats))

        // Batch encoding into the preallocated JSON buffer, per sample encoded.
        let clock = WallClockMapping.current()
        for (batch, label) in [(10, "10/batch (default)"), (1, "1/batch (lowest latency)")] {
            var w = JSONWriter(capacity: 1 << 16)
            var bytes = 0
            let batches = n / batch
            results.append(measureStage("encode accelerometer batch, \(label)", key: "encode_sensor_b\(batch)", items: batches * batch, repeats: repeats) {
                samples.withUnsafeBufferPointer { p in
                    for b in 0..<batches {
                        let span = UnsafeBufferPointer(rebasing: p[(b * batch)..<(b * batch + batch)]).span
                        SensorBatchEncoder.encode(span, stream: .accelerometer, sequence: UInt64(b), interval: 0.01, clock: clock, into: &w)
                        bytes &+= w.count
                    }
                }
            })
            blackHole(bytes)
        }
        do {
            var e = DeviceMotionEstimator<RobustAttitudeFilter>(samplePeriod: dt, referenceFrame: .xArbitraryCorrectedZVertical)
            let motions = samples.map { e.update($0) }
            var w = JSONWriter(capacity: 1 << 16)
            var bytes = 0
            let batch = 5, batches = n / batch
            results.append(measureStage("encode motion batch, 5/batch (default)", key: "encode_motion_b5", items: batches * batch, repeats: repeats) {
                motions.withUnsafeBufferPointer { p in
                    for b in 0..<batches {
                        let span = UnsafeBufferPointer(rebasing: p[(b * batch)..<(b * batch + batch)]).span
                        MotionBatchEncoder.encode(span, sequence: UInt64(b), interval: 0.02, clock: clock, into: &w)
                        bytes &+= w.count
                    }
                }
            })
            blackHole(bytes)
        }
        return results
    }
}

/// The agent's whole per-sample path for one configuration: ring push + pop, fusion, decimation,
/// batching and JSON encoding of every published batch (no network send), single thread.
struct WholePathCase {
    var name: String
    var key: String
    var rate: Double
    var configuration: PipelineConfiguration
    var sensors: IMUSample.Contents = .all

    /// The agent's defaults (`config/edgemotion.yaml`): sensors 100 Hz in batches of 10,
    /// motion 50 Hz in batches of 5, at a `rate` Hz source.
    static func defaults(rate: Double) -> WholePathCase {
        WholePathCase(name: "agent defaults @ \(Int(rate)) Hz", key: "path_defaults_\(Int(rate))", rate: rate,
                      configuration: PipelineConfiguration(requestedRate: rate))
    }

    /// Every stream at the source rate, `publishRate` batches per second: every sample is fused,
    /// turned into a DeviceMotion and encoded four times (the heaviest configuration).
    static func everySample(rate: Double, publishRate: Double, streams: Int = 4) -> WholePathCase {
        let on = StreamSchedule(rate: 0, publishRate: publishRate)
        let c = PipelineConfiguration(
            requestedRate: rate,
            accelerometer: streams >= 1 ? on : .disabled, gyroscope: streams >= 2 ? on : .disabled,
            magnetometer: streams >= 3 ? on : .disabled, motion: streams >= 4 ? on : .disabled)
        return WholePathCase(name: "\(streams) stream\(streams == 1 ? "" : "s") at source rate @ \(Int(rate)) Hz, \(Int(publishRate)) msg/s",
                             key: "path_all_\(streams)s_\(Int(rate))hz_p\(Int(publishRate))", rate: rate, configuration: c)
    }

    /// The pipeline's own specialised processor for this case and filter (a generic
    /// MotionProcessor<F> called from this module would run unspecialised, slower than the agent).
    func processor<F: AttitudeFilter>(filter: F.Type) -> ProcessorHarness {
        var schedules: [SensorStream: EffectiveSchedule] = [:]
        for s in SensorStream.allCases { schedules[s] = EffectiveSchedule(configuration.schedule(for: s), sourceRate: rate) }
        var c = configuration
        c.filter = F.self == ComplementaryFilter.self ? .complementary : .default
        return ProcessorHarness(configuration: c, sourceRate: rate, schedules: schedules,
                                motionSchedule: EffectiveSchedule(configuration.motion, sourceRate: rate), sensors: sensors)
    }

    func measure<F: AttitudeFilter>(filter: F.Type, trial: TrialData, items: Int, repeats: Int) -> StageResult {
        let samples = trial.retimed(rate: rate, count: items)
        let processor = processor(filter: F.self)
        let output = EncodingOutput()
        let outputs: [any PipelineOutput] = [output]
        let ring = SampleRing<IMUSample>(minimumCapacity: 4096)
        let n = samples.count
        let period = UInt64(1e9 / rate)
        var pass: UInt64 = 0
        let result = measureStage(name, key: key, items: n, repeats: repeats) {
            let shift = pass &* UInt64(n)
            pass &+= 1
            var i = 0
            while i < n {
                let end = min(i + 64, n)
                for k in i..<end {
                    var s = samples[k]
                    s.sequence &+= shift
                    s.timestampNanos &+= shift &* period
                    ring.push(s)
                }
                processor.drain(ring, outputs: outputs)
                i = end
            }
        }
        blackHole(output.bytes)
        return result
    }
}
