import CMosquitto

/// An MQTT 5 property list for one outgoing packet (libmosquitto's `mosquitto_property *`), built
/// with named property identifiers instead of bare numbers (also used to read incoming ones). Free it with `free()` after use.
struct MQTTProperties {
    /// Property identifiers (MQTT 5.0, section 2.2.2.2).
    enum Identifier: Int32 {
        /// 0x08, UTF-8 string: where the responder should publish its answer.
        case responseTopic = 8
        /// 0x09, binary data: echoed in the response so the requester can match it.
        case correlationData = 9
        /// 0x25, byte (in CONNACK): 0 when the broker does not keep retained messages.
        case retainAvailable = 37
    }

    /// The list, nil while empty.
    private(set) var list: OpaquePointer?

    /// Adds a string property. The corresponding C function is `mosquitto_property_add_string`.
    mutating func add(_ id: Identifier, string: String, context: String) throws(MQTTError) {
        let rc = string.withCString { mosquitto_property_add_string(&list, id.rawValue, $0) }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(mosquittoCode: rc, context: context) }
    }

    /// Adds a binary property (at most 65535 bytes). The corresponding C function is
    /// `mosquitto_property_add_binary`.
    mutating func add(_ id: Identifier, bytes: [UInt8], context: String) throws(MQTTError) {
        guard bytes.count <= Int(UInt16.max) else {
            throw MQTTError(.invalidOptions, context: context, detail: "property \(id) is \(bytes.count) bytes; MQTT allows at most 65535")
        }
        let rc = bytes.withUnsafeBytes {
            mosquitto_property_add_binary(&list, id.rawValue, $0.baseAddress, UInt16(truncatingIfNeeded: $0.count))
        }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError(mosquittoCode: rc, context: context) }
    }

    /// Frees the list. The corresponding C function is `mosquitto_property_free_all`.
    mutating func free() { mosquitto_property_free_all(&list) }
}
