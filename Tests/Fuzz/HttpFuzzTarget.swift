// libFuzzer target `http`: arbitrary bytes sent as one raw request to the dashboard's HTTPServer
// (libmicrohttpd's parser, the path/method checks, basic auth, POST bodies: the calibration
// page's /api/calibration route with its Content-Type/Origin/size checks) on a loopback socket, and the first
// line parsed as an `http.listen` value (HTTPListenAddress). An odd last byte picks the server
// with basic auth. Every response must be HTTP; every 64 inputs the server must still answer a
// plain GET. Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package.
// The normal suite replays Tests/Fuzz/corpus/http through the same calls (FuzzCorpusTests).
#if canImport(Glibc)
import Glibc
#endif

private func makeServer(auth: Bool) -> HTTPServer {
    var o = HTTPServer.Options(listen: HTTPListenAddress(host: "127.0.0.1", port: 0))
    o.timeoutSeconds = 1
    if auth { o.basicAuth = ("edge", "motion") }
    // As the dashboard's: one POST route with a small JSON body (the calibration page's).
    o.postPaths = ["/api/calibration"]
    o.maximumBodyBytes = 4096
    return try! HTTPServer(options: o) { r in
        if r.method == "POST" {
            precondition(r.path == "/api/calibration" && r.body.count <= 4096, "a POST the server should have refused")
            return .body(status: 202, contentType: "application/json", bytes: Array("{\"bytes\":\(r.body.count)}".utf8))
        }
        return r.path == "/" ? .body(status: 200, contentType: "text/plain", bytes: Array("ok\n".utf8)) : .notFound()
    }
}
private let servers = [makeServer(auth: false), makeServer(auth: true)]
nonisolated(unsafe) private var inputs = 0

/// Sends `bytes` to 127.0.0.1:`port`, half-closes, and returns what came back (≤ 64 KiB, ≤ 2 s).
private func exchange(_ port: UInt16, _ bytes: [UInt8]) -> [UInt8] {
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

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let line = bytes.prefix { $0 != 10 && $0 != 13 }.prefix(300)
    _ = try? HTTPListenAddress(parsing: String(decoding: line, as: UTF8.self))
    let server = servers[Int((bytes.last ?? 0) & 1)]
    let reply = exchange(server.port, bytes)
    precondition(reply.isEmpty || reply.starts(with: Array("HTTP/1.".utf8)), "not an HTTP response")
    inputs += 1
    if inputs % 64 == 0 {
        let check = exchange(servers[0].port, Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        precondition(check.starts(with: Array("HTTP/1.1 200".utf8)), "the server no longer answers a plain GET")
    }
    return 0
}
