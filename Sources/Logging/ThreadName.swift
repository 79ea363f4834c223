import Platform

/// `Platform.ThreadName`, so code that imports only Logging names its threads the same way.
public typealias ThreadName = Platform.ThreadName
