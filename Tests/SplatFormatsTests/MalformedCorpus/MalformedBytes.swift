import TestSupport

/// Little-endian access and a zip directory reader, for finding the structure to damage in a seed.
enum MalformedBytes {
    static func u16(_ b: [UInt8], _ at: Int) -> Int { Int(b[at]) | Int(b[at + 1]) << 8 }
    static func u32(_ b: [UInt8], _ at: Int) -> Int { u16(b, at) | u16(b, at + 2) << 16 }
    static func u64(_ b: [UInt8], _ at: Int) -> UInt64 { UInt64(u32(b, at)) | UInt64(u32(b, at + 4)) << 32 }

    static func setting<T: FixedWidthInteger>(_ b: [UInt8], _ at: Int, _ value: T) -> [UInt8] {
        var out = b
        withUnsafeBytes(of: value.littleEndian) { for (i, byte) in $0.enumerated() { out[at + i] = byte } }
        return out
    }

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    static func flipping(_ b: [UInt8], _ at: Int, bit: Int) -> [UInt8] {
        var out = b
        out[at] ^= UInt8(1 << (bit & 7))
        return out
    }

    static func find(_ pattern: [UInt8], in b: [UInt8], from start: Int = 0) -> Int? {
        guard pattern.count <= b.count else { return nil }
        var i = start
        while i <= b.count - pattern.count {
            if b[i] == pattern[0], b[i..<i + pattern.count].elementsEqual(pattern) { return i }
            i += 1
        }
        return nil
    }

    /// The entries of a zip, read through its central directory (trusted seeds only).
    static func zipEntries(_ b: [UInt8]) -> (entries: [(name: String, data: [UInt8], central: Int, local: Int)], centralStart: Int, end: Int)? {
        guard b.count >= 22 else { return nil }
        var end = b.count - 22
        while end >= 0, u32(b, end) != 0x0605_4B50 { end -= 1 }
        guard end >= 0 else { return nil }
        let count = u16(b, end + 10), centralStart = u32(b, end + 16)
        var at = centralStart
        var entries: [(name: String, data: [UInt8], central: Int, local: Int)] = []
        for _ in 0..<count {
            guard at + 46 <= b.count, u32(b, at) == 0x0201_4B50 else { return nil }
            let method = u16(b, at + 10), csize = u32(b, at + 20), nameLength = u16(b, at + 28)
            let extra = u16(b, at + 30), comment = u16(b, at + 32), local = u32(b, at + 42)
            let name = String(decoding: b[at + 46..<at + 46 + nameLength], as: UTF8.self)
            let dataStart = local + 30 + u16(b, local + 26) + u16(b, local + 28)
            var data = Array(b[dataStart..<dataStart + csize])
            if method == 8 {
                guard let inflated = TestGzip.inflate(data, size: u32(b, at + 24)) else { return nil }
                data = inflated
            }
            entries.append((name, data, at, local))
            at += 46 + nameLength + extra + comment
        }
        return (entries, centralStart, end)
    }

    /// The extreme integers counts and sizes are set to.
    static let extremes: [UInt64] = [0, 1, 2, (1 << 31) - 1, (1 << 32) - 1, 1 << 63, UInt64.max]
}
