import Foundation

/// Options from the environment, for the commands that run as services (`CommandSpec
/// .readsEnvironment`): each option `--name` may be set as `SPLATRENDER_NAME` (capitals, `-` as
/// `_`), as container deployments expect. A value on the command line wins; an environment
/// value is parsed and validated exactly like one typed after the flag.
extension OptionTable {
    /// The environment variable of `name`: `max-attempts` → `SPLATRENDER_MAX_ATTEMPTS`.
    public static func environmentVariable(for name: OptionName) -> String {
        "SPLATRENDER_" + name.rawValue.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    /// Words a flag's variable may hold: set or not set.
    static let flagOn: Set<String> = ["1", "true", "yes", "on"]
    static let flagOff: Set<String> = ["", "0", "false", "no", "off"]
}

extension ParsedCommand {
    /// Fills the options of this command that were not given from `environment` (usually the
    /// process's). `--help` and `--version` are never read from it. A bad value is a usage
    /// error naming the variable.
    public mutating func applyEnvironment(_ environment: [String: String]) throws(UsageError) {
        for spec in OptionTable.options(for: command) where given[spec.name] == nil && spec.name != .help && spec.name != .version {
            let variable = OptionTable.environmentVariable(for: spec.name)
            guard let raw = environment[variable] else { continue }
            if spec.kind == .flag {
                let word = raw.lowercased()
                if OptionTable.flagOn.contains(word) {
                    given[spec.name] = .flag
                } else if !OptionTable.flagOff.contains(word) {
                    throw UsageError("invalid value '\(raw)' for \(variable) (--\(spec.name)): expected 1 or 0")
                }
                continue
            }
            do throws(UsageError) {
                given[spec.name] = try OptionValueParser.parse(raw, for: spec)
            } catch {
                throw UsageError("\(variable): \(error.message)")
            }
        }
    }
}
