import CDeflate
import SplatCore

/// Writes a `SplatScene` as SPZ v3 (legacy gzip container) or v4 (NGSP container with one zstd
/// stream per attribute), quantizing as `formats.md` 2.5 describes the reference writer. Values
/// are written as they are: no frame conversion happens here (say which frame the data is in with
/// `Options.declaredFrame`).
///
/// Deliberate differences from the reference writer: positions outside the 24-bit range are
/// clamped to it instead of wrapping silently, and NaN values quantize to the neutral byte (0 for
/// positions, 128 for SH, 0 elsewhere) instead of undefined behaviour.
public enum SPZEncoder {
    public struct Options: Sendable, Equatable {
        /// 3 (gzip container, smallest-three rotations) or 4 (NGSP container, zstd streams).
        public var version: Int
        /// Fractional bits of the 24-bit fixed-point positions (0…23; the reference uses 12:
        /// a step of 1/4096 over ±2048).
        public var fractionalBits: Int
        /// Bits kept for SH band 1 (1…8; 8 keeps every byte value).
        public var sh1Bits: Int
        /// Bits kept for SH bands 2 and above (1…8).
        public var shRestBits: Int
        /// When set, written as the SPZ coordinate-system extension (it states the frame the data
        /// is already in; nothing is converted).
        public var declaredFrame: CoordinateSystem?
        /// When set, written as the safe-orbit-camera extension.
        public var cameraHints: CameraHints?
        /// zstd level for v4 (default 12, the reference's) or libdeflate level for v3 (default 6).
        public var compressionLevel: Int?

        public init(version: Int = 4, fractionalBits: Int = 12, sh1Bits: Int = 5, shRestBits: Int = 4,
                    declaredFrame: CoordinateSystem? = nil, cameraHints: CameraHints? = nil, compressionLevel: Int? = nil) {
            self.version = version
            self.fractionalBits = fractionalBits
            self.sh1Bits = sh1Bits
            self.shRestBits = shRestBits
            self.declaredFrame = declaredFrame
            self.cameraHints = cameraHints
            self.compressionLevel = compressionLevel
        }
    }

    /// Encodes the scene. Throws `empty` for a scene without splats and `invalid_argument` for
    /// options outside their ranges or more than 2³¹−1 splats.
    public static func encode(_ scene: SplatScene, options: Options = Options()) throws(SplatError) -> [UInt8] {
        try validate(scene, options)
        var header = SPZHeader(container: options.version == 4 ? .ngspZstd : .gzip, version: options.version,
                               count: scene.count, shDegree: scene.shDegree,
                               fractionalBits: options.fractionalBits, flags: 0)
        let extensions = SPZExtensions.serialize(declaredFrame: options.declaredFrame, cameraHints: options.cameraHints)
        header.flags = (scene.model == .antialiased ? 0x01 : 0) | (extensions.isEmpty ? 0 : 0x02)

        // The legacy payload layout (16-byte header, then the blocks) serves both containers.
        guard let blocks = header.blocksSize(), let payloadSize = CheckedSize.add(blocks, SPZHeader.legacyHeaderSize) else {
            throw SplatError(.invalidArgument, "\(scene.count) splats overflow a 64-bit size")
        }
        let payload = UnsafeMutableRawBufferPointer.allocate(byteCount: payloadSize, alignment: 64)
        defer { payload.deallocate() }
        var offsets: [SPZHeader.Attribute: Int] = [:]
        var offset = SPZHeader.legacyHeaderSize
        for attribute in SPZHeader.Attribute.allCases {
            offsets[attribute] = offset
            offset += header.blockSize(attribute) ?? 0
        }
        writeLegacyHeader(header, into: payload)
        quantize(scene, options: options, header: header, offsets: offsets, into: payload)

        if options.version == 3 {
            return try gzip(UnsafeRawBufferPointer(payload), appending: extensions, level: options.compressionLevel ?? 6)
        }
        return try ngsp(header, payload: UnsafeRawBufferPointer(payload), offsets: offsets, extensions: extensions,
                        level: options.compressionLevel ?? 12)
    }

    private static func validate(_ scene: SplatScene, _ options: Options) throws(SplatError) {
        guard scene.count > 0 else {
            throw SplatError(.empty, "an SPZ file needs at least one splat")
        }
        guard scene.count <= Int(Int32.max) else {
            throw SplatError(.invalidArgument, "SPZ holds at most 2147483647 splats; the scene has \(scene.count)")
        }
        guard options.version == 3 || options.version == 4 else {
            throw SplatError(.invalidArgument, "SPZ version \(options.version) cannot be written (3 or 4)", field: "version")
        }
        guard (0...23).contains(options.fractionalBits) else {
            throw SplatError(.invalidArgument, "fractionalBits \(options.fractionalBits) is outside 0…23", field: "fractionalBits")
        }
        guard (1...8).contains(options.sh1Bits), (1...8).contains(options.shRestBits) else {
            throw SplatError(.invalidArgument, "SH bits \(options.sh1Bits)/\(options.shRestBits) are outside 1…8", field: "shBits")
        }
    }

    private static func writeLegacyHeader(_ header: SPZHeader, into payload: UnsafeMutableRawBufferPointer) {
        payload.storeBytes(of: SPZHeader.magic.littleEndian, toByteOffset: 0, as: UInt32.self)
        payload.storeBytes(of: UInt32(header.version).littleEndian, toByteOffset: 4, as: UInt32.self)
        payload.storeBytes(of: UInt32(header.count).littleEndian, toByteOffset: 8, as: UInt32.self)
        payload[12] = UInt8(header.shDegree)
        payload[13] = UInt8(header.fractionalBits)
        payload[14] = header.flags
        payload[15] = 0
    }

    // MARK: - quantization

    /// Fills every block, in parallel over fixed chunks of splats.
    private static func quantize(_ scene: SplatScene, options: Options, header: SPZHeader,
                                 offsets: [SPZHeader.Attribute: Int], into payload: UnsafeMutableRawBufferPointer) {
        let base = payload.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let positions = base + offsets[.positions]!, alphas = base + offsets[.alphas]!
        let colors = base + offsets[.colors]!, scales = base + offsets[.scales]!
        let rotations = base + offsets[.rotations]!, sh = base + offsets[.sh]!
        let positionScale = Float(sign: .plus, exponent: options.fractionalBits, significand: 1)
        let shFloats = scene.shFloatsPerSplat
        let sh1Bucket = 1 << (8 - options.sh1Bits), shRestBucket = 1 << (8 - options.shRestBits)
        let shSource = scene.sh.baseAddress
        let x = scene.columnBase(.x), y = scene.columnBase(.y), z = scene.columnBase(.z)
        let sx = scene.columnBase(.logScaleX), sy = scene.columnBase(.logScaleY), sz = scene.columnBase(.logScaleZ)
        let qw = scene.columnBase(.rotW), qx = scene.columnBase(.rotX), qy = scene.columnBase(.rotY), qz = scene.columnBase(.rotZ)
        let alpha = scene.columnBase(.alpha)
        let dcR = scene.columnBase(.dcR), dcG = scene.columnBase(.dcG), dcB = scene.columnBase(.dcB)
        let colorFactor = SPZDequantizer.colorScale * 255, colorOffset: Float = 0.5 * 255

        Parallel.forEachChunk(count: scene.count, chunkSize: 1 << 16) { _, range in
            for i in range {
                let p = positions + 9 * i
                storeFixed24(x[i] * positionScale, at: p)
                storeFixed24(y[i] * positionScale, at: p + 3)
                storeFixed24(z[i] * positionScale, at: p + 6)
                alphas[i] = byte(alpha[i] * 255)
                colors[3 * i] = byte(dcR[i] * colorFactor + colorOffset)
                colors[3 * i + 1] = byte(dcG[i] * colorFactor + colorOffset)
                colors[3 * i + 2] = byte(dcB[i] * colorFactor + colorOffset)
                scales[3 * i] = byte((sx[i] + 10) * 16)
                scales[3 * i + 1] = byte((sy[i] + 10) * 16)
                scales[3 * i + 2] = byte((sz[i] + 10) * 16)
                let word = smallestThree(x: qx[i], y: qy[i], z: qz[i], w: qw[i])
                let r = rotations + 4 * i
                r[0] = UInt8(truncatingIfNeeded: word)
                r[1] = UInt8(truncatingIfNeeded: word >> 8)
                r[2] = UInt8(truncatingIfNeeded: word >> 16)
                r[3] = UInt8(truncatingIfNeeded: word >> 24)
                if shFloats > 0, let shSource {
                    let src = shSource + i * shFloats, dst = sh + i * shFloats
                    for j in 0..<shFloats {
                        // The first three coefficients (9 floats) are band 1.
                        dst[j] = shByte(src[j], bucket: j < 9 ? sh1Bucket : shRestBucket)
                    }
                }
            }
        }
    }

    /// A coordinate already multiplied by 2^fractionalBits, rounded half away from zero and
    /// clamped to the signed 24-bit range.
    @inline(__always) static func fixedPoint(_ scaled: Float) -> Int32 {
        guard !scaled.isNaN else { return 0 }
        let r = scaled.rounded()
        return Int32(min(max(r, -8_388_608), 8_388_607))
    }

    @inline(__always) private static func storeFixed24(_ scaled: Float, at p: UnsafeMutablePointer<UInt8>) {
        let fixed = fixedPoint(scaled)
        p[0] = UInt8(truncatingIfNeeded: fixed)
        p[1] = UInt8(truncatingIfNeeded: fixed >> 8)
        p[2] = UInt8(truncatingIfNeeded: fixed >> 16)
    }

    /// round(v) clamped to 0…255 (the reference's `toUint8`); NaN → 0.
    @inline(__always) static func byte(_ v: Float) -> UInt8 {
        guard !v.isNaN else { return 0 }
        return UInt8(min(max(v.rounded(), 0), 255))
    }

    /// `round(x·128) + 128` moved to the nearest multiple of `bucket`, clamped to a byte, so 0
    /// stays exactly 128 (the reference's legacy SH quantizer).
    @inline(__always) static func shByte(_ x: Float, bucket: Int) -> UInt8 {
        guard !x.isNaN else { return 128 }
        let scaled = min(max((x * 128).rounded() + 128, -1024), 1024)
        let q = (Int(scaled) + bucket / 2) / bucket * bucket
        return UInt8(min(max(q, 0), 255))
    }

    /// The smallest-three word of `formats.md` 2.5: normalize, pick the first index of the
    /// largest magnitude (xyzw order), negate so it is positive, store the other three as
    /// sign + 9-bit magnitude. A zero or non-finite quaternion is written as identity.
    static func smallestThree(x: Float, y: Float, z: Float, w: Float) -> UInt32 {
        var q = SIMD4<Float>(x, y, z, w)
        let norm = (q * q).sum().squareRoot()
        if norm > 0 && norm.isFinite {
            q /= norm
        } else {
            q = SIMD4(0, 0, 0, 1)
        }
        var largest = 0
        for i in 1..<4 where abs(q[i]) > abs(q[largest]) { largest = i }
        let negate = q[largest] < 0
        var word = UInt32(largest)
        for i in 0..<4 where i != largest {
            // The sign bit rather than `< 0`, so a −0 that a decoder produced from a stored sign
            // bit with magnitude 0 is written back the same way.
            let negative: UInt32 = (q[i].sign == .minus) != negate ? 1 : 0
            let magnitude = min(UInt32(Float(511) * (abs(q[i]) / SPZDequantizer.sqrt1_2) + 0.5), 511)
            word = (word << 10) | (negative << 9) | magnitude
        }
        return word
    }

    // MARK: - containers

    private static func gzip(_ payload: UnsafeRawBufferPointer, appending extensions: [UInt8], level: Int) throws(SplatError) -> [UInt8] {
        var source = payload
        var joined: UnsafeMutableRawBufferPointer?
        defer { joined?.deallocate() }
        if !extensions.isEmpty {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: payload.count + extensions.count, alignment: 64)
            buffer.copyMemory(from: payload)
            extensions.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[payload.count...]).copyMemory(from: $0) }
            joined = buffer
            source = UnsafeRawBufferPointer(buffer)
        }
        guard let compressor = libdeflate_alloc_compressor(Int32(min(max(level, 0), 12))) else {
            throw SplatError(.tooLarge, "cannot allocate a libdeflate compressor")
        }
        defer { libdeflate_free_compressor(compressor) }
        var out = [UInt8](repeating: 0, count: libdeflate_gzip_compress_bound(compressor, source.count))
        let written = out.withUnsafeMutableBytes { dst in
            libdeflate_gzip_compress(compressor, source.baseAddress, source.count, dst.baseAddress, dst.count)
        }
        guard written > 0 else { throw SplatError(.tooLarge, "gzip compression of \(source.count) bytes failed") }
        out.removeSubrange(written...)
        return out
    }

    private static func ngsp(_ header: SPZHeader, payload: UnsafeRawBufferPointer, offsets: [SPZHeader.Attribute: Int],
                             extensions: [UInt8], level: Int) throws(SplatError) -> [UInt8] {
        let attributes = SPZHeader.Attribute.allCases.filter { header.stride($0) > 0 }
        var compressed = [[UInt8]?](repeating: nil, count: attributes.count)
        let zstdLevel = Int32(min(max(level, -7), 22))
        // Largest stream first, so the long SH stream starts at once.
        let order = attributes.indices.sorted { header.stride(attributes[$0]) > header.stride(attributes[$1]) }
        _ = compressed.withUnsafeMutableBufferPointer { results in
            Parallel.forEach(iterations: order.count) { task in
                let index = order[task]
                let attribute = attributes[index]
                let start = offsets[attribute]!
                let block = UnsafeRawBufferPointer(rebasing: payload[start..<start + (header.blockSize(attribute) ?? 0)])
                results[index] = ZstdCodec.compress(block, level: zstdLevel)
            }
        }
        let toc = SPZHeader.v4HeaderSize + extensions.count
        var out: [UInt8] = []
        out.reserveCapacity(toc + 16 * attributes.count + compressed.reduce(0) { $0 + ($1?.count ?? 0) })
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        func u64(_ v: UInt64) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        u32(SPZHeader.magic)
        u32(4)
        u32(UInt32(header.count))
        out += [UInt8(header.shDegree), UInt8(header.fractionalBits), header.flags, UInt8(attributes.count)]
        u32(UInt32(toc))
        out += [UInt8](repeating: 0, count: 12)
        out += extensions
        for (index, attribute) in attributes.enumerated() {
            guard let stream = compressed[index] else {
                throw SplatError(.tooLarge, "zstd compression of the \(attribute.name) stream failed")
            }
            u64(UInt64(stream.count))
            u64(UInt64(header.blockSize(attribute) ?? 0))
        }
        for stream in compressed { out += stream ?? [] }
        return out
    }
}
