/// What kind of value an option takes; the parser validates every value against it.
public enum OptionKind: Sendable, Equatable {
    /// No value: present or absent.
    case flag
    /// Any text, usually a path (`-` for a standard stream).
    case text
    /// A whole number within the range.
    case integer(ClosedRange<Int>)
    /// A finite number within the range.
    case number(ClosedRange<Double>)
    /// Three finite numbers `x,y,z`.
    case vector3
    /// Three numbers `r,g,b`, each within 0…1.
    case colour
    /// `WxH`, each side within 1…16384.
    case resolution
    /// One of the 16 coordinate-system names or an alias (`ply`, `opengl`, …).
    case frame
    /// One of the input formats.
    case format
    /// A byte count: a whole number with an optional binary suffix (K, M, G, KiB, MiB, GiB).
    case byteCount
    /// One of a fixed list of words.
    case choice([String])
    /// One of a fixed list of words, or nothing: `--progress` alone means `bare`; the next
    /// argument is taken as the value only when it is one of the words (`--progress json`).
    case optionalChoice([String], bare: String)
    /// Comma-separated finite numbers within the range, e.g. `10,40`.
    case numberList(ClosedRange<Double>)

    /// The placeholder shown in help, e.g. `WxH`.
    public var placeholder: String {
        switch self {
        case .flag: ""
        case .text: "PATH"
        case .integer: "N"
        case .number: "DEG"
        case .vector3: "X,Y,Z"
        case .colour: "R,G,B"
        case .resolution: "WxH"
        case .frame: "FRAME"
        case .format: "FORMAT"
        case .byteCount: "BYTES"
        case .choice(let words): words.joined(separator: "|")
        case .optionalChoice(let words, _): "[" + words.joined(separator: "|") + "]"
        case .numberList: "A,B,…"
        }
    }
}
