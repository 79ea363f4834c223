// libFuzzer target `http`: arbitrary bytes sent as one raw request to the dashboard's HTTPServer
// (libmicrohttpd's parser, the path/method checks, basic auth, POST bodies: the calibration
// page's /api/calibration route with its Content-Type/Origin/size checks) on a loopback socket, and the first
// line parsed as an `http.listen` value (HTTPListenAddress). An odd last byte picks the server
// with basic auth. Every response must be HTTP; every 64 inputs the server must still answer a
// plain GET. Built and run by scripts/fuzz (swiftc -sanitize=fuzzer); not part of the package.
// The normal suite replays Tests/Fuzz/corpus/http through the same calls (FuzzCorpusTests); both
// use the servers and the socket exchange of Tests/AgentTests/HTTPFuzzServers.swift.
#if canImport(Glibc)
import Glibc
#endif

nonisolated(unsafe) private var inputs = 0

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let line = bytes.prefix { $0 != 10 && $0 != 13 }.prefix(300)
    _ = try? HTTPListenAddress(parsing: String(decoding: line, as: UTF8.self))
    let server = HTTPFuzzServers.shared[Int((bytes.last ?? 0) & 1)]
    let reply = HTTPFuzzServers.exchange(server.port, bytes)
    precondition(reply.isEmpty || reply.starts(with: Array("HTTP/1.".utf8)), "not an HTTP response")
    inputs += 1
    if inputs % 64 == 0 {
        let check = HTTPFuzzServers.exchange(HTTPFuzzServers.shared[0].port, Array("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        precondition(check.starts(with: Array("HTTP/1.1 200".utf8)), "the server no longer answers a plain GET")
    }
    return 0
}
