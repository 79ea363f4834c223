import Platform

/// `Platform.DirectoryPath` (`mkdir -p` for the state directories), under its old name for code
/// that imports only MotionCore.
public typealias DirectoryPath = Platform.DirectoryPath
