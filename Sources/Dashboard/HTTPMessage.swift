/// One HTTP request as the server hands it to a route (GET and HEAD only: the dashboard
/// changes nothing over HTTP).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path without the query string (`/metrics`), as the client sent it.
    public var path: String

    public init(method: String, path: String) {
        self.method = method
        self.path = path
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
