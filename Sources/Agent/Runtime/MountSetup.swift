import MotionCore

/// The chip-to-board rotations the agent applies: `source.mount` with the learned rotation from
/// `<state_directory>/edgemotion-mount.txt` where the configuration asks for it (or leaves
/// `accel_gyro` unset). A damaged file is an error (`check-config`, `run` and reload refuse it,
/// naming the file and line): a silently wrong mount would give a wrong attitude.
enum MountSetup {
    static func path(_ c: AgentConfiguration) -> String { MountSettings.learnedPath(stateDirectory: c.stateDirectory) }

    /// The learned rotation; `nil` when none has been learned (no file).
    static func learned(_ c: AgentConfiguration) throws(MountFileError) -> SensorMount? {
        let file = path(c)
        let text: String
        do throws(FileError) { text = try WholeFile.text(atPath: file, limit: MountFile.maximumBytes) } catch where error.isMissing {
            return nil
        } catch {
            throw MountFileError(source: file, line: nil, problem: "\(error)")
        }
        return try MountFile.decode(text, source: file)
    }

    /// What the pipeline applies for `c`.
    static func resolve(_ c: AgentConfiguration) throws(MountFileError) -> IMUMount {
        try resolveWithOrigin(c).mount
    }

    /// What the pipeline applies for `c`, and where it comes from (`meta`'s `mount.source`).
    static func resolveWithOrigin(_ c: AgentConfiguration) throws(MountFileError) -> (mount: IMUMount, origin: MountSettings.Origin) {
        let m = c.source.mount
        let l = m.usesLearned ? try learned(c) : nil
        return (m.resolved(learned: l), m.origin(learned: l))
    }

    /// The start-up check (`ConfigurationCheck`): the learned file, when used, must be readable.
    static func diagnostics(_ c: AgentConfiguration) -> [ConfigDiagnostic] {
        guard c.source.mount.usesLearned else { return [] }
        do throws(MountFileError) {
            _ = try learned(c)
            return []
        } catch {
            return [ConfigDiagnostic(file: error.source, line: error.line, column: nil, keyPath: "source.mount",
                                     message: "learned mount rejected: \(error.problem); learn it again (edgemotion mount learn --config FILE, or cmd/mount) or delete the file")]
        }
    }
}
