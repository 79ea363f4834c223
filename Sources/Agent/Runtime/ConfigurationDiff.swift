import Messaging

/// What a reload (SIGHUP, `cmd/stream`, a kept calibration) must redo, decided from the running
/// configuration and the new one alone: a value, computed without touching anything that runs,
/// so every decision can be checked with two hand-written configurations
/// (`ConfigurationDiffTests`). `AgentRunner.apply` carries it out.
struct ConfigurationDiff: Equatable, Sendable {
    /// What becomes of the running pipeline (source, fusion, publishers of streams and events).
    enum PipelineAction: Equatable, Sendable {
        /// Nothing the pipeline was built from changed.
        case keep
        /// Only stream schedules changed (`enabled`, `rate`, `publish_rate`): the running pipeline
        /// takes new schedules, the source stays open (`first_sample`, `samples_acquired` go on,
        /// a replay or the simulator does not start over).
        case retune
        /// Source, fusion, stream routes (topic, QoS, retain, format), activity, Home Assistant or
        /// events changed: the pipeline parts stop in reverse order and start again on a new
        /// source (a gap of a few samples; `seq` continues).
        case restart
    }

    /// Both configurations are equal (and no restart was asked for): nothing to do at all.
    let unchanged: Bool
    /// A new MQTT client: `mqtt`, the device id or `control` changed.
    let reconnectBroker: Bool
    let pipeline: PipelineAction
    /// The `auxiliary:` devices are reopened (their settings or, while they run, the topic prefix changed).
    let reopenAuxiliary: Bool
    /// The log threshold changes in place.
    let retuneLogging: Bool
    /// The synthetic event source (`debug:`) is replaced.
    let replaceSyntheticEvents: Bool
    /// Sections that changed but take effect only at the next start: `outbox`, `spool`,
    /// `state_directory`, `process` (said once in the log).
    let deferredToNextStart: [String]

    /// - Parameters:
    ///   - auxiliaryRunning: whether `auxiliary:` devices are open now (a new topic prefix reopens them).
    ///   - restartPipeline: restart the pipeline even when nothing changed (a new calibration file).
    init(from old: AgentConfiguration, to new: AgentConfiguration, auxiliaryRunning: Bool = false, restartPipeline: Bool = false) {
        unchanged = new == old && !restartPipeline
        let oldID = old.device.resolvedID(), newID = new.device.resolvedID()
        reconnectBroker = !unchanged && (new.mqtt != old.mqtt || newID != oldID || new.control != old.control)

        let oldPrefix = old.mqtt.resolvedTopicPrefix(deviceID: oldID)
        let newPrefix = new.mqtt.resolvedTopicPrefix(deviceID: newID)
        // The publisher is a static output of the pipeline: any change of a stream's route restarts it.
        let routesChanged: Bool
        if let a = try? TopicLayout(prefix: oldPrefix), let b = try? TopicLayout(prefix: newPrefix) {
            routesChanged = AgentRunner.routes(new, b) != AgentRunner.routes(old, a)
        } else {
            routesChanged = oldPrefix != newPrefix   // an invalid prefix is refused before this matters
        }
        let pipelineChanged = new.source != old.source || new.fusion != old.fusion || new.streams != old.streams
            || routesChanged || new.activity != old.activity || new.homeAssistant != old.homeAssistant
            || new.events != old.events || restartPipeline
        if unchanged || !pipelineChanged {
            pipeline = .keep
        } else if !restartPipeline && Self.onlySchedulesChanged(new, old, routesChanged: routesChanged) {
            pipeline = .retune
        } else {
            pipeline = .restart
        }

        reopenAuxiliary = !unchanged && (new.auxiliary != old.auxiliary || (auxiliaryRunning && newPrefix != oldPrefix))
        retuneLogging = new.logging != old.logging
        replaceSyntheticEvents = new.debug != old.debug
        var deferred: [String] = []
        if new.outbox != old.outbox { deferred.append("outbox") }
        if new.spool != old.spool { deferred.append("spool") }
        if new.stateDirectory != old.stateDirectory { deferred.append("state_directory") }
        if new.process != old.process { deferred.append("process") }
        deferredToNextStart = deferred
    }

    /// Whether the streams differ only in their schedules (`enabled`, `rate`, `publish_rate`) and
    /// nothing else the pipeline was built from changed. `routesChanged`: topics, QoS, retain or format.
    static func onlySchedulesChanged(_ new: AgentConfiguration, _ old: AgentConfiguration, routesChanged: Bool) -> Bool {
        guard !routesChanged, new.source == old.source, new.fusion == old.fusion, new.activity == old.activity,
              new.homeAssistant == old.homeAssistant, new.events == old.events, new.streams != old.streams,
              new.processingThread == old.processingThread else { return false }
        var a = new.streams, b = old.streams
        for k in [\StreamSettingsSet.accelerometer, \.gyroscope, \.magnetometer, \.motion] {
            a[keyPath: k].enabled = true; a[keyPath: k].rate = 0; a[keyPath: k].publishRate = 1
            b[keyPath: k].enabled = true; b[keyPath: k].rate = 0; b[keyPath: k].publishRate = 1
        }
        return a == b
    }
}
