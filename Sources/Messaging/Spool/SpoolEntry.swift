/// One message kept in the spool until the broker acknowledged it.
public struct SpoolEntry: Sendable, Equatable {
    /// Spool-wide sequence number, increasing across restarts (1, 2, …).
    public var id: UInt64
    public var topic: String
    public var payload: [UInt8]
    /// MQTT QoS the message is published with (1 for events).
    public var qos: Int
    public var retain: Bool

    public init(id: UInt64, topic: String, payload: [UInt8], qos: Int, retain: Bool) {
        self.id = id
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }

    /// Bytes this entry occupies on disk (record header + body).
    var recordBytes: Int { SpoolFormat.recordHeaderBytes + SpoolFormat.messageBodyFixedBytes + topic.utf8.count + payload.count }
}
