/// Starts a test server (mosquitto, Prometheus, …) on a free loopback port, the one way every
/// test does so.
///
/// A free port is only free when asked (`MosquittoBroker.freeLoopbackPort` binds port 0, reads the
/// port and closes the socket): a test running in parallel may bind it before the server does,
/// and the server then fails with "Address already in use". `start` tries another free port
/// then, up to `attempts` times in all; any other failure, and the last attempt's, is thrown.
public enum FreePortServer {
    /// Tries in all (seen: one retry suffices; the whole suite on 2 cores races a few times).
    public static let attempts = 5

    /// `launch(port)` on free loopback ports until one is not taken meanwhile.
    /// - Parameter freePort: where ports come from (tests of this helper script it).
    public static func start<Server>(freePort: () throws -> Int = MosquittoBroker.freeLoopbackPort,
                                     _ launch: (Int) throws -> Server) throws -> Server {
        var attempt = 1
        while true {
            do {
                return try launch(try freePort())
            } catch where attempt < attempts && isAddressInUse(error) {
                attempt += 1
            }
        }
    }

    /// Whether `error` says the port was taken: mosquitto's "Address already in use", Go's (Prometheus)
    /// "bind: address already in use", any server's log quoted in the error.
    public static func isAddressInUse(_ error: any Error) -> Bool {
        "\(error)".lowercased().contains("address already in use")
    }
}
