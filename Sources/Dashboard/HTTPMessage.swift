/// One HTTP request as the server hands it to a route: GET and HEAD, or a POST to one of
/// `HTTPServer.Options.postPaths` with a JSON body of at most `Options.maximumBodyBytes`.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string (`/metrics`), as the client sent it.
    public var path: String
    /// The body of a POST (empty for GET/HEAD).
    public var body: [UInt8]

    public init(method: String, path: String, body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.body = body
    }
}

/// What a route answers.
public enum HTTPResponse: Sendable {
    /// A whole body.
    case body(status: Int, contentType: String, bytes: [UInt8], headers: [(String, String)] = [])
    /// A Server-Sent Events stream fed by `hub` (one bounded queue per client).
    case eventStream(EventHub)

    public static func text(_ status: Int, _ text: String) -> HTTPResponse {
        .body(status: status, contentType: "text/plain; charset=utf-8", bytes: Array(text.utf8))
    }

    public static func notFound() -> HTTPResponse { .text(404, "not found\n") }
}
