import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// Reads PLY body values: scalars of any of the eight types in either byte order, element
/// boundaries in binary bodies (skipping list rows one by one), and ASCII token streams.
enum PLYBodyReader {
    /// Reads one scalar at `p` (unaligned) as Double.
    @inline(__always)
    static func scalar(_ p: UnsafeRawPointer, _ type: PLYScalarType, bigEndian: Bool) -> Double {
        switch type {
        case .int8: return Double(p.load(as: Int8.self))
        case .uint8: return Double(p.load(as: UInt8.self))
        case .int16: return Double(Int16(bitPattern: load(p, UInt16.self, bigEndian)))
        case .uint16: return Double(load(p, UInt16.self, bigEndian))
        case .int32: return Double(Int32(bitPattern: load(p, UInt32.self, bigEndian)))
        case .uint32: return Double(load(p, UInt32.self, bigEndian))
        case .float32: return Double(Float(bitPattern: load(p, UInt32.self, bigEndian)))
        case .float64: return Double(bitPattern: load(p, UInt64.self, bigEndian))
        }
    }

    /// The unsigned integer at `p` (unaligned), in the file's byte order.
    @inline(__always)
    private static func load<T: FixedWidthInteger>(_ p: UnsafeRawPointer, _ type: T.Type, _ bigEndian: Bool) -> T {
        let raw = p.loadUnaligned(as: T.self)
        return bigEndian ? raw.byteSwapped : raw
    }

    /// Reads a list count (an integer type) at `p`; negative counts come back negative.
    @inline(__always)
    static func listCount(_ p: UnsafeRawPointer, _ type: PLYScalarType, bigEndian: Bool) -> Int {
        let v = scalar(p, type, bigEndian: bigEndian)
        return Int(v)  // Integer types only (checked by the header parser), so always exact.
    }

    /// Byte offset of element `target`'s first row in a binary body, after checking that every
    /// element before it is complete and that `target`'s own rows fit (when they have a fixed
    /// size). Elements with lists are skipped row by row.
    static func binaryElementOffset(_ header: PLYHeader, target: Int, bytes: UnsafeRawBufferPointer,
                                    file: String?) throws(SplatError) -> Int {
        // With the bytes at hand every element can be skipped, so there is always an answer.
        try binaryElementOffset(header, target: target, byteCount: bytes.count, bytes: bytes, file: file)!
    }

    /// The same offset for a body of `byteCount` bytes that is not in memory (a file read in
    /// slices): nil when an element before `target` has lists, whose rows must be read to be
    /// skipped (`bytes` nil). The checks and errors are those of the in-memory form.
    static func binaryElementOffset(_ header: PLYHeader, target: Int, byteCount: Int, bytes: UnsafeRawBufferPointer?,
                                    file: String?) throws(SplatError) -> Int? {
        let bigEndian = header.format == .binaryBigEndian
        var offset = header.bodyOffset
        for e in 0...target {
            let element = header.elements[e]
            if let rowSize = element.rowSize {
                guard let need = CheckedSize.mul(element.count, rowSize) else {
                    throw SplatError(.tooLarge, "element \(element.name): \(element.count) rows of \(rowSize) bytes overflow a 64-bit size",
                                     file: file, offset: offset, field: "element \(element.name)")
                }
                let left = byteCount - offset
                guard need <= left else {
                    throw SplatError(.truncated, "element \(element.name) needs \(need) bytes, \(left) left",
                                     file: file, offset: offset, field: "element \(element.name)")
                }
                if e < target { offset += need }
            } else if e < target {
                guard let bytes else { return nil }
                offset = try skipListRows(element, from: offset, bytes: bytes, bigEndian: bigEndian, file: file)
            }
        }
        return offset
    }

    /// Skips the rows of an element that has list properties; returns the offset after it.
    static func skipListRows(_ element: PLYElement, from start: Int, bytes: UnsafeRawBufferPointer,
                             bigEndian: Bool, file: String?) throws(SplatError) -> Int {
        var offset = start
        let end = bytes.count
        guard let base = bytes.baseAddress else {
            if element.count == 0 { return offset }
            throw SplatError(.truncated, "element \(element.name) is missing", file: file, offset: offset)
        }
        for row in 0..<element.count {
            for p in element.properties {
                if let countType = p.listCountType {
                    guard end - offset >= countType.size else {
                        throw SplatError(.truncated, "element \(element.name) row \(row): list \(p.name) count past the end of the file",
                                         file: file, offset: offset, field: p.name)
                    }
                    let n = listCount(base + offset, countType, bigEndian: bigEndian)
                    offset += countType.size
                    guard n >= 0 else {
                        throw SplatError(.corrupt, "element \(element.name) row \(row): list \(p.name) has negative length \(n)",
                                         file: file, offset: offset, field: p.name)
                    }
                    guard let items = CheckedSize.mul(n, p.type.size), items <= end - offset else {
                        throw SplatError(.truncated, "element \(element.name) row \(row): list \(p.name) of \(n) items runs past the end of the file",
                                         file: file, offset: offset, field: p.name)
                    }
                    offset += items
                } else {
                    guard end - offset >= p.type.size else {
                        throw SplatError(.truncated, "element \(element.name) row \(row): property \(p.name) past the end of the file",
                                         file: file, offset: offset, field: p.name)
                    }
                    offset += p.type.size
                }
            }
        }
        return offset
    }
}

/// Whitespace-separated decimal tokens of an ASCII PLY body, parsed in order.
struct PLYASCIITokens {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let file: String?

    init(_ bytes: UnsafeRawBufferPointer, from start: Int, file: String?) {
        self.bytes = bytes
        self.position = start
        self.file = file
    }

    @inline(__always)
    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D || b == 0x0B || b == 0x0C }

    /// The next token's byte range, or nil at the end of the body.
    mutating func next() -> Range<Int>? {
        let end = bytes.count
        while position < end && Self.isSpace(bytes[position]) { position += 1 }
        guard position < end else { return nil }
        let start = position
        while position < end && !Self.isSpace(bytes[position]) { position += 1 }
        return start..<position
    }

    /// The next token as a number; `what` names the value for the error message.
    mutating func nextNumber(_ what: @autoclosure () -> String) throws(SplatError) -> Double {
        guard let range = next() else {
            throw SplatError(.truncated, "ASCII body ended before \(what())", file: file, offset: position)
        }
        guard let value = Self.parseNumber(UnsafeRawBufferPointer(rebasing: bytes[range])) else {
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range.prefix(40)]), as: UTF8.self)
            throw SplatError(.corrupt, "ASCII token '\(text)' for \(what()) is not a number", file: file, offset: range.lowerBound)
        }
        return value
    }

    /// Parses a decimal (integer or floating, `inf`/`nan` allowed) with strtod on a
    /// NUL-terminated stack copy, so it never reads past the token.
    static func parseNumber(_ token: UnsafeRawBufferPointer) -> Double? {
        guard token.count > 0, token.count < 128 else { return nil }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: token.count + 1) { buf -> Double? in
            guard let base = buf.baseAddress else { return nil }
            for i in 0..<token.count { base[i] = CChar(bitPattern: token[i]) }
            base[token.count] = 0
            var endPtr: UnsafeMutablePointer<CChar>?
            let v = strtod(base, &endPtr)
            guard let endPtr, endPtr == base + token.count else { return nil }
            return v
        }
    }
}
