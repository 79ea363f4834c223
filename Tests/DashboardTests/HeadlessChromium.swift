import Foundation
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Debian's `chromium`, or nil when it is not installed (`scripts/test` installs it).
let chromiumExecutable: String? = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].first {
    FileManager.default.isExecutableFile(atPath: $0)
}

/// Real headless Chromium driven over the DevTools protocol through `--remote-debugging-pipe`
/// (JSON messages ended by NUL on file descriptors 3 and 4: no WebSocket needed), with one page
/// attached in flat session mode.
///
/// Collects what the page reports as an error: console `error`/`assert` calls, uncaught
/// exceptions, and browser log entries at level `error` (failed loads, CSP refusals).
final class HeadlessChromium: @unchecked Sendable {
    let profile: String
    let logPath: String
    private var pid: pid_t = 0
    private let toBrowser: Int32
    private let fromBrowser: Int32
    private let lock = NSCondition()
    private var responses: [Int: [String: Any]] = [:]
    private var events: [[String: Any]] = []
    private var nextID = 1
    private var reader: Thread?
    private(set) var session = ""

    struct Failure: Error, CustomStringConvertible { let description: String }

    init(width: Int = 1280, height: Int = 1150) throws {
        guard let executable = chromiumExecutable else { throw Failure(description: "chromium is not installed") }
        profile = NSTemporaryDirectory() + "edgemotion-chromium-\(UUID().uuidString)"
        logPath = profile + ".log"
        var commands: [Int32] = [0, 0], replies: [Int32] = [0, 0]
        guard pipe(&commands) == 0, pipe(&replies) == 0 else { throw Failure(description: "pipe: errno \(errno)") }
        for fd in commands + replies { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        toBrowser = commands[1]
        fromBrowser = replies[0]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_adddup2(&actions, commands[0], 3)
        posix_spawn_file_actions_adddup2(&actions, replies[1], 4)
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK))
        let argv = [executable, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                    "--user-data-dir=\(profile)", "--window-size=\(width),\(height)", "--hide-scrollbars",
                    "--no-first-run", "--no-default-browser-check", "--disable-extensions", "--mute-audio", "about:blank"]
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { for a in cArgs { free(a) } }
        let rc = posix_spawn(&pid, executable, &actions, &attr, &cArgs, environ)
        close(commands[0])
        close(replies[1])
        guard rc == 0 else { throw Failure(description: "cannot start \(executable): \(String(cString: strerror(rc)))") }
        let thread = Thread { [weak self] in self?.readLoop() }
        thread.start()
        reader = thread
        let target = try call("Target.createTarget", ["url": "about:blank"], session: nil)
        let targetID = try Self.string(target["targetId"], "Target.createTarget")
        session = try Self.string(try call("Target.attachToTarget", ["targetId": targetID, "flatten": true], session: nil)["sessionId"],
                                  "Target.attachToTarget")
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] { _ = try call(domain) }
        _ = try call("Emulation.setDeviceMetricsOverride", ["width": width, "height": height, "deviceScaleFactor": 1, "mobile": false])
    }

    deinit { quit() }

    func quit() {
        guard pid != 0 else { return }
        _ = try? call("Browser.close", session: nil, timeout: 5)
        if !SpawnedProcess.signalAndReap(pid, 0, timeout: 5) { _ = SpawnedProcess.signalAndReap(pid, SIGKILL, timeout: 5) }
        pid = 0
        close(toBrowser)
        close(fromBrowser)
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// What Chromium itself wrote (stderr).
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends one command (to the page's session unless `session` is nil) and waits for its result.
    @discardableResult
    func call(_ method: String, _ params: [String: Any] = [:], session: String?? = .none, timeout: Double = 20) throws -> [String: Any] {
        let id = lock.withLock { () -> Int in defer { nextID += 1 }; return nextID }
        var message: [String: Any] = ["id": id, "method": method, "params": params]
        if let s = session ?? self.session, !s.isEmpty { message["sessionId"] = s }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        let written = bytes.withUnsafeBytes { write(toBrowser, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw Failure(description: "\(method): write to chromium failed (errno \(errno)); log:\n\(log)") }
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while responses[id] == nil {
            guard lock.wait(until: deadline) else { throw Failure(description: "\(method): no answer in \(timeout) s; log:\n\(log.suffix(2000))") }
        }
        let r = responses.removeValue(forKey: id)!
        if let error = r["error"] { throw Failure(description: "\(method): \(error)") }
        return r["result"] as? [String: Any] ?? [:]
    }

    /// Evaluates `expression` in the page and returns its value (JSON-compatible values only).
    func evaluate(_ expression: String) throws -> Any? {
        let r = try call("Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let e = r["exceptionDetails"] { throw Failure(description: "\(expression): \(e)") }
        return (r["result"] as? [String: Any])?["value"]
    }

    /// Polls `expression` until it is true or `timeout` s pass.
    func waitUntil(_ expression: String, timeout: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if try evaluate(expression) as? Bool == true { return true }
            usleep(200_000)
        } while Date() < deadline
        return false
    }

    /// The page's errors so far: console errors, uncaught exceptions, error-level log entries.
    var errors: [String] {
        lock.withLock { events }.compactMap { e -> String? in
            let p = e["params"] as? [String: Any] ?? [:]
            switch e["method"] as? String {
            case "Runtime.consoleAPICalled" where ["error", "assert"].contains(p["type"] as? String):
                return "console.\(p["type"]!): \((p["args"] as? [[String: Any]] ?? []).map { "\($0["value"] ?? $0["description"] ?? "?")" })"
            case "Runtime.exceptionThrown":
                return "exception: \(((p["exceptionDetails"] as? [String: Any])?["exception"] as? [String: Any])?["description"] ?? p)"
            case "Log.entryAdded":
                let entry = p["entry"] as? [String: Any] ?? [:]
                return entry["level"] as? String == "error" ? "log (\(entry["source"] ?? "?")): \(entry["text"] ?? "") \(entry["url"] ?? "")" : nil
            default: return nil
            }
        }
    }

    /// A PNG of the page's viewport.
    func screenshot() throws -> Data {
        let r = try call("Page.captureScreenshot", ["format": "png"])
        guard let b64 = r["data"] as? String, let png = Data(base64Encoded: b64) else { throw Failure(description: "no screenshot data") }
        return png
    }

    private func readLoop() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fromBrowser, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            pending += buffer[..<n]
            while let end = pending.firstIndex(of: 0) {
                let message = Array(pending[..<end])
                pending.removeSubrange(...end)
                guard let object = try? JSONSerialization.jsonObject(with: Data(message)) as? [String: Any] else { continue }
                lock.withLock {
                    if let id = object["id"] as? Int { responses[id] = object } else { events.append(object) }
                    lock.broadcast()
                }
            }
        }
        lock.withLock { lock.broadcast() }
    }

    private static func string(_ value: Any?, _ what: String) throws -> String {
        guard let s = value as? String else { throw Failure(description: "\(what) returned no id") }
        return s
    }
}
