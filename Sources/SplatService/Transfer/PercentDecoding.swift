/// RFC 3986 percent-decoding, shared by every URL we parse by hand (job locations, the Redis
/// URL), so `%2e%2e` and `..` are seen as the same thing everywhere.
public enum PercentDecoding {
    /// The bytes `text` stands for, or nil when a `%` is not followed by two hex digits.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    /// The text `text` stands for, or nil for bad escapes or bytes that are not UTF-8.
    public static func string(_ text: some StringProtocol) -> String? {
        bytes(text).flatMap { String(validating: $0, as: UTF8.self) }
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
