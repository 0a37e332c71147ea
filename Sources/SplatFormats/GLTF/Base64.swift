/// Strict base64 (RFC 4648, standard alphabet) for glTF data URIs: surrounding whitespace is
/// ignored; inside, only the 64 letters, then at most two `=`, with a length that is a multiple
/// of four. Anything else is invalid (no silent skipping of stray characters).
enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The padded encoding of `bytes`.
    static func encode(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: UInt8(ascii: "="), count: (bytes.count + 2) / 3 * 4)
        var o = 0, i = 0
        while i < bytes.count {
            let n = min(3, bytes.count - i)
            var quad = UInt32(bytes[i]) << 16
            if n > 1 { quad |= UInt32(bytes[i + 1]) << 8 }
            if n > 2 { quad |= UInt32(bytes[i + 2]) }
            for k in 0...n { out[o + k] = alphabet[Int((quad >> (18 - 6 * UInt32(k))) & 0x3F)] }
            o += 4
            i += 3
        }
        return out
    }

    private static let invalid: UInt8 = 0xFF

    private static let table: [UInt8] = {
        var t = [UInt8](repeating: invalid, count: 256)
        for (i, c) in alphabet.enumerated() { t[Int(c)] = UInt8(i) }
        return t
    }()

    /// The decoded bytes and the heap buffer holding them, or nil for invalid input. Callers
    /// bound `text.count / 4 · 3` against their limits first.
    static func decode(_ text: UnsafeRawBufferPointer) -> (bytes: UnsafeRawBufferPointer, owner: AnyObject)? {
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (0x09...0x0D).contains(b) }
        var start = 0, end = text.count
        while start < end, isSpace(text[start]) { start += 1 }
        while end > start, isSpace(text[end - 1]) { end -= 1 }
        let length = end - start
        guard length % 4 == 0 else { return nil }
        var padding = 0
        while padding < 2, end - padding > start, text[end - padding - 1] == UInt8(ascii: "=") { padding += 1 }
        let outCount = length / 4 * 3 - padding
        let storage = RetainedBytes.Storage(count: outCount)
        let out = storage.buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
        guard length > 0, let base = text.baseAddress else {
            return (UnsafeRawBufferPointer(start: storage.buffer.baseAddress, count: 0), storage)
        }
        let ok = table.withUnsafeBufferPointer { lookup -> Bool in
            let src = base + start
            var written = 0
            var i = 0
            while i < length {
                let last = i + 4 == length
                var quad: UInt32 = 0
                for k in 0..<4 {
                    let c = src.load(fromByteOffset: i + k, as: UInt8.self)
                    if last, k >= 4 - padding {
                        quad <<= 6
                        continue
                    }
                    let v = lookup[Int(c)]
                    if v == invalid { return false }
                    quad = quad << 6 | UInt32(v)
                }
                let produced = last ? 3 - padding : 3
                if produced > 0 { out[written] = UInt8(truncatingIfNeeded: quad >> 16) }
                if produced > 1 { out[written + 1] = UInt8(truncatingIfNeeded: quad >> 8) }
                if produced > 2 { out[written + 2] = UInt8(truncatingIfNeeded: quad) }
                written += produced
                i += 4
            }
            return true
        }
        guard ok else { return nil }
        return (UnsafeRawBufferPointer(start: storage.buffer.baseAddress, count: outCount), storage)
    }
}
