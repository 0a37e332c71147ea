import Foundation

/// What every `splat-bench` tool command does around its own work: `usage` on stderr with exit
/// status 2 (after the problem, when there is one), a thrown error as `name: error` with status 1.
struct ToolCommand {
    /// The command word (`spz-decode`), which also starts its error lines.
    let name: String
    /// What follows the command word in the usage line (`FILE [--repeat N]`).
    let synopsis: String

    init(_ name: String, synopsis: String = "") {
        self.name = name
        self.synopsis = synopsis
    }

    /// Prints `name: problem` (when given) and the usage line; returns 2.
    func usage(_ problem: String? = nil) -> Int32 {
        let first = problem.map { "\(name): \($0)\n" } ?? ""
        FileHandle.standardError.write(Data((first + "usage: splat-bench \(name) \(synopsis)\n").utf8))
        return 2
    }

    /// Runs `body`: its status, or 1 after printing `name: error` when it throws.
    func run(_ body: () throws -> Int32) -> Int32 {
        do {
            return try body()
        } catch {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            return 1
        }
    }

    /// The arguments of a command that takes words and `--option VALUE` pairs (a flag not in
    /// `valueOptions` counts as a word; a value option at the end has a nil value).
    struct Arguments {
        private(set) var words: [String] = []
        private var values: [String: [String?]] = [:]

        init(_ arguments: [String], valueOptions: Set<String>) {
            var rest = arguments[...]
            while let argument = rest.popFirst() {
                if valueOptions.contains(argument) {
                    values[argument, default: []].append(rest.popFirst())
                } else {
                    words.append(argument)
                }
            }
        }

        /// The last value given for `option` (nil when absent, or when it ended the arguments).
        func string(_ option: String) -> String? { values[option]?.last ?? nil }

        /// `option`'s values read in turn, each replacing `start` when there and `parse` accepts it.
        func value<T>(_ option: String, _ start: T, _ parse: (String) -> T?) -> T {
            (values[option] ?? []).reduce(start) { $1.flatMap(parse) ?? $0 }
        }
    }
}
