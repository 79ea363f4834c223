import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP(S) server over libmicrohttpd: GET/HEAD routes answered by one handler, a few
/// POST routes with a small JSON body (`Options.postPaths`), optional basic auth and TLS,
/// Server-Sent Events streams. The thin, unsafe part of the dashboard.
///
/// A POST must name a path in `postPaths` (else 405), send `Content-Type: application/json`
/// (else 415: a plain HTML form cannot, so another site cannot post through the user's
/// browser), carry no `Origin` other than this server's own `Host` (else 403), and a body of at
/// most `maximumBodyBytes` (else 413). Basic auth is checked before the body is read.
///
/// libmicrohttpd runs a listening thread and one thread per connection (bounded by
/// `Options.connectionLimit`); each request reads only what a route returns. Bad input is
/// libmicrohttpd's to refuse (headers past `memoryLimit` bytes: 431; a request that stays idle
/// for `timeoutSeconds`: closed) or the handler's (`..`, NUL, other methods: 400/405).
///
/// `@unchecked Sendable`: `daemon` and the C strings are written in `init` before the daemon
/// starts and released in `stop`/`deinit` after it has stopped (libmicrohttpd joins its threads);
/// `handler` is immutable and `Sendable`.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public struct Options: Sendable {
        public var listen: HTTPListenAddress
        /// Basic auth (`username`, `password`); nil serves everyone.
        public var basicAuth: (username: String, password: String)?
        /// PEM certificate chain and key; nil serves plain HTTP.
        public var tls: (certificatePEM: String, keyPEM: String)?
        /// Connections open at once (pages, their streams, scrapers); more are refused.
        public var connectionLimit = 64
        /// A connection idle this long (a slowloris, a stuck client) is closed, s.
        public var timeoutSeconds = 15
        /// Memory per connection for the request line and headers, bytes.
        public var memoryLimit = 32 * 1024
        /// How long a stream read waits for an event before sending a keep-alive comment, ms.
        public var streamKeepAliveMilliseconds = 1000
        /// The paths that take a POST (each with a JSON body); every other path is GET/HEAD only.
        public var postPaths: Set<String> = []
        /// Largest POST body, bytes.
        public var maximumBodyBytes = 4096

        public init(listen: HTTPListenAddress) { self.listen = listen }
    }

    public enum StartError: Error, CustomStringConvertible {
        case tlsUnsupported
        case cannotListen(String)

        public var description: String {
            switch self {
            case .tlsUnsupported: "this libmicrohttpd has no TLS support (GnuTLS); drop http.cert_file/key_file or install Debian's libmicrohttpd12"
            case .cannotListen(let a): "cannot listen on \(a): the address is in use, not on this machine, or needs root (ports < 1024)"
            }
        }
    }

    public let options: Options
    private let handler: Handler
    private var daemon: OpaquePointer?
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private let requests = Atomic<Int>(0)
    private let rejected = Atomic<Int>(0)

    /// The port in use (the kernel's choice when `listen.port` is 0).
    public private(set) var port: UInt16 = 0

    public init(options: Options, handler: @escaping Handler) throws(StartError) {
        self.options = options
        self.handler = handler
        var flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
        if options.listen.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        var items: [MHD_OptionItem] = [
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_LIMIT, value: options.connectionLimit, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_TIMEOUT, value: options.timeoutSeconds, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.CONNECTION_MEMORY_LIMIT, value: options.memoryLimit, ptr_value: nil),
            MHD_OptionItem(option: MHD_OPTION.THREAD_STACK_SIZE, value: 256 * 1024, ptr_value: nil),
        ]
        if let tls = options.tls {
            guard MHD_is_feature_supported(MHD_FEATURE.FEATURE_TLS) == .YES else { throw .tlsUnsupported }
            flags |= MHD_USE_TLS.rawValue
            let cert = strdup(tls.certificatePEM)!, key = strdup(tls.keyPEM)!
            cStrings += [cert, key]
            items.append(MHD_OptionItem(option: MHD_OPTION.HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(cert)))
            items.append(MHD_OptionItem(option: MHD_OPTION.HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(key)))
        }
        let started: OpaquePointer? = withListenAddress(options.listen) { address in
            items.append(MHD_OptionItem(option: MHD_OPTION.SOCK_ADDR, value: 0, ptr_value: address))
            items.append(MHD_OptionItem(option: MHD_OPTION.END, value: 0, ptr_value: nil))
            let me = Unmanaged.passUnretained(self).toOpaque()
            return items.withUnsafeMutableBufferPointer { buffer in
                em_mhd_start(flags, options.listen.port, httpAccessHandler, me, httpRequestCompleted, buffer.baseAddress)
            }
        }
        guard let started else {
            for s in cStrings { free(s) }
            cStrings = []
            throw .cannotListen(options.listen.description)
        }
        daemon = started
        port = em_mhd_bound_port(started)
    }

    /// `http://127.0.0.1:8080/` (or `https://`), with the port in use.
    public var url: String {
        var a = options.listen
        a.port = port
        if a.host == "0.0.0.0" { a.host = "127.0.0.1" } else if a.host == "::" { a.host = "::1" }
        return (options.tls == nil ? "http://" : "https://") + a.description + "/"
    }

    /// Requests answered, and those refused (bad path or method, failed auth).
    public var requestCounts: (served: Int, rejected: Int) {
        (requests.load(ordering: .relaxed), rejected.load(ordering: .relaxed))
    }

    /// Stops listening and waits for every connection thread (streams must have been closed).
    public func stop() {
        guard let d = daemon else { return }
        daemon = nil
        MHD_stop_daemon(d)
        for s in cStrings { free(s) }
        cStrings = []
    }

    deinit { stop() }

    // MARK: Requests (libmicrohttpd's threads)

    fileprivate func handle(_ connection: OpaquePointer, url: String, method: String, uploadData: UnsafePointer<CChar>?,
                            uploadSize: UnsafeMutablePointer<Int>?, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
        // A POST body arrives over several calls: the first (headers only) keeps a `RequestBody`
        // in `state`, the next ones append to it, the last (no data left) answers.
        if let state, let kept = state.pointee {
            let body = Unmanaged<RequestBody>.fromOpaque(kept).takeUnretainedValue()
            if let size = uploadSize, size.pointee > 0 {
                if let uploadData, body.bytes.count + size.pointee <= options.maximumBodyBytes {
                    body.bytes += UnsafeRawBufferPointer(start: uploadData, count: size.pointee)
                } else {
                    body.tooLarge = true
                }
                size.pointee = 0
                return .YES
            }
            state.pointee = nil
            Unmanaged<RequestBody>.fromOpaque(kept).release()
            if body.tooLarge { return queue(connection, .text(413, "the body is larger than \(options.maximumBodyBytes) bytes\n")) }
            return queue(connection, handler(HTTPRequest(method: method, path: url, body: body.bytes)))
        }
        requests.add(1, ordering: .relaxed)
        let isPost = method == "POST"
        guard method == "GET" || method == "HEAD" || isPost else {
            return queue(connection, .text(405, "only GET and HEAD (and POST to \(options.postPaths.sorted().joined(separator: ", ")))\n"),
                         extraHeaders: [("Allow", "GET, HEAD")])
        }
        guard isPost || (uploadSize?.pointee ?? 0) == 0 else { return queue(connection, .text(400, "a GET has no body\n")) }
        // Every route is a fixed name: anything that looks like a way out of it is refused.
        guard url.hasPrefix("/"), !url.contains(".."), !url.contains("\\"), !url.utf8.contains(0), url.utf8.count <= 256 else {
            return queue(connection, .text(400, "bad path\n"))
        }
        if let auth = options.basicAuth, !Self.authorised(connection, auth) {
            rejected.add(1, ordering: .relaxed)
            let body = Array("authentication required\n".utf8)
            let response = body.withUnsafeBytes { MHD_create_response_from_buffer(body.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY) }
            defer { MHD_destroy_response(response) }
            return MHD_queue_basic_auth_fail_response(connection, "EdgeMotion", response)
        }
        guard isPost else { return queue(connection, handler(HTTPRequest(method: method, path: url))) }
        guard options.postPaths.contains(url) else {
            return queue(connection, .text(405, "\(url) takes only GET and HEAD\n"), extraHeaders: [("Allow", "GET, HEAD")])
        }
        let contentType = Self.header(connection, "Content-Type") ?? ""
        guard contentType.lowercased().hasPrefix("application/json") else {
            return queue(connection, .text(415, "a POST to \(url) needs Content-Type: application/json (found '\(contentType.prefix(64))')\n"))
        }
        if let origin = Self.header(connection, "Origin") {
            let host = Self.header(connection, "Host") ?? ""
            let scheme = options.tls == nil ? "http://" : "https://"
            guard origin == scheme + host else {
                return queue(connection, .text(403, "a POST from another site (Origin \(origin.prefix(128))) is refused\n"))
            }
        }
        guard let state else { return .NO }
        state.pointee = Unmanaged.passRetained(RequestBody()).toOpaque()
        return .YES
    }

    /// The value of request header `name`, if sent.
    private static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }

    private static func authorised(_ connection: OpaquePointer, _ auth: (username: String, password: String)) -> Bool {
        var password: UnsafeMutablePointer<CChar>?
        guard let user = MHD_basic_auth_get_username_password(connection, &password) else { return false }
        defer { MHD_free(user); if let password { MHD_free(password) } }
        let u = constantTimeEqual(String(cString: user), auth.username)
        let p = constantTimeEqual(password.map { String(cString: $0) } ?? "", auth.password)
        return u && p
    }

    /// Equality that takes as long for every wrong guess of the same length.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt8(x.count == y.count ? 0 : 1)
        for i in 0..<max(x.count, y.count) { diff |= (i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0) }
        return diff == 0
    }

    private func queue(_ connection: OpaquePointer, _ r: HTTPResponse, extraHeaders: [(String, String)] = []) -> MHD_Result {
        let response: OpaquePointer?
        var status: Int
        var headers = extraHeaders
        switch r {
        case .body(let s, let contentType, let bytes, let h):
            status = s
            headers += [("Content-Type", contentType)] + h
            response = bytes.withUnsafeBytes {
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .eventStream(let hub):
            guard let client = hub.connect() else {
                return queue(connection, .text(503, "too many live pages open\n"), extraHeaders: [("Retry-After", "5")])
            }
            status = 200
            headers += [("Content-Type", "text/event-stream"), ("X-Accel-Buffering", "no")]
            let context = Unmanaged.passRetained(StreamContext(hub: hub, client: client, keepAlive: options.streamKeepAliveMilliseconds)).toOpaque()
            response = MHD_create_response_from_callback(UInt64.max, 16 * 1024, streamReader, context, streamFree)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        headers += [("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                    ("Content-Security-Policy", "default-src 'self'; img-src 'self' data:"), ("X-Frame-Options", "DENY")]
        for (k, v) in headers { MHD_add_response_header(response, k, v) }
        if status >= 400 { rejected.add(1, ordering: .relaxed) }
        return MHD_queue_response(connection, UInt32(status), response)
    }
}

/// One open event stream: its hub and queue.
private final class StreamContext {
    let hub: EventHub
    let client: EventClient
    let keepAlive: Int
    init(hub: EventHub, client: EventClient, keepAlive: Int) {
        self.hub = hub
        self.client = client
        self.keepAlive = keepAlive
    }
}

private let keepAliveComment: [UInt8] = Array(": keep-alive\n\n".utf8)

private let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
    let context = Unmanaged<StreamContext>.fromOpaque(cls!).takeUnretainedValue()
    let out = UnsafeMutableRawBufferPointer(start: buffer, count: max)
    switch context.client.read(into: out, timeoutMilliseconds: context.keepAlive) {
    case .bytes(let n): return n
    case .closed: return ssize_t(-1)  // MHD_CONTENT_READER_END_OF_STREAM
    case .idle:
        let n = min(keepAliveComment.count, max)
        keepAliveComment.withUnsafeBytes { out.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
        return n
    }
}

private let streamFree: MHD_ContentReaderFreeCallback = { cls in
    let context = Unmanaged<StreamContext>.fromOpaque(cls!).takeRetainedValue()
    context.hub.disconnect(context.client)
}

/// A POST body being received (kept in the request's `con_cls` between calls).
private final class RequestBody {
    var bytes: [UInt8] = []
    var tooLarge = false
}

private let httpAccessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadSize, state in
    let server = Unmanaged<HTTPServer>.fromOpaque(cls!).takeUnretainedValue()
    return server.handle(connection!, url: url.map { String(cString: $0) } ?? "", method: method.map { String(cString: $0) } ?? "",
                         uploadData: uploadData, uploadSize: uploadSize, state: state)
}

/// A request ended (answered, or the client went away mid-body): frees a body still kept.
private let httpRequestCompleted: MHD_RequestCompletedCallback = { _, _, state, _ in
    guard let state, let kept = state.pointee else { return }
    state.pointee = nil
    Unmanaged<RequestBody>.fromOpaque(kept).release()
}

/// Calls `body` with a `sockaddr_in`/`sockaddr_in6` for `address` (valid only inside `body`).
private func withListenAddress<T>(_ address: HTTPListenAddress, _ body: (UnsafeMutableRawPointer) -> T) -> T {
    if address.isIPv6 {
        var a = sockaddr_in6()
        a.sin6_family = sa_family_t(AF_INET6)
        a.sin6_port = address.port.bigEndian
        _ = address.host.withCString { inet_pton(AF_INET6, $0, &a.sin6_addr) }
        return withUnsafeMutablePointer(to: &a) { body(UnsafeMutableRawPointer($0)) }
    }
    var a = sockaddr_in()
    a.sin_family = sa_family_t(AF_INET)
    a.sin_port = address.port.bigEndian
    _ = address.host.withCString { inet_pton(AF_INET, $0, &a.sin_addr) }
    return withUnsafeMutablePointer(to: &a) { body(UnsafeMutableRawPointer($0)) }
}
