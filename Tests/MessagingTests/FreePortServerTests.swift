import Testing
import TestSupport

/// `FreePortServer`, the one way tests start servers on a free port: another port when the first
/// was taken meanwhile, nothing retried otherwise, at most `attempts` tries. Ports are scripted,
/// so nothing races here.
@Suite("Free-port servers", .ownThread)
struct FreePortServerTests {
    struct LaunchError: Error, CustomStringConvertible { let description: String }

    /// Hands out 40001, 40002, … in turn.
    final class Ports {
        var next = 40_001
        func take() -> Int { defer { next += 1 }; return next }
    }

    @Test func aTakenPortIsRetriedOnTheNextFreeOne() throws {
        let ports = Ports()
        var tried: [Int] = []
        let port = try FreePortServer.start(freePort: ports.take) { port -> Int in
            tried.append(port)
            // mosquitto's and Prometheus's own words, as they reach the error.
            if port == 40_001 { throw LaunchError(description: "Error: Address already in use") }
            if port == 40_002 { throw LaunchError(description: "listen tcp 127.0.0.1:40002: bind: address already in use") }
            return port
        }
        #expect(port == 40_003)
        #expect(tried == [40_001, 40_002, 40_003])
    }

    @Test func anotherFailureIsNotRetried() {
        let ports = Ports()
        var tries = 0
        #expect(throws: LaunchError.self) {
            try FreePortServer.start(freePort: ports.take) { (_: Int) -> Int in
                tries += 1
                throw LaunchError(description: "prometheus: permission denied")
            }
        }
        #expect(tries == 1)
    }

    @Test func theFifthTakenPortIsThrown() {
        let ports = Ports()
        var tried: [Int] = []
        #expect(throws: LaunchError.self) {
            try FreePortServer.start(freePort: ports.take) { (port: Int) -> Int in
                tried.append(port)
                throw LaunchError(description: "Address already in use")
            }
        }
        #expect(tried == [40_001, 40_002, 40_003, 40_004, 40_005])
    }
}
