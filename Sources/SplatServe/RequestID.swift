/// `X-Request-Id` handling: a usable id from the client (or a proxy in front) is echoed so
/// logs on both sides join up; anything else is replaced by a fresh random one.
enum RequestID {
    /// Longest id echoed; longer ones are replaced (they would only bloat every log line).
    static let maxLength = 128

    /// `sent` when it is 1…128 visible ASCII characters, otherwise a new id.
    static func resolve(_ sent: String?) -> String {
        if let sent, !sent.isEmpty, sent.utf8.count <= maxLength, sent.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) {
            return sent
        }
        return generate()
    }

    /// 32 lowercase hex digits from the system's random source.
    static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64, low = generator.next() as UInt64
        func hex(_ v: UInt64) -> String {
            let digits = String(v, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return hex(high) + hex(low)
    }
}
