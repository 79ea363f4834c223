// Compiled into AgentTests (FuzzCorpusTests' `http` replayer) and into the libFuzzer `http` target
// (scripts/fuzz lists this file; there the Dashboard sources are in the same module).
#if canImport(Glibc)
import Glibc
#endif
#if !EDGEMOTION_FUZZ
import Dashboard
#endif

/// The `http` fuzz target's two dashboard servers (without and with basic auth) and its raw
/// socket exchange: one copy for the fuzzer and its corpus replayer.
enum HTTPFuzzServers {
    static let shared: [HTTPServer] = [make(auth: false), make(auth: true)]

    static func make(auth: Bool) -> HTTPServer {
        var o = HTTPServer.Options(listen: HTTPListenAddress(host: "127.0.0.1", port: 0))
        o.timeoutSeconds = 1
        if auth { o.basicAuth = ("edge", "motion") }
        return try! HTTPServer(options: o) { r in
            r.path == "/" ? .body(status: 200, contentType: "text/plain", bytes: Array("ok\n".utf8)) : .notFound()
        }
    }

    /// Sends `bytes` to 127.0.0.1:`port`, half-closes, and returns what came back (≤ 64 KiB, ≤ 2 s).
    static func exchange(_ port: UInt16, _ bytes: [UInt8]) -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0)
        defer { close(fd) }
        // Closed with a reset, not into TIME_WAIT: ~1000 exchanges a second would otherwise use up
        // the ephemeral ports within half a minute and `connect` would fail (not the server's fault).
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        precondition(ok == 0, "the server stopped accepting connections")
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while out.count < 65536, poll(&p, 1, 2000) > 0 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            out += buffer[..<n]
        }
        return out
    }
}
