import TestSupportPaths

/// The project's read-only shared material (`<package root>/../shared`: recordings, tools, research).
/// `root` is nil when the folder is absent, so tests can skip with a message instead of failing.
public enum SharedData {
    /// `<package root>/../shared`, or nil when it does not exist (e.g. on a CI machine without it).
    public static var root: String? { SharedDataPath.root }

    /// Absolute path of `relative` inside the shared folder, or nil when the folder is absent.
    public static func path(_ relative: String) -> String? { root.map { $0 + "/" + relative } }

    /// The sentence tests print when they skip for lack of shared data.
    public static let missingMessage =
        "shared data folder <package root>/../shared is absent; skipping (it is never copied into the repository)"
}
