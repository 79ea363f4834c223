extension String {
    /// The text left-aligned in a column `width` characters wide (padded with spaces; cut when
    /// longer), for the CLI's tables.
    func padded(to width: Int) -> String {
        count >= width ? String(prefix(width)) : self + String(repeating: " ", count: width - count)
    }
}
