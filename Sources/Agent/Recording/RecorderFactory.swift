import EdgeMotion
import MotionCore
import Sensors

/// Builds the file recorder for a configuration and source.
enum RecorderFactory {
    static func store(_ c: AgentConfiguration, directory: String? = nil) -> RecordingStore {
        RecordingStore(directory: directory ?? c.recorder.resolvedDirectory(stateDirectory: c.stateDirectory),
                       limits: c.recorder.limits)
    }

    /// A recorder of the accelerometer stream into `store`, with headers describing `source`.
    static func make(_ c: AgentConfiguration, store: RecordingStore, source: any IMUSource, rateHz: @escaping @Sendable () -> Double) -> FileSensorRecorder {
        let deviceID = c.device.resolvedID()
        let name = source.capabilities.name
        let sensors = source.capabilities.sensors
        let clock = WallClockMapping.current()
        return FileSensorRecorder(store: store, stream: .accelerometer, clock: clock) { created in
            RecordingHeader(deviceID: deviceID, source: name, rateHz: rateHz(), sensors: sensors,
                            utcOffsetNanos: clock.offsetNanos, createdUTCNanos: created)
        }
    }
}
