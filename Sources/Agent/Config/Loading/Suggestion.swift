/// "Did you mean …?" for misspelt keys and values.
enum Suggestion {
    /// The candidate closest to `word` (case-insensitive, `_`/`-` ignored for camelCase
    /// spellings), when close enough to be a plausible typo.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let w = normalized(word)
        var best: (String, Int)?
        for c in candidates {
            let d = distance(w, normalized(c))
            if d < (best?.1 ?? Int.max) { best = (c, d) }
        }
        guard let (candidate, d) = best else { return nil }
        let limit = max(1, min(3, (candidate.count + 2) / 4))
        return d <= limit ? candidate : nil
    }

    private static func normalized(_ s: String) -> [Character] {
        Array(s.lowercased().filter { $0 != "_" && $0 != "-" })
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
