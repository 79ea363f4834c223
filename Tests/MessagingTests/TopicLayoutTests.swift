import Testing
@testable import Messaging

@Suite struct TopicLayoutTests {
    @Test func layoutBuildsEveryTopicUnderThePrefix() throws {
        let t = try TopicLayout(prefix: "edgemotion/board-7")
        #expect(t.status == "edgemotion/board-7/status")
        #expect(t.meta == "edgemotion/board-7/meta")
        #expect(t.motion == "edgemotion/board-7/motion")
        #expect(t.activity == "edgemotion/board-7/activity")
        #expect(t.pedometer == "edgemotion/board-7/pedometer")
        #expect(t.stats == "edgemotion/board-7/stats")
        #expect(t.health == "edgemotion/board-7/health")
        #expect(t.sensor("accelerometer") == "edgemotion/board-7/sensor/accelerometer")
        for topic in t.fixedTopics + [t.sensor("gyroscope")] {
            try TopicLayout.validatePublishTopic(topic)
        }
    }

    @Test(arguments: ["edgemotion/+/x", "edgemotion/#", "/edgemotion", "edgemotion/", "a//b", "", "$SYS/x", "a\u{0}b"])
    func invalidPrefixesAreRejectedNamingThePrefix(_ prefix: String) {
        do {
            let t = try TopicLayout(prefix: prefix)
            Issue.record("accepted \(t.prefix)")
        } catch {
            #expect(error.kind == .invalidTopic)
            #expect(error.description.contains(prefix.isEmpty ? "empty" : prefix))
        }
    }

    @Test(arguments: ["a", "a/b/c", "edgemotion/dev 1/ünïcode", "x/$y"])
    func validPublishTopicsPass(_ topic: String) throws {
        try TopicLayout.validatePublishTopic(topic)
    }

    @Test(arguments: ["a/+", "#", "a/b#", "a//b", "/a", "a/", ""])
    func invalidPublishTopicsFail(_ topic: String) {
        #expect(throws: MQTTError.self) { try TopicLayout.validatePublishTopic(topic) }
    }

    @Test(arguments: ["a/+/c", "a/#", "#", "+", "+/+/status", "homeassistant/status"])
    func validSubscriptionPatternsPass(_ p: String) throws {
        try TopicLayout.validateSubscriptionPattern(p)
    }

    @Test(arguments: ["a/#/c", "a/b#", "a+/b", "a//b", "", "#/a"])
    func invalidSubscriptionPatternsFail(_ p: String) {
        #expect(throws: MQTTError.self) { try TopicLayout.validateSubscriptionPattern(p) }
    }

    @Test func levelValidationRejectsSeparatorsAndWildcards() throws {
        try TopicLayout.validateLevel("accelerometer")
        for bad in ["", "a/b", "+", "x#"] {
            #expect(throws: MQTTError.self) { try TopicLayout.validateLevel(bad) }
        }
    }
}
