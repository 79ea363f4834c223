import Agent
import EdgeMotion
import Messaging
import MotionCore

/// A `PipelineOutput` that does everything the agent's `MQTTPublisher` does per batch except the
/// `mosquitto_publish` call: encodes each batch into one preallocated `JSONWriter`.
final class EncodingOutput: PipelineOutput, @unchecked Sendable {
    private var writer = JSONWriter(capacity: 1 << 16)
    private var sequences: [UInt64] = [0, 0, 0, 0]
    private let clock = WallClockMapping.current()
    private(set) var bytes = 0
    private(set) var batches = 0

    func pipeline(didProduce samples: Span<IMUSample>, of stream: SensorStream, interval: Double) {
        let k = stream == .accelerometer ? 0 : stream == .gyroscope ? 1 : 2
        SensorBatchEncoder.encode(samples, stream: stream, sequence: sequences[k], interval: interval,
                                  clock: clock, into: &writer)
        sequences[k] &+= 1
        bytes &+= writer.count
        batches &+= 1
    }

    func pipeline(didProduce motion: Span<DeviceMotion>, interval: Double) {
        MotionBatchEncoder.encode(motion, sequence: sequences[3], interval: interval, clock: clock, into: &writer)
        sequences[3] &+= 1
        bytes &+= writer.count
        batches &+= 1
    }
}
