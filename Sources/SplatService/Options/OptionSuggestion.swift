/// "Did you mean --camera-pos?": the nearest option name to a misspelt one.
extension OptionTable {
    /// The option of `command` nearest to a misspelt one, when it is close enough to be a typo.
    public static func closestOption(to shown: String, command: CommandName) -> String? {
        closestName(to: shown, among: options(for: command).map(\.name.rawValue))
    }

    /// The name in `names` nearest to a misspelt one by the same rule (a query parameter among
    /// the ones a route takes, for example).
    public static func closestName(to shown: String, among names: [String]) -> String? {
        let typed = shown.drop { $0 == "-" }.split(separator: "=").first.map(String.init) ?? ""
        guard typed.count >= 2 else { return nil }
        var best: (name: String, distance: Int)?
        for name in names {
            let d = editDistance(typed, name)
            if d <= max(1, name.count / 3), d < (best?.distance ?? Int.max) { best = (name, d) }
        }
        return best?.name
    }

    /// Levenshtein distance (insertions, deletions, substitutions).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            previous = current
        }
        return previous[b.count]
    }
}
