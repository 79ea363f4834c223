import MotionCore

extension AgentConfiguration {
    /// Checks that involve more than one key; each problem is reported at the key the user most
    /// likely has to change.
    func checkCombinations(with reader: inout ConfigReader) {
        if source.kind == .replay, source.replay.file == nil, !reader.isPresent("source.replay.file") {
            reader.report("source.replay.file", at: reader.mark(of: "source.type"),
                          "required when source.type is replay: the recording to play (.emr, CSV or CSV.gz)")
        }
        checkStreams(with: &reader)
        checkChip(with: &reader)
        checkFusion(with: &reader)
        checkMQTT(with: &reader)
    }

    private func checkStreams(with reader: inout ConfigReader) {
        let named = [("accelerometer", streams.accelerometer), ("gyroscope", streams.gyroscope),
                     ("magnetometer", streams.magnetometer), ("motion", streams.motion)]
        for (name, stream) in named where stream.enabled {
            let path = "streams." + name
            if reader.isPresent(path + ".rate"), stream.rate > source.rate {
                reader.report(path + ".rate", "\(hz(stream.rate)) is above source.rate (\(hz(source.rate))); use at most the source rate, or 0 to follow it")
                continue
            }
            let rate = stream.effectiveRate(sourceRate: source.rate)
            if let problem = stream.rateProblem(sourceRate: source.rate) {
                let publishPath = reader.isPresent(path + ".publish_rate") ? path + ".publish_rate"
                    : reader.isPresent(path + ".rate") ? path + ".rate" : "source.rate"
                if stream.publishRate > rate {
                    reader.report(publishPath, "publish_rate \(hz(stream.publishRate)) is above the \(name) stream's rate \(hz(rate)); publish_rate must be ≤ rate (each message carries rate/publish_rate samples)")
                } else {
                    reader.report(publishPath, problem)
                }
            }
        }
    }

    private func checkChip(with reader: inout ConfigReader) {
        let chip = source.i2c.chip
        if source.i2c.gyroRangeDPS == 125, chip == "mpu6050" || chip == "mpu9250", reader.isPresent("source.i2c.gyro_range_dps") {
            reader.report("source.i2c.gyro_range_dps", "125 °/s is not supported by the \(chip); allowed: 250, 500, 1000, 2000")
        }
    }

    private func checkFusion(with reader: inout ConfigReader) {
        if (fusion.latitude == nil) != (fusion.longitude == nil) {
            let missing = fusion.latitude == nil ? "fusion.latitude" : "fusion.longitude"
            let given = fusion.latitude == nil ? "fusion.longitude" : "fusion.latitude"
            reader.report(missing, at: reader.mark(of: given), "required together with \(given.split(separator: ".").last!): give both or neither")
        }
        let frame = fusion.referenceFrame
        // xTrueNorthZVertical without a location is not an error (Core Motion's behaviour): the
        // agent runs in magnetic north, says so in every payload's `frame` and announces
        // `trueNorthNotAvailable` once (MovementAdvisor).
        if frame == .xMagneticNorthZVertical || frame == .xTrueNorthZVertical {
            var lacking: String?
            switch source.kind {
            case .simulator where !source.simulator.magnetometer: lacking = "the simulator has magnetometer: false"
            case .i2c where source.i2c.chip != "mpu9250": lacking = "the \(source.i2c.chip) has no magnetometer"
            default: break
            }
            if let lacking {
                reader.report("fusion.reference_frame", "\(frame.rawValue) needs a magnetometer, but \(lacking); use xArbitraryZVertical or xArbitraryCorrectedZVertical")
            }
        }
    }

    private func checkMQTT(with reader: inout ConfigReader) {
        if mqtt.password != nil, mqtt.passwordFile != nil {
            reader.report("mqtt.password_file", "give either password or password_file, not both")
        }
        if mqtt.password != nil || mqtt.passwordFile != nil, mqtt.username == nil, !reader.isPresent("mqtt.username") {
            let key = mqtt.password != nil ? "mqtt.password" : "mqtt.password_file"
            reader.report("mqtt.username", at: reader.mark(of: key), "required when a password is set")
        }
        if let tls = mqtt.tls, (tls.certFile == nil) != (tls.keyFile == nil) {
            let missing = tls.certFile == nil ? "mqtt.tls.cert_file" : "mqtt.tls.key_file"
            let given = tls.certFile == nil ? "mqtt.tls.key_file" : "mqtt.tls.cert_file"
            reader.report(missing, at: reader.mark(of: given), "a client certificate needs both cert_file and key_file")
        }
    }
}

/// `200 Hz`, `12.5 Hz`.
func hz(_ value: Double) -> String {
    let text = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    return text + " Hz"
}
