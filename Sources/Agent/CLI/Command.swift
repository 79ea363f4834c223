#if canImport(Glibc)
import Glibc
#endif

/// One `edgemotion` sub-command.
public protocol Command: Sendable {
    /// The word after `edgemotion` (`run`, `check-config`, …).
    var name: String { get }
    /// One line for the command list.
    var summary: String { get }
    /// Full usage text for `edgemotion <name> --help`.
    var usage: String { get }
    /// Runs with the arguments after the sub-command's name; returns the process exit status.
    func run(arguments: [String]) -> Int32
}

/// Writes a line to standard error (command-line diagnostics, not structured logs).
public func printError(_ message: String) {
    var line = message
    line.append("\n")
    _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
}
