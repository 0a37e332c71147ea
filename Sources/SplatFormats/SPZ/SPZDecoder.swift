import SplatCore

/// Decodes SPZ v1–v4 (`formats.md` section 2) into a `SplatScene`, in the file's own frame.
///
/// The container is told by the bytes: "NGSP" is the v4 container (raw header, TOC, one zstd
/// stream per attribute, inflated concurrently); gzip is the legacy container (v1–v3; version 4
/// inside gzip is accepted with the v3 layout and a warning). Every declared size is checked
/// against `DecodeLimits` before anything is inflated or allocated, and packed bytes are released
/// as soon as they are dequantized, so the peak memory is close to the decoded scene plus the file.
public enum SPZDecoder {
    /// Splats per chunk of parallel dequantization; a fixed size keeps results independent of the
    /// thread count.
    static let splatsPerChunk = 1 << 16

    /// Reads the header without decoding attributes: for v4 the 32-byte header, extension records
    /// and TOC (all validated); for legacy files only the first 16 inflated bytes, so extension
    /// records stored after the attributes are not reported here. Does not apply the decoded-size
    /// ceiling (callers compare `declaredDecodedBytes` themselves).
    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        try parseHeader(bytes, file: file).sceneHeader()
    }

    /// The header from the first bytes of a file of `fileSize` bytes that is still arriving:
    /// `truncated` while `prefix` is too short to hold it (v4: through the TOC; legacy: the gzip
    /// stream's first 16 inflated bytes), otherwise what `readHeader` gives for the whole file.
    public static func readHeader(prefix: UnsafeRawBufferPointer, fileSize: Int, file: String?,
                                  limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        if prefix.count >= 4, prefix.loadUnaligned(as: UInt32.self).littleEndian == SPZHeader.magic {
            return try SPZHeader.parseV4(prefix, file: file, fileSize: fileSize).sceneHeader()
        }
        return try readHeader(prefix, file: file, limits: limits)
    }

    /// Decodes the whole file. Throws the first failure in file order; never returns a partly
    /// filled scene. With `sh: .quantized` the SH codes are kept as they are in
    /// `scene.quantizedSH` (no Float32 SH is made); the size checks stay those of the Float32
    /// scene, so both forms admit exactly the same files.
    ///
    /// `geometryReady` is called at most once, on a worker thread, as soon as every column but
    /// the SH holds its final value and the scene's frame facts are set: for v4, while the SH
    /// stream (69 % of a degree-3 file) still inflates, so a caller can overlap work that reads
    /// only geometry with it. The scene must not be modified there; a decode that then fails
    /// throws as usual (the caller discards what it computed).
    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits,
                              sh storage: SHStorage = .float32,
                              geometryReady: ((SplatScene) -> Void)? = nil) throws(SplatError) -> DecodedScene {
        try decode(header: try parseHeader(bytes, file: file), source: .memory(bytes), file: file, limits: limits,
                   sh: storage, geometryReady: geometryReady)
    }

    /// Decodes an NGSP (v4) file without holding it whole: the header and TOC from its first
    /// bytes, then every stream read in small slices while it inflates. That spares a buffer the
    /// file's size, which is fresh memory the kernel zeroes before the copy (the stress scene's
    /// 84 MB), and the copy itself. Nil when `file` is not an NGSP container: legacy files are
    /// one gzip member, read whole. The result equals `decode` of the file's bytes.
    public static func decode(file: RegularFile, limits: DecodeLimits, sh storage: SHStorage = .float32,
                              geometryReady: ((SplatScene) -> Void)? = nil) throws(SplatError) -> DecodedScene? {
        let head = try file.readPrefix(SPZHeader.v4HeaderSize)
        let fields = head.withBytes { bytes -> (magic: Bool, tocEnd: Int?) in
            guard bytes.count >= 4, bytes.loadUnaligned(as: UInt32.self).littleEndian == SPZHeader.magic else { return (false, nil) }
            guard bytes.count >= SPZHeader.v4HeaderSize else { return (true, nil) }
            let toc = Int(bytes.loadUnaligned(fromByteOffset: 16, as: UInt32.self).littleEndian)
            return (true, toc + 16 * Int(bytes[15]))
        }
        guard fields.magic else { return nil }
        // Through the TOC when the file holds it; otherwise the first bytes, which `parseV4`
        // refuses with the same error as the whole file.
        var prefix = head
        if let tocEnd = fields.tocEnd, tocEnd <= file.size, tocEnd > head.count { prefix = try file.readPrefix(tocEnd) }
        let header = try prefix.withBytes { (bytes) throws(SplatError) in try SPZHeader.parseV4(bytes, file: file.path, fileSize: file.size) }
        return try decode(header: header, source: .file(file), file: file.path, limits: limits, sh: storage,
                          geometryReady: geometryReady)
    }

    private static func decode(header parsed: SPZHeader, source: SPZStreamSource, file: String?, limits: DecodeLimits,
                               sh storage: SHStorage, geometryReady: ((SplatScene) -> Void)?) throws(SplatError) -> DecodedScene {
        var header = parsed
        let keptDegree = try limits.checkScene(count: header.count, fileDegree: header.shDegree, file: file)
        guard let blocks = header.blocksSize(), let payload = CheckedSize.add(blocks, SPZHeader.legacyHeaderSize) else {
            throw SplatError(.tooLarge, "\(header.count) splats overflow a 64-bit size", file: file, field: "numPoints")
        }
        try limits.checkIntermediate(bytes: payload, what: "packed SPZ payload", file: file)

        let scene: SplatScene
        switch header.container {
        case .ngspZstd:
            scene = try decodeStreams(source, header: header, keptDegree: keptDegree, storage: storage, file: file, limits: limits,
                                      geometryReady: header.usesHalfPositions ? nil : geometryReady)
        case .gzip:
            guard case .memory(let bytes) = source else { preconditionFailure("legacy SPZ is decoded from memory") }
            scene = try decodeLegacy(bytes, header: &header, payloadSize: payload, keptDegree: keptDegree, storage: storage,
                                     file: file, limits: limits)
        }
        describe(scene, header)
        scene.warnings += header.warnings
        var sceneHeader = header.sceneHeader()
        sceneHeader.warnings = scene.warnings
        var decoded = DecodedScene(scene: scene, header: sceneHeader)
        // Every SPZ value is a byte or fixed-point integer through finite arithmetic (the square
        // roots are clamped), so the non-finite rule has nothing to find and `SplatFile` skips
        // its pass over the scene — except v1's binary16 positions, which can be ±∞ or NaN.
        decoded.valuesProvenFinite = !header.usesHalfPositions
        decoded.everySplatUsable = !header.usesHalfPositions
        return decoded
    }

    /// The scene's facts from the header (idempotent: v4 sets them before the streams finish).
    static func describe(_ scene: SplatScene, _ header: SPZHeader) {
        scene.model = header.antialiased ? .antialiased : .default
        scene.declaredFrame = header.extensions.declaredFrame
        scene.conventionalFrame = .rub
        scene.cameraHints = header.extensions.cameraHints
    }

    /// Detects the container and validates the header (and v4 TOC).
    static func parseHeader(_ bytes: UnsafeRawBufferPointer, file: String?) throws(SplatError) -> SPZHeader {
        if bytes.count >= 4, bytes.loadUnaligned(as: UInt32.self).littleEndian == SPZHeader.magic {
            return try SPZHeader.parseV4(bytes, file: file)
        }
        if bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B {
            let head = try GzipInflater.peek(bytes, count: SPZHeader.legacyHeaderSize, file: file)
            return try SPZHeader.parseLegacy(head, file: file)
        }
        if bytes.isEmpty { throw SplatError(.empty, "the file is empty", file: file) }
        throw SplatError(.badMagic, "neither NGSP nor gzip magic", file: file, offset: 0)
    }

    // MARK: - both containers (v4 streams: SPZDecoder+Streams.swift)

    /// A degree-0 scene carrying `QuantizedSH` codes for `storage == .quantized` and SH bands kept,
    /// otherwise a scene with Float32 SH of the kept degree (then nil codes).
    static func makeScene(_ header: SPZHeader, keptDegree: Int, storage: SHStorage) -> (SplatScene, QuantizedSH?) {
        guard storage == .quantized, keptDegree > 0 else { return (SplatScene(count: header.count, shDegree: keptDegree), nil) }
        let scene = SplatScene(count: header.count, shDegree: 0)
        let codes = QuantizedSH(count: header.count, stride: header.stride(.sh), degree: keptDegree)
        scene.quantizedSH = codes
        return (scene, codes)
    }

    // MARK: - legacy

    private static func decodeLegacy(_ bytes: UnsafeRawBufferPointer, header: inout SPZHeader, payloadSize: Int, keptDegree: Int,
                                     storage: SHStorage, file: String?, limits: DecodeLimits) throws(SplatError) -> SplatScene {
        let (scene, codes) = makeScene(header, keptDegree: keptDegree, storage: storage)
        let slab = UnsafeMutableRawPointer(scene.columnBase(.x))
        let shRegion = UnsafeMutableRawPointer(scene.sh.baseAddress!)
        let slabEnd = shRegion + 4 * scene.sh.count
        let shPacked = header.blockSize(.sh) ?? 0

        // When every band is kept and the trailer says the member holds exactly the payload, it
        // is inflated into the end of the scene itself: the packed SH then lands in the last
        // quarter of the decoded SH (converted in place, as for v4), and the other blocks lie
        // inside the SH floats, which are written only after those blocks are dequantized.
        // Otherwise (extension records, dropped bands, SH degree 0) it goes to its own buffer.
        let inScene = keptDegree == header.shDegree && shPacked > 0 && codes == nil
            && slabEnd - payloadSize >= UnsafeMutableRawPointer(scene.columnBase(.dcB) + scene.columnStride)
            && GzipInflater.trailerSize(bytes) == payloadSize
        let target = inScene ? UnsafeMutableRawBufferPointer(start: slabEnd - payloadSize, count: payloadSize) : nil

        // libdeflate inflates on one core; the others meanwhile map the scene's pages (the kernel
        // zeroes them) — as many as the payload is smaller than the scene, and none of those the
        // payload is inflated into — so the resident total never passes the scene plus the file.
        // Deflate expands at most 1032:1: a file too small for its payload is bound to fail, and
        // no pages are mapped for it.
        let plausible = CheckedSize.mul(bytes.count, 1032).map { $0 >= payloadSize } ?? true
        let prefault = plausible ? prefaultPieces(slab, decodedBytes: slabEnd - slab, packedBytes: payloadSize) : []
        var result: Result<(buffer: PageBuffer?, count: Int), SplatError>?
        Parallel.forEach(iterations: 1 + prefault.count) { task in
            guard task == 0 else {
                PageBuffer.populate(prefault[task - 1].start, byteCount: prefault[task - 1].count)
                return
            }
            if let target, CancellationToken.current?.deadline == nil, GzipInflater.inflateMember(bytes, exactlyInto: target) {
                result = .success((nil, payloadSize))
                return
            }
            result = Result { () throws(SplatError) in
                let (buffer, count) = try GzipInflater.inflateMember(bytes, minimumSize: payloadSize, limits: limits, file: file)
                return (buffer, count)
            }
        }
        let (buffer, inflated) = try result!.get()
        let payload = buffer?.bytes(inflated) ?? UnsafeRawBufferPointer(target!)

        // What follows the attribute blocks: extension records, Spark's LoD tree, or junk.
        if inflated > payloadSize {
            let trailing = UnsafeRawBufferPointer(rebasing: payload[payloadSize..<inflated])
            if header.hasExtensions {
                header.extensions = SPZExtensions.parse(trailing)
                header.warnings += header.extensions.warnings
            } else if header.flags & 0x80 == 0 {
                header.warnings.append("\(trailing.count) trailing bytes after attribute data ignored")
            }
        } else if header.hasExtensions {
            header.warnings.append("extension flag set but no extension records follow the attributes")
        }

        // Block offsets in the payload, in file order.
        var offsets: [SPZHeader.Attribute: Int] = [:]
        var offset = SPZHeader.legacyHeaderSize
        for attribute in SPZHeader.Attribute.allCases {
            offsets[attribute] = offset
            offset += header.blockSize(attribute) ?? 0
        }
        // In the scene, SH is converted in place afterwards; in a separate buffer, with the rest.
        let attributes = SPZHeader.Attribute.allCases.filter { $0 != .sh || (keptDegree > 0 && buffer != nil) }
        let frozen = header
        // Each chunk dequantizes all attributes of its splats; in a separate buffer it hands back
        // the pages only it read, so the payload shrinks while the scene grows.
        let cancellation = CancellationToken.current
        Parallel.forEachChunk(count: header.count, chunkSize: splatsPerChunk, cancellation: cancellation) { _, range in
            for attribute in attributes {
                let stride = frozen.stride(attribute)
                let start = offsets[attribute]! + range.lowerBound * stride
                let block = UnsafeRawBufferPointer(rebasing: payload[start..<start + range.count * stride])
                if attribute == .sh, let codes {
                    (codes.codes + range.lowerBound * stride).update(from: block.baseAddress!.assumingMemoryBound(to: UInt8.self),
                                                                     count: block.count)
                }
                dequantize(attribute, block, range: range, header: frozen, scene: scene)
                buffer?.release(start..<start + range.count * stride)
            }
        }
        if buffer == nil {
            SPZDequantizer.shInPlace(shRegion, count: shPacked, cancellation: cancellation)
        }
        try cancellation?.check("while dequantizing the SPZ payload")
        return scene
    }

    // MARK: - shared

    /// Up to 8 pieces covering the first `decodedBytes − packedBytes` bytes from `start`.
    static func prefaultPieces(_ start: UnsafeMutableRawPointer, decodedBytes: Int,
                                       packedBytes: Int) -> [(start: UnsafeMutableRawPointer, count: Int)] {
        let total = decodedBytes - packedBytes
        guard total >= 1 << 20 else { return [] }
        let pieces = 8, size = (total + pieces - 1) / pieces
        return (0..<pieces).map { (start + $0 * size, min(size, total - $0 * size)) }.filter { $0.1 > 0 }
    }

    /// Dequantizes one attribute for the splats in `range`; `block` holds exactly their bytes.
    static func dequantize(_ attribute: SPZHeader.Attribute, _ block: UnsafeRawBufferPointer, range: Range<Int>,
                                   header: SPZHeader, scene: SplatScene) {
        guard !range.isEmpty, let base = block.baseAddress else { return }
        let src = base.assumingMemoryBound(to: UInt8.self)
        let n = range.count, i = range.lowerBound
        func column(_ c: SplatScene.Column) -> UnsafeMutablePointer<Float> { scene.columnBase(c) + i }
        switch attribute {
        case .positions:
            if header.usesHalfPositions {
                SPZDequantizer.positionsHalf(src, count: n, x: column(.x), y: column(.y), z: column(.z))
            } else {
                SPZDequantizer.positions24(src, count: n, fractionalBits: header.fractionalBits,
                                           x: column(.x), y: column(.y), z: column(.z))
            }
        case .alphas:
            SPZDequantizer.alphas(src, count: n, into: column(.alpha))
        case .colors:
            SPZDequantizer.colors(src, count: n, r: column(.dcR), g: column(.dcG), b: column(.dcB))
        case .scales:
            SPZDequantizer.scales(src, count: n, x: column(.logScaleX), y: column(.logScaleY), z: column(.logScaleZ))
        case .rotations:
            let q = SPZDequantizer.RotationColumns(w: column(.rotW), x: column(.rotX), y: column(.rotY), z: column(.rotZ))
            if header.usesSmallestThree {
                SPZDequantizer.rotationsSmallestThree(src, count: n, into: q)
            } else {
                SPZDequantizer.rotationsFirstThree(src, count: n, into: q)
            }
        case .sh:
            let fileFloats = header.stride(.sh), keptFloats = scene.shFloatsPerSplat
            guard keptFloats > 0 else { return }
            SPZDequantizer.sh(src, count: n, fileFloats: fileFloats, keptFloats: keptFloats,
                              into: scene.sh.baseAddress! + i * keptFloats)
        }
    }
}
