import Foundation
import Synchronization

/// A stand-in for an MQTT 3.1.1-only broker, below the transport seam: it accepts TCP
/// connections on a free loopback port, reads the CONNECT packet, and — when it asks for a
/// protocol level other than 4 (3.1.1) — answers as such a broker does, CONNACK return code 1
/// "unacceptable protocol version", then closes. A level-4 CONNECT gets CONNACK 0 and the
/// connection is held open until the peer closes it. With `answersUnknownVersions: false` it
/// closes such a connection without a word, as some 3.1.1-only brokers do.
public final class MQTT311OnlyListener: @unchecked Sendable {
    // @unchecked Sendable: `fd` and `port` are set once in init; the accept thread only reads them,
    // and the counters are atomics.
    public let port: Int
    private let fd: Int32
    private let stopping = Atomic<Bool>(false)
    /// Protocol levels of the CONNECT packets received, in order.
    private let levels = Mutex<[UInt8]>([])
    public var protocolLevelsSeen: [UInt8] { levels.withLock { $0 } }
    public var url: String { "mqtt://127.0.0.1:\(port)" }

    private let answersUnknownVersions: Bool

    public init(answersUnknownVersions: Bool = true) throws {
        self.answersUnknownVersions = answersUnknownVersions
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else { throw MosquittoBrokerError("fake listener: bind/listen failed: errno \(errno)") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let t = Thread { [self] in acceptLoop() }
        t.start()
    }

    deinit { stop() }

    public func stop() {
        if stopping.exchange(true, ordering: .relaxed) { return }
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private func acceptLoop() {
        while !stopping.load(ordering: .relaxed) {
            let c = accept(fd, nil, nil)
            if c < 0 { if stopping.load(ordering: .relaxed) { return }; continue }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var buf = [UInt8](repeating: 0, count: 512)
            let n = buf.withUnsafeMutableBytes { recv(c, $0.baseAddress, 512, 0) }
            // Fixed header 0x10, remaining length (1 byte here), then "\0\4MQTT" and the level.
            guard n >= 9, buf[0] == 0x10 else { close(c); continue }
            var i = 1
            while i < n, buf[i] & 0x80 != 0 { i += 1 }
            let levelAt = i + 1 + 6
            guard levelAt < n else { close(c); continue }
            let level = buf[levelAt]
            levels.withLock { $0.append(level) }
            if level != 4 && !answersUnknownVersions { close(c); continue }
            let reply: [UInt8] = [0x20, 0x02, 0x00, level == 4 ? 0x00 : 0x01]
            _ = reply.withUnsafeBytes { send(c, $0.baseAddress, 4, Int32(MSG_NOSIGNAL)) }
            if level != 4 { close(c); continue }
            // Hold a 3.1.1 connection until the peer goes (read until EOF or error).
            Thread {
                var sink = [UInt8](repeating: 0, count: 512)
                while sink.withUnsafeMutableBytes({ recv(c, $0.baseAddress, 512, 0) }) > 0 {}
                close(c)
            }.start()
        }
    }
}
