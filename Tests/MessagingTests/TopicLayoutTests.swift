import Testing
@testable import Messaging

@Suite struct TopicLayoutTests {
    @Test func layoutBuildsTopicsUnderThePrefix() throws {
        let t = try TopicLayout(prefix: "edgemotion/board-7")
        #expect(t.status == "edgemotion/board-7/status")
        #expect(t.sensor("accelerometer") == "edgemotion/board-7/sensor/accelerometer")
    }
}
