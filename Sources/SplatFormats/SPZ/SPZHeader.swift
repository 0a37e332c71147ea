import SplatCore

/// The facts of an SPZ file read before any attribute is decoded: the fixed header, for v4 the
/// TOC and extension records, all validated in the order of `formats.md` 2.2/2.3 with the error
/// kinds of 8.4.
struct SPZHeader: Sendable {
    enum Container: String, Sendable {
        /// v1–v3: one gzip member holding a 16-byte header and the attribute blocks.
        case gzip
        /// v4: a 32-byte header, extension records, a TOC and one zstd stream per attribute.
        case ngspZstd = "ngsp-zstd"
    }

    /// The attribute blocks / streams, in file order.
    enum Attribute: Int, CaseIterable, Sendable {
        case positions, alphas, colors, scales, rotations, sh

        var name: String {
            switch self {
            case .positions: "positions"
            case .alphas: "alphas"
            case .colors: "colors"
            case .scales: "scales"
            case .rotations: "rotations"
            case .sh: "sh"
            }
        }
    }

    /// One v4 stream: where its compressed bytes are and how large it inflates.
    struct Stream: Sendable {
        var attribute: Attribute
        var compressedOffset: Int
        var compressedSize: Int
        var uncompressedSize: Int
    }

    static let magic: UInt32 = 0x5053_474E
    static let legacyHeaderSize = 16
    static let v4HeaderSize = 32

    var container: Container
    var version: Int
    var count: Int
    var shDegree: Int
    var fractionalBits: Int
    var flags: UInt8
    /// v4 only.
    var tocByteOffset: Int?
    /// v4 only, in file order (empty streams omitted).
    var streams: [Stream] = []
    /// v4: parsed from the bytes before the TOC. Legacy: filled in once the payload is inflated.
    var extensions = SPZExtensions()
    var warnings: [String] = []

    var antialiased: Bool { flags & 0x01 != 0 }
    var hasExtensions: Bool { flags & 0x02 != 0 }
    /// Legacy v1 stores positions as float16.
    var usesHalfPositions: Bool { version == 1 }
    /// v1/v2 store three quaternion components, v3+ the smallest three.
    var usesSmallestThree: Bool { version >= 3 }
    var shCoefficients: Int { SplatScene.shCoefficientCount(degree: shDegree) }

    /// Bytes per splat of each block in this file's layout.
    func stride(_ attribute: Attribute) -> Int {
        switch attribute {
        case .positions: usesHalfPositions ? 6 : 9
        case .alphas: 1
        case .colors: 3
        case .scales: 3
        case .rotations: usesSmallestThree ? 4 : 3
        case .sh: 3 * shCoefficients
        }
    }

    /// Size of each block for `count` splats, checked; nil on overflow.
    func blockSize(_ attribute: Attribute) -> Int? { CheckedSize.mul(count, stride(attribute)) }

    /// Sum of all blocks, checked; nil on overflow.
    func blocksSize() -> Int? {
        var total = 0
        for a in Attribute.allCases {
            guard let size = blockSize(a), let sum = CheckedSize.add(total, size) else { return nil }
            total = sum
        }
        return total
    }

    // MARK: - v4

    /// Reads and validates a v4 header, its extension records and TOC (`formats.md` 2.3 checks
    /// 1–7 in order). The decoded-size ceiling (check 8) is the caller's, so `readHeader` can
    /// report sizes of files it would refuse to decode. `fileSize` (default: all of `bytes`) is
    /// the whole file's length when `bytes` is only its start (an upload still arriving): the
    /// checks are then made against it, and bytes up to the end of the TOC must be present.
    static func parseV4(_ bytes: UnsafeRawBufferPointer, file: String?, fileSize: Int? = nil) throws(SplatError) -> SPZHeader {
        let fileSize = fileSize ?? bytes.count
        guard fileSize >= v4HeaderSize, bytes.count >= v4HeaderSize else {
            throw SplatError(.truncated, "NGSP header shorter than 32 bytes", file: file, offset: 0)
        }
        func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian }
        func u64(_ at: Int) -> UInt64 { bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian }
        guard u32(0) == magic else {
            throw SplatError(.badMagic, "not an NGSP container", file: file, offset: 0)
        }
        // Raw u32 fields are compared before converting to Int, which may be 32 bits wide.
        let version = u32(4)
        guard version == 4 else {
            throw SplatError(.unsupportedVersion, "NGSP container with version \(version)", file: file, offset: 4, field: "version")
        }
        let rawCount = u32(8)
        guard rawCount > 0 else { throw SplatError(.empty, "numPoints is 0", file: file, offset: 8, field: "numPoints") }
        // The reference's guard against tiny files claiming billions of points.
        let plausible = CheckedSize.mul(fileSize, 1024).map { $0 / 9 } ?? Int.max
        guard rawCount <= UInt32(Int32.max), Int(rawCount) <= plausible else {
            throw SplatError(.implausibleCount, "numPoints \(rawCount) for a \(fileSize)-byte file", file: file, offset: 8, field: "numPoints")
        }
        let n = Int(rawCount)
        let degree = Int(bytes[12]), fractionalBits = Int(bytes[13]), flags = bytes[14], numStreams = Int(bytes[15])
        guard degree <= 4 else { throw SplatError(.badHeader, "shDegree \(degree)", file: file, offset: 12, field: "shDegree") }
        guard fractionalBits <= 31 else {
            throw SplatError(.badHeader, "fractionalBits \(fractionalBits)", file: file, offset: 13, field: "fractionalBits")
        }
        var header = SPZHeader(container: .ngspZstd, version: 4, count: n, shDegree: degree,
                               fractionalBits: fractionalBits, flags: flags)
        if (20..<32).contains(where: { bytes[$0] != 0 }) {
            header.warnings.append("reserved header bytes are not zero")
        }
        if flags & ~0x03 != 0 {
            header.warnings.append("unknown flag bits 0x\(String(flags & ~0x03, radix: 16)) ignored")
        }

        let layout = Attribute.allCases.filter { header.stride($0) > 0 }
        guard numStreams == layout.count else {
            throw SplatError(.badTOC, "numStreams \(numStreams), expected \(layout.count)", file: file, offset: 15, field: "numStreams")
        }
        let rawToc = u32(16)
        guard let toc = Int(exactly: rawToc), toc >= v4HeaderSize,
              let tocEnd = CheckedSize.add(toc, 16 * numStreams), tocEnd <= fileSize else {
            throw SplatError(.badTOC, "tocByteOffset \(rawToc)", file: file, offset: 16, field: "tocByteOffset")
        }
        guard tocEnd <= bytes.count else {
            throw SplatError(.truncated, "the TOC ends at byte \(tocEnd), past the \(bytes.count) bytes read", file: file, offset: toc)
        }
        header.tocByteOffset = toc
        if header.hasExtensions {
            header.extensions = SPZExtensions.parse(UnsafeRawBufferPointer(rebasing: bytes[v4HeaderSize..<toc]))
            header.warnings += header.extensions.warnings
        } else if toc > v4HeaderSize {
            header.warnings.append("\(toc - v4HeaderSize) bytes between header and TOC without the extension flag; ignored")
        }

        var offset = toc + 16 * numStreams
        for (i, attribute) in layout.enumerated() {
            let entry = toc + 16 * i
            let compressed = u64(entry), uncompressed = u64(entry + 8)
            let expected = header.blockSize(attribute) ?? Int.max
            guard let usize = CheckedSize.int(uncompressed), usize == expected else {
                throw SplatError(.badTOC, "stream \(attribute.name): uncompressedSize \(uncompressed), expected \(expected)",
                                 file: file, offset: entry + 8, field: attribute.name)
            }
            guard let csize = CheckedSize.int(compressed), csize <= fileSize - offset else {
                throw SplatError(.truncated, "stream \(attribute.name) runs past end of file", file: file, offset: entry, field: attribute.name)
            }
            header.streams.append(Stream(attribute: attribute, compressedOffset: offset, compressedSize: csize, uncompressedSize: usize))
            offset += csize
        }
        guard offset == fileSize else {
            throw SplatError(.badTOC, "\(fileSize - offset) bytes after the last stream", file: file, offset: offset)
        }
        return header
    }

    // MARK: - legacy

    /// Validates the 16 inflated header bytes of a legacy file (`formats.md` 2.2).
    /// Version 4 inside gzip is accepted with the v3 layout and a warning: no known writer makes
    /// it, but the reference's legacy reader accepts it, and refusing a readable file helps nobody.
    static func parseLegacy(_ head: [UInt8], file: String?) throws(SplatError) -> SPZHeader {
        guard head.count >= legacyHeaderSize else {
            throw SplatError(.truncated, "gzip payload shorter than the 16-byte header", file: file)
        }
        func u32(_ at: Int) -> UInt32 {
            UInt32(head[at]) | UInt32(head[at + 1]) << 8 | UInt32(head[at + 2]) << 16 | UInt32(head[at + 3]) << 24
        }
        guard u32(0) == magic else {
            throw SplatError(.badMagic, "gzip payload does not start with NGSP", file: file, offset: 0)
        }
        let rawVersion = u32(4)
        guard (1...4).contains(rawVersion) else {
            throw SplatError(.unsupportedVersion, "legacy version \(rawVersion)", file: file, offset: 4, field: "version")
        }
        let version = Int(rawVersion)
        let rawCount = u32(8)
        guard rawCount > 0 else { throw SplatError(.empty, "numPoints is 0", file: file, offset: 8, field: "numPoints") }
        guard rawCount <= UInt32(Int32.max) else {
            throw SplatError(.implausibleCount, "numPoints \(rawCount)", file: file, offset: 8, field: "numPoints")
        }
        let n = Int(rawCount)
        let degree = Int(head[12]), fractionalBits = Int(head[13]), flags = head[14]
        guard degree <= 4 else { throw SplatError(.badHeader, "shDegree \(degree)", file: file, offset: 12, field: "shDegree") }
        guard fractionalBits <= 31 else {
            throw SplatError(.badHeader, "fractionalBits \(fractionalBits)", file: file, offset: 13, field: "fractionalBits")
        }
        var header = SPZHeader(container: .gzip, version: version, count: n, shDegree: degree,
                               fractionalBits: fractionalBits, flags: flags)
        if version == 4 {
            header.warnings.append("version 4 inside a gzip container (no known writer makes this); decoded with the v3 layout")
        }
        if head[15] != 0 {
            header.warnings.append("reserved header byte is \(head[15]), expected 0")
        }
        if flags & 0x80 != 0 {
            header.warnings.append("flag 0x80 (Spark LoD tree): the tree after the attributes is ignored and alpha decoded as usual")
        }
        if flags & ~0x83 != 0 {
            header.warnings.append("unknown flag bits 0x\(String(flags & ~0x83, radix: 16)) ignored")
        }
        return header
    }

    // MARK: - reporting

    /// The format-neutral header the library reports.
    func sceneHeader() -> SceneHeader {
        var details: [String: String] = [
            "container": container.rawValue,
            "fractional_bits": String(fractionalBits),
            "flags": String(flags),
            "antialiased": antialiased ? "true" : "false",
            "has_extensions": hasExtensions ? "true" : "false",
        ]
        if let tocByteOffset {
            details["num_streams"] = String(streams.count)
            details["toc_byte_offset"] = String(tocByteOffset)
        }
        if !extensions.records.isEmpty {
            details["extensions"] = extensions.records.map { SPZExtensions.hex($0.type) }.joined(separator: ",")
        }
        var header = SceneHeader(format: .spz, version: version, count: count, shDegree: shDegree,
                                 model: antialiased ? .antialiased : .default,
                                 declaredFrame: extensions.declaredFrame, conventionalFrame: .rub,
                                 cameraHints: extensions.cameraHints, warnings: warnings, details: details)
        header.decodeScratchBytes = decodeScratchBytes
        // A v4 file is read in slices (`SPZDecoder.decode(file:)`): its bytes through the TOC,
        // then one slice per stream inflating at once.
        if let tocByteOffset {
            header.fileSliceBytes = CheckedSize.add(tocByteOffset + 16 * streams.count,
                                                    CheckedSize.mul(streams.count, ZstdCodec.pieceBytes) ?? Int.max)
        }
        return header
    }

    /// v4: every stream but SH is inflated aside before it is dequantized (SH too when bands are
    /// dropped; counted, as the estimate must not depend on the caller's degree); legacy: the
    /// whole payload may be inflated aside when it cannot go into the scene's own memory.
    var decodeScratchBytes: Int {
        if tocByteOffset != nil { return streams.reduce(0) { $0 + $1.uncompressedSize } }
        return (blocksSize().flatMap { CheckedSize.add($0, Self.legacyHeaderSize) }) ?? 0
    }
}
