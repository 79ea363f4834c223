/// What a reload must redo, decided from the old and new configuration.
enum ReloadPlan {
    /// Whether the streams differ only in their schedules (`enabled`, `rate`, `publish_rate`) and
    /// nothing else the pipeline was built from changed: then the running pipeline takes new
    /// schedules and the source stays open (`first_sample` and `samples_acquired` continue, a
    /// replay or the simulator does not start over). `routesChanged`: topics, QoS, retain or format.
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
