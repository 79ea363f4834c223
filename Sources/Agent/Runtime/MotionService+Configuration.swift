import EdgeMotion
import MotionCore
import Sensors

// The agent's configuration file as a way to build the library's managers: one helper so that
// `edgemotion run` and a program using the library open the same hardware the same way.

extension MotionService {
    /// The service a configuration describes: its source (`source:`), rates, filter and frame.
    /// With `outputs` (the agent's MQTT publisher) the configured `streams:` go to them; without,
    /// every static stream is off and the managers' runtime consumers are the only clients.
    public static func make(configuration c: AgentConfiguration, outputs: [any PipelineOutput] = []) throws -> MotionService {
        let source = try SourceFactory.makeSource(c.source, configurationFile: c.sourceFile, streams: c.streams)
        var pipeline = PipelineConfiguration(c)
        if outputs.isEmpty {
            pipeline.accelerometer = .disabled
            pipeline.gyroscope = .disabled
            pipeline.magnetometer = .disabled
            pipeline.motion = .disabled
        }
        return MotionService(source: source, configuration: pipeline, outputs: outputs)
    }
}

extension MotionManager {
    /// A manager on the hardware a configuration file names, exactly as `edgemotion run` opens
    /// it. Throws `ConfigError` (file, line, key) or the source's error.
    public convenience init(configurationFile path: String) throws {
        self.init(service: try MotionService.make(configuration: ConfigurationLoader.load(path: path)))
    }
}
