#if canImport(Glibc)
import Glibc
#endif
import CMosquitto
import Logging
import Platform
import Synchronization

extension MQTTClient {
    func installCallbacks() {
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_v5_callback_set(handle) { _, userdata, rc, _, props in
            guard let userdata else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().handleConnack(rc, props)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, userdata, _, _ in
            guard let userdata else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().connectedFlag.store(false, ordering: .releasing)
        }
        // The v5 callback also fires for MQTT 3.1.1 (reason 0); it carries the PUBACK reason code,
        // e.g. 135 "not authorised" when an MQTT 5 broker's ACL refuses the topic.
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reason, _ in
            guard let userdata else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().handlePublished(mid, reason: reason)
        }
        mosquitto_subscribe_callback_set(handle) { _, userdata, _, _, _ in
            guard let userdata else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue()
            client.subscribeAckCount.add(1, ordering: .relaxed)
            client.signal.notifyAll()
        }
        setLibraryLogging(true)
        // The v5 callback also fires for MQTT 3.1.1 connections, with no properties.
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, props in
            guard let userdata, let message else { return }
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().handleMessage(message.pointee, props)
        }
    }

    /// Installs or removes libmosquitto's log callback. With one installed, libmosquitto formats
    /// every log line (debug included: `vsnprintf` and a `malloc` per packet written), while we keep
    /// only errors and warnings for a failure's detail. Over plain TCP it is therefore on only
    /// while connecting (where those details come from); over TLS always (OpenSSL's words).
    func setLibraryLogging(_ on: Bool) {
        guard on else {
            mosquitto_log_callback_set(handle, nil)
            return
        }
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard let userdata, let text, level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING) != 0 else { return }
            let message = String(cString: text)
            Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue().lastLibraryMessage.withLock { $0 = message }
        }
    }

    func handleConnack(_ rc: Int32, _ props: OpaquePointer?) {
        guard rc == 0 else {
            refusalCode.store(rc, ordering: .relaxed)
            return
        }
        if let props {
            var available: UInt8 = 1
            if mosquitto_property_read_byte(props, MQTTProperties.Identifier.retainAvailable.rawValue, &available, false) != nil {
                retainUnavailable.store(available == 0, ordering: .relaxed)
            }
        }
        let n = connectionCount.add(1, ordering: .relaxed).newValue
        connectedFlag.store(true, ordering: .releasing)
        if publishersWrite { setLibraryLogging(false) }
        // Clean sessions forget subscriptions: renew them on every connection.
        let subs = handleState.withLock { $0.subscriptions }
        for s in subs {
            let rc = mosquitto_subscribe(handle, nil, s.pattern, s.qos)
            if rc != MOSQ_ERR_SUCCESS.rawValue {
                logger.warning("subscribe failed", ["broker": context, "pattern": s.pattern,
                                                    "error": MQTTError(mosquittoCode: rc, context: context).description])
            }
        }
        logger.info(n == 1 ? "connected" : "reconnected", ["broker": context, "clientID": options.clientID])
        signal.notifyAll()
        emit(.connected)
    }

    func handlePublished(_ mid: Int32, reason: Int32) {
        acknowledgedCount.add(1, ordering: .relaxed)
        var topic: String?
        if outstandingCount.load(ordering: .acquiring) > 0 {
            topic = handleState.withLock { $0.outstanding.removeValue(forKey: mid) }
            if topic != nil {
                outstandingCount.subtract(1, ordering: .releasing)
                signal.notifyAll()
            }
        }
        if reason >= 0x80 { noteRefusal(topic: topic ?? "?", reason: reason) }
        if reason >= 0x80, let refused = callbacks.withLock({ $0.onPublishRefused }) {
            refused(mid, reason)
        } else if let cb = callbacks.withLock({ $0.onPublishAcknowledged }) {
            cb(mid)
        }
    }

    /// Counts an MQTT 5 refusal (PUBACK/PUBREC reason ≥ 0x80) of a publish on `topic`, whoever
    /// published it (the outbox, `status`, `meta`, a reply), and names each refused topic once in
    /// the log.
    func noteRefusal(topic: String, reason: Int32) {
        let first = refusalState.withLock { r -> Bool in
            let isNew = r.byTopic[topic] == nil
            r.byTopic[topic, default: MQTTPublishRefusals.Topic(reason: reason)].count += 1
            r.byTopic[topic]?.reason = reason
            r.total += 1
            r.last = "broker refused publishes on \(topic): MQTT 5 reason \(reason) (\(MQTTError.pubackReason(reason)))"
            return isNew
        }
        if first {
            logger.warning("the broker refuses publishes on this topic (logged once per topic; counted in stats mqtt_refused)",
                           ["broker": context, "topic": topic, "reason": "\(reason) \(MQTTError.pubackReason(reason))"])
        }
    }

    /// Publishes the broker refused (MQTT 5 reason codes ≥ 0x80), per topic, since `start()`.
    /// Always empty over MQTT 3.1.1, whose brokers acknowledge what their ACL drops, and for
    /// QoS 0, which has no acknowledgement: their delivery is unknowable.
    public var refusals: MQTTPublishRefusals { refusalState.withLock { $0 } }

    func handleMessage(_ m: mosquitto_message, _ props: OpaquePointer?) {
        receivedCount.add(1, ordering: .relaxed)
        guard let cb = callbacks.withLock({ $0.onMessage }) else { return }
        let topic = m.topic.map { String(cString: $0) } ?? ""
        let payload: [UInt8] = m.payloadlen > 0 && m.payload != nil
            ? Array(UnsafeRawBufferPointer(start: m.payload, count: Int(m.payloadlen)))
            : []
        var message = MQTTMessage(topic: topic, payload: payload, qos: Int(m.qos), retain: m.retain)
        if let props {
            var text: UnsafeMutablePointer<CChar>?
            if mosquitto_property_read_string(props, MQTTProperties.Identifier.responseTopic.rawValue, &text, false) != nil, let text {
                message.responseTopic = String(cString: text)
                free(text)
            }
            var data: UnsafeMutableRawPointer?
            var length: UInt16 = 0
            if mosquitto_property_read_binary(props, MQTTProperties.Identifier.correlationData.rawValue, &data, &length, false) != nil {
                message.correlationData = data.map { Array(UnsafeRawBufferPointer(start: $0, count: Int(length))) } ?? []
                free(data)
            }
        }
        cb(message)
    }

    /// Tells the owner, then the attached outbox (both outside the lock).
    func emit(_ state: MQTTConnectionState) {
        let (owner, outbox) = callbacks.withLock { ($0.onConnectionChange, $0.outboxConnectionChange) }
        owner?(state)
        outbox?(state)
    }
}
