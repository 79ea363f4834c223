/// `debug:` — test aids; leave at their defaults in production.
public struct DebugSettings: Sendable, Equatable {
    /// `synthetic_events_per_minute`: publish this many synthetic events per minute on
    /// `<topic_prefix>/events/synthetic` through the event path (spool, QoS 1, PUBACK) — for
    /// fault-injection tests until real activity events exist. 0 (off) … 60000.
    public var syntheticEventsPerMinute: Double

    public init(syntheticEventsPerMinute: Double = 0) { self.syntheticEventsPerMinute = syntheticEventsPerMinute }
}
