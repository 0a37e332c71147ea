import CDeflate
import SplatCore

/// A read-only zip reader driven by the central directory (`formats.md` 5.1), enough for
/// bundled SOG files: stored and raw-deflate entries, local headers with zero sizes (general
/// purpose flag bit 3, sizes in data descriptors), CRC-32 checked on every read. ZIP64,
/// multi-disk archives, encryption and other methods are `unsupported`; an entry name that is
/// absolute or has a `..` component is `bad_meta`. The archive bytes are borrowed, not copied.
struct ZipArchive {
    /// One central-directory record.
    struct Entry: Sendable, Equatable {
        var name: String
        /// 0 stored, 8 deflate.
        var method: UInt16
        var flags: UInt16
        var crc32: UInt32
        var compressedSize: Int
        var uncompressedSize: Int
        var localHeaderOffset: Int
    }

    static let endRecordSignature: UInt32 = 0x0605_4B50
    static let zip64LocatorSignature: UInt32 = 0x0706_4B50
    static let centralSignature: UInt32 = 0x0201_4B50
    static let localSignature: UInt32 = 0x0403_4B50

    let bytes: UnsafeRawBufferPointer
    /// The archive's name, used in errors.
    let file: String?
    /// Central-directory entries in directory order.
    let entries: [Entry]

    /// Parses the end record and the central directory. Entry data is only touched by `contents(of:)`.
    init(_ bytes: UnsafeRawBufferPointer, file: String?) throws(SplatError) {
        self.bytes = bytes
        self.file = file
        let reader = Reader(bytes)
        let end = try Self.findEndRecord(reader, file: file)

        let disk = reader.u16(end + 4), centralDisk = reader.u16(end + 6)
        let entriesHere = reader.u16(end + 8), entryCount = reader.u16(end + 10)
        let centralSize32 = reader.u32(end + 12), centralOffset32 = reader.u32(end + 16)
        if entryCount == 0xFFFF || centralSize32 == 0xFFFF_FFFF || centralOffset32 == 0xFFFF_FFFF
            || (end >= 20 && reader.u32(end - 20) == Self.zip64LocatorSignature) {
            throw SplatError(.unsupported, "ZIP64 archives are not supported", file: file, offset: end)
        }
        guard disk == 0, centralDisk == 0, entriesHere == entryCount else {
            throw SplatError(.unsupported, "multi-disk zip archives are not supported", file: file, offset: end)
        }
        let centralOffset = Int(centralOffset32), centralSize = Int(centralSize32)
        guard let centralEnd = CheckedSize.add(centralOffset, centralSize), centralEnd <= end else {
            throw SplatError(.corrupt, "central directory at \(centralOffset) of \(centralSize) bytes runs past the end record at \(end)",
                             file: file, offset: end + 16, field: "central directory offset")
        }

        var entries: [Entry] = []
        entries.reserveCapacity(Int(entryCount))
        var seen = Set<String>()
        var at = centralOffset
        for index in 0..<Int(entryCount) {
            guard at + 46 <= centralEnd, reader.u32(at) == Self.centralSignature else {
                throw SplatError(.corrupt, "central directory entry \(index) missing (expected signature PK\\1\\2 inside the \(centralSize)-byte directory)",
                                 file: file, offset: at)
            }
            let flags = reader.u16(at + 8), method = reader.u16(at + 10)
            let crc = reader.u32(at + 16)
            let compressed = reader.u32(at + 20), uncompressed = reader.u32(at + 24)
            let nameLength = Int(reader.u16(at + 28)), extraLength = Int(reader.u16(at + 30))
            let commentLength = Int(reader.u16(at + 32)), startDisk = reader.u16(at + 34)
            let localOffset = reader.u32(at + 42)
            let nameStart = at + 46
            let next = nameStart + nameLength + extraLength + commentLength
            guard next <= centralEnd else {
                throw SplatError(.corrupt, "central directory entry \(index) runs past the directory", file: file, offset: at)
            }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameStart + nameLength]), as: UTF8.self)
            if compressed == 0xFFFF_FFFF || uncompressed == 0xFFFF_FFFF || localOffset == 0xFFFF_FFFF
                || Self.hasZip64Extra(reader, from: nameStart + nameLength, count: extraLength) {
                throw SplatError(.unsupported, "entry \(name) uses ZIP64 fields, which are not supported", file: file, offset: at)
            }
            guard startDisk == 0 else {
                throw SplatError(.unsupported, "entry \(name) starts on disk \(startDisk); multi-disk archives are not supported", file: file, offset: at)
            }
            guard Self.isSafeName(name) else {
                throw SplatError(.badMeta, "entry name \"\(name)\" is absolute or has a '..' component", file: file, offset: at)
            }
            guard seen.insert(name).inserted else {
                throw SplatError(.corrupt, "entry name \"\(name)\" appears twice in the central directory", file: file, offset: at)
            }
            entries.append(Entry(name: name, method: method, flags: flags, crc32: crc, compressedSize: Int(compressed),
                                 uncompressedSize: Int(uncompressed), localHeaderOffset: Int(localOffset)))
            at = next
        }
        self.entries = entries
    }

    /// The entry with exactly this name, if any.
    func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// The uncompressed bytes of `entry`: borrowed from the archive when stored, inflated into an
    /// owned buffer (of exactly the central-directory size, checked against `limits` first) when
    /// deflated. The CRC-32 is verified either way.
    func contents(of entry: Entry, limits: DecodeLimits) throws(SplatError) -> RetainedBytes {
        let where_ = entryLabel(entry)
        if entry.flags & 0x41 != 0 {
            throw SplatError(.unsupported, "entry \(entry.name) is encrypted", file: where_)
        }
        guard entry.method == 0 || entry.method == 8 else {
            throw SplatError(.unsupported, "entry \(entry.name) uses compression method \(entry.method); only stored (0) and deflate (8) are supported",
                             file: where_, field: "method")
        }
        let data = try dataRange(of: entry)
        let region: RetainedBytes
        if entry.method == 0 {
            guard entry.compressedSize == entry.uncompressedSize else {
                throw SplatError(.corrupt, "stored entry \(entry.name) has compressed size \(entry.compressedSize) but uncompressed size \(entry.uncompressedSize)",
                                 file: where_, offset: entry.localHeaderOffset)
            }
            region = RetainedBytes(bytes: UnsafeRawBufferPointer(rebasing: bytes[data]), owner: nil)
        } else {
            try limits.checkIntermediate(bytes: entry.uncompressedSize, what: "zip entry \(entry.name)", file: where_)
            region = try inflate(UnsafeRawBufferPointer(rebasing: bytes[data]), entry: entry)
        }
        let crc = region.withBytes { b in
            b.isEmpty ? 0 : UInt32(truncatingIfNeeded: libdeflate_crc32(0, b.baseAddress, b.count))
        }
        guard crc == entry.crc32 else {
            throw SplatError(.corrupt, "entry \(entry.name): CRC-32 is \(zipHex(crc)), the central directory says \(zipHex(entry.crc32))",
                             file: where_, offset: data.lowerBound)
        }
        return region
    }

    /// "archive:entry", the name errors carry.
    func entryLabel(_ entry: Entry) -> String {
        file.map { "\($0):\(entry.name)" } ?? entry.name
    }

    // MARK: - Structure

    private func dataRange(of entry: Entry) throws(SplatError) -> Range<Int> {
        let reader = Reader(bytes)
        let at = entry.localHeaderOffset
        guard let headerEnd = CheckedSize.add(at, 30), headerEnd <= bytes.count, reader.u32(at) == Self.localSignature else {
            throw SplatError(.corrupt, "entry \(entry.name): no local header (PK\\3\\4) at offset \(at) of a \(bytes.count)-byte archive",
                             file: entryLabel(entry), offset: at)
        }
        let nameLength = Int(reader.u16(at + 26)), extraLength = Int(reader.u16(at + 28))
        let start = headerEnd + nameLength + extraLength
        guard let end = CheckedSize.add(start, entry.compressedSize), end <= bytes.count else {
            throw SplatError(.corrupt, "entry \(entry.name): \(entry.compressedSize) bytes of data at offset \(start) run past the end of the \(bytes.count)-byte archive",
                             file: entryLabel(entry), offset: start)
        }
        // The local name must match: a different one means the central offset points elsewhere.
        let localName = UnsafeRawBufferPointer(rebasing: bytes[headerEnd..<headerEnd + nameLength])
        guard localName.elementsEqual(entry.name.utf8) else {
            throw SplatError(.corrupt, "entry \(entry.name): the local header at offset \(at) names a different file",
                             file: entryLabel(entry), offset: at)
        }
        return start..<end
    }

    private func inflate(_ input: UnsafeRawBufferPointer, entry: Entry) throws(SplatError) -> RetainedBytes {
        let out = RetainedBytes.Storage(count: entry.uncompressedSize)
        guard let decompressor = libdeflate_alloc_decompressor() else {
            throw SplatError(.tooLarge, "out of memory allocating an inflater", file: entryLabel(entry))
        }
        defer { libdeflate_free_decompressor(decompressor) }
        // A nil actual-size pointer makes libdeflate demand exactly the central-directory size.
        let result = libdeflate_deflate_decompress(decompressor, input.baseAddress, input.count,
                                                   out.buffer.baseAddress, entry.uncompressedSize, nil)
        guard result == LIBDEFLATE_SUCCESS else {
            let reason = switch result {
            case LIBDEFLATE_SHORT_OUTPUT: "inflates to fewer bytes than"
            case LIBDEFLATE_INSUFFICIENT_SPACE: "inflates to more bytes than"
            default: "is not a valid deflate stream of"
            }
            throw SplatError(.corrupt, "entry \(entry.name) \(reason) the \(entry.uncompressedSize) bytes the central directory says",
                             file: entryLabel(entry), offset: entry.localHeaderOffset)
        }
        return RetainedBytes(bytes: UnsafeRawBufferPointer(rebasing: out.buffer[0..<entry.uncompressedSize]), owner: out)
    }

    /// Scans back over at most a 64 KiB comment for the end record.
    private static func findEndRecord(_ reader: Reader, file: String?) throws(SplatError) -> Int {
        let count = reader.bytes.count
        guard count >= 22 else {
            throw SplatError(.truncated, "\(count) bytes is too short for a zip archive (end record is 22 bytes)", file: file)
        }
        var at = count - 22
        let lowest = max(0, count - 22 - 0xFFFF)
        while at >= lowest {
            if reader.u32(at) == endRecordSignature, at + 22 + Int(reader.u16(at + 20)) <= count { return at }
            at -= 1
        }
        throw SplatError(.truncated, "no end-of-central-directory record: the zip is cut short or damaged", file: file)
    }

    private static func hasZip64Extra(_ reader: Reader, from start: Int, count: Int) -> Bool {
        var at = start
        let end = start + count
        while at + 4 <= end {
            if reader.u16(at) == 0x0001 { return true }
            at += 4 + Int(reader.u16(at + 2))
        }
        return false
    }

    /// A name that cannot escape a folder: not absolute, no drive letter, no `..` component
    /// (with `/` or `\` as separators).
    static func isSafeName(_ name: String) -> Bool {
        if name.hasPrefix("/") || name.hasPrefix("\\") { return false }
        let scalars = Array(name.unicodeScalars.prefix(2))
        if scalars.count == 2, scalars[1] == ":", scalars[0].properties.isAlphabetic { return false }
        return !name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).contains("..")
    }
}

extension ZipArchive {
    /// Unaligned little-endian reads; callers check bounds first.
    fileprivate struct Reader {
        let bytes: UnsafeRawBufferPointer
        init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        @inline(__always) func u16(_ at: Int) -> UInt16 {
            UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self))
        }

        @inline(__always) func u32(_ at: Int) -> UInt32 {
            UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self))
        }
    }
}

private func zipHex(_ v: UInt32) -> String {
    let digits = String(v, radix: 16)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}
