extension OptionValueParser {
    /// A flag written with a value, as a query string or an environment variable writes it:
    /// true for `1`, `true`, `yes`, `on`; false for `0`, `false`, `no`, `off` and empty; nil
    /// for anything else (the caller reports it). Case is ignored.
    public static func flagValue(_ raw: String) -> Bool? {
        let word = raw.lowercased()
        if OptionTable.flagOn.contains(word) { return true }
        if OptionTable.flagOff.contains(word) { return false }
        return nil
    }
}
