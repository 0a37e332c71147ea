import Foundation
import SplatCore

/// Temporary files a killed run left behind. `kill -9` cannot be handled, so a batch that starts
/// in an output folder first removes the temporaries `AtomicFileWriter` names as its own
/// (`.<name>.tmp-XXXXXX`) that are older than the run, and the `.partial` reports nobody is
/// writing any more are left for the operator (they hold complete lines).
enum StaleTemporaries {
    /// Removes matching temporaries under `folder` (recursively, not following links).
    static func remove(under folder: String, olderThan start: Date) {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return }
        let cutoff = start.timeIntervalSince1970
        for case let relative as String in walker {
            let name = (relative as NSString).lastPathComponent
            guard isTemporaryName(name) else { continue }
            let path = (folder as NSString).appendingPathComponent(relative)
            guard let status = FileIO.status(atPath: path, followLinks: false), status.kind == .regular,
                  status.modified < cutoff else { continue }
            FileIO.remove(path)
        }
    }

    /// `.<something>.tmp-` followed by mkstemp's six characters.
    static func isTemporaryName(_ name: String) -> Bool {
        guard name.hasPrefix("."), let range = name.range(of: ".tmp-", options: .backwards) else { return false }
        return name.distance(from: range.upperBound, to: name.endIndex) == 6 && range.lowerBound > name.index(after: name.startIndex)
    }
}
