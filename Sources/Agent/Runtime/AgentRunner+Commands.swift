import EdgeMotion
import Logging
import Messaging
import MotionCore
import Sensors
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension AgentRunner {
    // MARK: Commands (control.enabled)

    /// Performs one `cmd/<name>` message (the `commandHandler` part calls it on the runner's thread).
    func handleCommand(_ m: MQTTMessage) {
        guard configuration.control.enabled, let name = topics.commandName(of: m.topic) else { return }
        let replyTopic = topics.commandResult(name)
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        switch name {
        case "stream":
            switch StreamCommand.parse(m.payload) {
            case .failure(let f):
                reply(&w, id: f.id, ok: false, error: f.message)
            case .success(let cmd):
                guard let current = configuration.streams[named: cmd.stream] else {
                    // `StreamCommand.parse` accepts only the four stream names, so this is not reached.
                    reply(&w, id: cmd.id, ok: false, error: "unknown stream '\(cmd.stream)'")
                    break
                }
                let sourceRate = report?.sourceConfiguration.rate ?? configuration.source.rate
                switch cmd.applied(to: current, sourceRate: sourceRate) {
                case .failure(let f):
                    reply(&w, id: f.id, ok: false, error: f.message)
                case .success(let settings):
                    var next = configuration
                    next.streams[named: cmd.stream] = settings
                    switch apply(next) {
                    case .success(let summary):
                        reply(&w, id: cmd.id, ok: true, error: nil)
                        w.field("stream", cmd.stream)
                        w.field("enabled", settings.enabled)
                        w.field("rate", settings.rate, fractionDigits: 3)
                        w.field("publish_rate", settings.publishRate, fractionDigits: 3)
                        log.notice("command applied", ["stream": cmd.stream, "enabled": "\(settings.enabled)",
                                                       "rate_hz": "\(settings.rate)", "publish_rate_hz": "\(settings.publishRate)",
                                                       "changed": summary])
                    case .failure(let e):
                        reply(&w, id: cmd.id, ok: false, error: e.description)
                    }
                }
            }
        case "events":
            let (id, action) = MotionEventCommand.parse(m.payload)
            if let motionEvents, let action, let problem = motionEvents.perform(action) {
                reply(&w, id: id, ok: false, error: problem)
            } else if motionEvents == nil {
                reply(&w, id: id, ok: false, error: "motion events are off (events.enabled: false)")
            } else if action == nil {
                reply(&w, id: id, ok: false, error: "expected {\"action\": \"set_level\" | \"arm_tamper\" | \"disarm_tamper\"}")
            } else {
                reply(&w, id: id, ok: true, error: nil)
                w.field("action", action!)
            }
        case "mount":
            switch MountCommand.parse(m.payload) {
            case .failure(let f):
                reply(&w, id: f.id, ok: false, error: f.message)
            case .success(let cmd):
                guard let pipeline else { reply(&w, id: cmd.id, ok: false, error: "the pipeline is not running"); break }
                guard let r = mountControl?.handle(cmd, configuration: configuration, pipeline: pipeline,
                                                   sourceRate: report?.sourceConfiguration.rate ?? configuration.source.rate,
                                                   hasAccelerometer: report?.source.sensors.contains(.accelerometer) ?? false,
                                                   now: MonotonicClock.nowNanos()) else { return }   // answered by poll
                reply(&w, id: r.id, ok: r.error == nil, error: r.error)
                r.writeFields(into: &w)
                if r.error == nil { announce(configuration, logRates: false) }
            }
        case "calibrate":
            switch CalibrationCommand.parse(m.payload) {
            case .failure(let f):
                reply(&w, id: f.id, ok: false, error: f.message)
            case .success(let cmd):
                if let problem = startGyroCalibration(cmd) {
                    reply(&w, id: cmd.id, ok: false, error: problem)
                } else {
                    // The result follows on the same topic when the run ends.
                    reply(&w, id: cmd.id, ok: true, error: nil)
                    w.field("action", cmd.action)
                    w.field("state", "started")
                    w.field("duration_s", cmd.duration, fractionDigits: 1)
                }
            }
        default:
            reply(&w, id: nil, ok: false, error: "unknown command '\(name)'; available: stream, events, mount, calibrate")
        }
        w.endObject()
        if TopicLayout.isValidPublishTopic(replyTopic) {
            _ = try? client.publish(topic: replyTopic, payload: w.buffer, qos: 1, retain: false)
        }
    }

    /// The answer to a `cmd/mount` learning that took samples (on `cmd/mount/result`).
    func publishMountReply(_ r: MountControl.Reply) {
        if r.error == nil { announce(configuration, logRates: false) }
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        reply(&w, id: r.id, ok: r.error == nil, error: r.error)
        r.writeFields(into: &w)
        w.endObject()
        _ = try? client.publish(topic: topics.commandResult("mount"), payload: w.buffer, qos: 1, retain: false)
    }

    /// Starts a gyro calibration on the running service; the reason when it cannot.
    func startGyroCalibration(_ cmd: CalibrationCommand) -> String? {
        guard gyroCalibration == nil else { return "a gyro calibration is already running" }
        guard let r = report, r.source.sensors.contains(.gyroscope) else { return "the source has no gyroscope" }
        guard let service else { return "the pipeline is not running" }
        let run = GyroCalibrationRun(command: cmd, sourceRate: r.sourceConfiguration.rate, mount: mountControl?.current ?? .identity)
        do {
            let id = try service.addConsumer(run, schedule: GyroCalibrationRun.schedule)
            gyroCalibration = (run, service, id, MonotonicClock.nowNanos())
            log.notice("gyro calibration started; keep the device still", ["duration_s": "\(cmd.duration)"])
            return nil
        } catch {
            return "cannot read the gyroscope: \(error)"
        }
    }

    /// Ends a gyro calibration that has its samples (or ran out of time: the pipeline was
    /// restarted or the source stalled): keeps the bias in the calibration file, restarts the
    /// pipeline so fusion uses it, and answers on `cmd/calibrate/result`.
    func finishGyroCalibrationIfDue(now: UInt64) {
        guard let g = gyroCalibration else { return }
        // (`now` was taken before this loop's commands, so it can be older than the start.)
        let timedOut = now > g.startNanos && Double(now - g.startNanos) * 1e-9 > g.run.command.duration * 2 + 5
        guard g.run.isComplete || timedOut else { return }
        gyroCalibration = nil
        g.service.removeConsumer(g.consumer)
        var w = JSONWriter(capacity: 512)
        w.beginObject()
        let starved = !g.run.isComplete
        let outcome: Result<GyroscopeCalibrator.Result, GyroscopeCalibrator.Failure> = starved ? .failure(.tooFewSamples(0)) : g.run.result()
        let remounted = mountControl.map { $0.current != g.run.mount } ?? false
        switch outcome {
        case .failure(let f):
            let problem = starved ? "too few samples arrived (the source stalled or was restarted)" : f.description
            reply(&w, id: g.run.command.id, ok: false, error: problem)
            calibrationPage.flow.gyroFinished(.failure(.init(description: problem)))
        case .success where remounted:
            let problem = "the mount changed during the calibration (cmd/mount); send the command again"
            reply(&w, id: g.run.command.id, ok: false, error: problem)
            calibrationPage.flow.gyroFinished(.failure(.init(description: problem)))
        case .success(let fit):
            let path = FusionSetup.calibrationPath(configuration)
            // Measured in board axes; the file keeps chip axes (valid under any later mount).
            let chipBias = SensorCalibration.chipGyroBias(fit.bias, mount: g.run.mount)
            do throws(FileError) {
                try GyroCalibrationRun.keep(bias: chipBias, path: path, sensor: FusionSetup.calibrationSensor(configuration))
                reply(&w, id: g.run.command.id, ok: true, error: nil)
                w.field("action", g.run.command.action)
                w.field("state", "done")
                w.key("bias_dps")
                w.beginArray()
                for v in [chipBias.x, chipBias.y, chipBias.z] { w.value(v * 180 / .pi, fractionDigits: 4) }
                w.endArray()
                w.key("board_bias_dps")
                w.beginArray()
                for v in [fit.bias.x, fit.bias.y, fit.bias.z] { w.value(v * 180 / .pi, fractionDigits: 4) }
                w.endArray()
                w.field("noise_dps", fit.noise * 180 / .pi, fractionDigits: 4)
                w.field("samples", fit.samples)
                w.field("file", path)
                log.notice("gyro calibration kept; restarting the pipeline to apply it", ["file": path, "samples": "\(fit.samples)"])
                _ = apply(configuration, restartPipeline: true)
                var kept = fit
                kept.bias = chipBias   // the page shows what the file keeps, as bias_dps above
                calibrationPage.flow.gyroFinished(.success(kept))
            } catch {
                reply(&w, id: g.run.command.id, ok: false, error: "cannot write \(path): \(error)")
                calibrationPage.flow.gyroFinished(.failure(.init(description: "cannot write \(path): \(error)")))
            }
        }
        w.endObject()
        _ = try? client.publish(topic: topics.commandResult("calibrate"), payload: w.buffer, qos: 1, retain: false)
    }

    func reply(_ w: inout JSONWriter, id: String?, ok: Bool, error: String?) {
        if let id { w.field("id", id) }
        w.field("ok", ok)
        if let error {
            w.field("error", error)
            log.warning("command refused", ["error": error])
        }
    }
}
