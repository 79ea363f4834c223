extension AuxiliarySettings {
    static let keys = ["uri", "devices", "rate", "publish_rate", "qos", "retain"]

    init(reading section: ConfigSection?, with reader: inout ConfigReader) {
        self.init()
        uri = reader.string(section, "uri", default: uri)
        devices = reader.stringList(section, "devices")
        rate = reader.double(section, "rate", default: rate, unit: "Hz", allowed: "0.01 ≤ rate ≤ 10") { $0 >= 0.01 && $0 <= 10 }
        publishRate = reader.double(section, "publish_rate", default: publishRate, unit: "Hz",
                                    allowed: "0.01 ≤ publish_rate ≤ 10") { $0 >= 0.01 && $0 <= 10 }
        if publishRate > rate, let section, let node = section["publish_rate"] {
            reader.report(section.path("publish_rate"), at: node.mark,
                          "publish_rate \(publishRate) Hz is above rate \(rate) Hz; publish_rate must be ≤ rate (each message is the mean of rate/publish_rate readings)")
        }
        qos = reader.integer(section, "qos", default: qos, allowed: "0, 1 or 2") { (0...2).contains($0) }
        retain = reader.bool(section, "retain", default: retain)
    }
}
