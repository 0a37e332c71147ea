/// Parses the Prometheus text format back, for checking what a scrape says.
enum MetricsText {
    static func samples(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " ") else { continue }
            let value = line[line.index(after: space)...]
            out[String(line[..<space])] = value == "+Inf" ? .infinity : Double(value)
        }
        return out
    }
}
