import Foundation
import Synchronization

/// Files and directories the tests create under the temporary directory (agent logs, configs,
/// state directories), removed when the test process exits: a suite run used to leave ~370 of
/// them in /tmp. Set `EDGEMOTION_KEEP_TEST_FILES=1` to keep them for a post-mortem (failure
/// messages already carry the logs they need).
public enum TemporaryFiles {
    private static let paths = Mutex<[String]>([])
    private static let installed: Bool = {
        atexit { TemporaryFiles.removeAll() }
        return true
    }()

    /// Removes `path` (file or directory, whatever is there then) when the process exits.
    public static func removeAtExit(_ path: String) {
        _ = installed
        paths.withLock { $0.append(path) }
    }

    private static func removeAll() {
        guard ProcessInfo.processInfo.environment["EDGEMOTION_KEEP_TEST_FILES"] == nil else { return }
        for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
    }
}
