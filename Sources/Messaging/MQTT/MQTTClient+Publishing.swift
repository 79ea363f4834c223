#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Logging
import Platform
import Synchronization

extension MQTTClient {
    // MARK: Publishing and subscribing

    /// Publishes a message. Thread-safe; never waits for the network: over plain TCP the packet is
    /// written to the (non-blocking) socket on the calling thread, and what the socket cannot take
    /// now is finished by the network thread; over TLS libmosquitto queues it and wakes that thread.
    /// `flush: false` only queues it: a caller publishing several messages in a row then calls
    /// `flush()` once.
    ///
    /// QoS 0 while disconnected fails with `.notConnected` (nothing is queued). QoS ≥ 1 while
    /// disconnected is queued by libmosquitto **without bound** and resent after reconnect — callers
    /// that may face long outages keep their own bounded buffer and publish only while connected.
    /// Over MQTT 5, when the broker's CONNACK says `retain_available = 0`, libmosquitto silently clears
    /// `retain`; this is logged once.
    /// - Returns: the message id (`mid`) later passed to `onPublishAcknowledged`.
    /// The corresponding C function is `mosquitto_publish`.
    @discardableResult
    public func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
                        flush flushNow: Bool = true) throws(MQTTError) -> Int32 {
        try send(topic: topic, payload: payload, qos: qos, retain: retain, properties: nil, flush: flushNow)
    }

    /// The one publish path (every `publish…` ends here): checks the QoS, records a QoS ≥ 1
    /// publish as outstanding (so `disconnect` waits for its acknowledgement and a refusal names
    /// its topic), counts it, and maps libmosquitto's errors. `properties`: an MQTT 5 property
    /// list, or nil.
    func send(topic: String, payload: UnsafeRawBufferPointer, qos: Int, retain: Bool,
                      properties: OpaquePointer?, flush flushNow: Bool) throws(MQTTError) -> Int32 {
        guard (0...2).contains(qos) else {
            publishFailureCount.add(1, ordering: .relaxed)
            throw MQTTError(.invalidOptions, context: context + " topic " + topic, detail: "QoS \(qos) must be 0, 1 or 2")
        }
        if retain && retainUnavailable.load(ordering: .relaxed) && !retainWarningLogged.exchange(true, ordering: .relaxed) {
            logger.warning("broker does not support retain (retain_available=0); libmosquitto clears the retain flag silently — status and discovery topics will not persist",
                           ["broker": context, "topic": topic])
        }
        var mid: Int32 = 0
        if qos > 0 { outstandingCount.add(1, ordering: .releasing) }
        let rc: Int32 = handleState.withLock { st in
            guard st.alive else { return Int32.min }
            let rc = topic.withCString { t in
                // `mosquitto_publish` is this call with no properties.
                mosquitto_publish_v5(handle, &mid, t, Int32(truncatingIfNeeded: payload.count), payload.baseAddress, Int32(qos), retain, properties)
            }
            if rc == MOSQ_ERR_SUCCESS.rawValue && qos > 0 { st.outstanding[mid] = topic }
            return rc
        }
        if qos > 0 && rc != MOSQ_ERR_SUCCESS.rawValue { outstandingCount.subtract(1, ordering: .releasing) }
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            publishFailureCount.add(1, ordering: .relaxed)
            if rc == Int32.min {
                throw MQTTError(.notRunning, context: context + " topic " + topic, detail: "the client was disconnected")
            }
            var e = MQTTError(mosquittoCode: rc, context: context + " topic " + topic)
            if e.kind == .invalidArgument || e.kind == .malformedUTF8 {
                e = MQTTError(.invalidTopic, context: context + " topic " + topic, detail: e.detail)
            }
            throw e
        }
        publishedCount.add(1, ordering: .relaxed)
        if flushNow { flush() }
        return mid
    }

    /// Publishes an MQTT 5 response: `correlationData` (from the request) is attached as the
    /// correlation-data property when this connection speaks MQTT 5; over 3.1.1 the bytes are
    /// published without it (3.1.1 requesters put their own id in the request payload).
    /// The corresponding C function is `mosquitto_publish_v5`.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int, correlationData: [UInt8]?) throws(MQTTError) -> Int32 {
        guard let correlationData, options.protocolVersion == .v5 else {
            return try publish(topic: topic, payload: payload, qos: qos, retain: false)
        }
        var properties = MQTTProperties()
        defer { properties.free() }
        try properties.add(.correlationData, bytes: correlationData, context: context + " topic " + topic)
        return try publish(topic: topic, payload: payload, qos: qos, retain: false, properties: properties)
    }

    /// Publishes a QoS 1 request with MQTT 5 response-topic and correlation-data properties (for
    /// clients of request/response topics and for tests). Over 3.1.1 the properties are dropped.
    /// Counted and awaited like every QoS 1 publish (`statistics`, `disconnect`).
    @discardableResult
    public func publishRequest(topic: String, payload: [UInt8], responseTopic: String, correlationData: [UInt8]) throws(MQTTError) -> Int32 {
        guard options.protocolVersion == .v5 else {
            return try publish(topic: topic, payload: payload, qos: 1, retain: false)
        }
        var properties = MQTTProperties()
        defer { properties.free() }
        try properties.add(.responseTopic, string: responseTopic, context: context + " topic " + topic)
        try properties.add(.correlationData, bytes: correlationData, context: context + " topic " + topic)
        return try publish(topic: topic, payload: payload, qos: 1, retain: false, properties: properties)
    }

    func publish(topic: String, payload: [UInt8], qos: Int, retain: Bool, properties: MQTTProperties) throws(MQTTError) -> Int32 {
        let result = payload.withUnsafeBytes { p -> Result<Int32, MQTTError> in
            do throws(MQTTError) { return .success(try send(topic: topic, payload: p, qos: qos, retain: retain, properties: properties.list, flush: true)) }
            catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Publishes `payload` bytes. See `publish(topic:payload:qos:retain:)`.
    @discardableResult
    public func publish(topic: String, payload: [UInt8], qos: Int = 0, retain: Bool = false) throws(MQTTError) -> Int32 {
        let result = payload.withUnsafeBytes { p -> Result<Int32, MQTTError> in
            do throws(MQTTError) { return .success(try publish(topic: topic, payload: p, qos: qos, retain: retain)) }
            catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Publishes the UTF-8 bytes of `string` (e.g. `online`). See `publish(topic:payload:qos:retain:)`.
    @discardableResult
    public func publish(topic: String, string: String, qos: Int = 0, retain: Bool = false) throws(MQTTError) -> Int32 {
        var s = string
        let result = s.withUTF8 { p -> Result<Int32, MQTTError> in
            do throws(MQTTError) { return .success(try publish(topic: topic, payload: UnsafeRawBufferPointer(p), qos: qos, retain: retain)) }
            catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Publishes a message value. See `publish(topic:payload:qos:retain:)`.
    @discardableResult
    public func publish(_ message: MQTTMessage) throws(MQTTError) -> Int32 {
        try publish(topic: message.topic, payload: message.payload, qos: message.qos, retain: message.retain)
    }

    /// Subscribes to a topic filter (`+` and `#` allowed). Remembered and renewed on every connection;
    /// may be called before `start()`. Messages arrive through `onMessage`.
    /// The corresponding C function is `mosquitto_subscribe`.
    public func subscribe(_ pattern: String, qos: Int) throws(MQTTError) {
        try TopicLayout.validateSubscriptionPattern(pattern)
        guard (0...2).contains(qos) else {
            throw MQTTError(.invalidOptions, context: context + " pattern " + pattern, detail: "QoS \(qos) must be 0, 1 or 2")
        }
        let rc: Int32 = handleState.withLock { st in
            guard st.alive else { return Int32.min }
            st.subscriptions.append((pattern, Int32(qos)))
            guard connectedFlag.load(ordering: .acquiring) else { return MOSQ_ERR_SUCCESS.rawValue }
            return mosquitto_subscribe(handle, nil, pattern, Int32(qos))
        }
        if rc == Int32.min { throw MQTTError(.notRunning, context: context + " pattern " + pattern) }
        flush()
        // NO_CONN: the connection dropped meanwhile; the subscription is renewed on reconnect.
        guard rc == MOSQ_ERR_SUCCESS.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue else {
            throw MQTTError(mosquittoCode: rc, context: context + " pattern " + pattern)
        }
    }
}
