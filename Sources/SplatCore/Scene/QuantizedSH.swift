/// Where the decoder should put a scene's non-DC SH bands.
public enum SHStorage: String, Sendable, Equatable {
    /// Float32 in the scene's `sh` array: the model `convert`, `info --stats` and the library's
    /// decode API work on.
    case float32
    /// For files that store SH as 8-bit codes (SPZ): the codes as they are, in
    /// `SplatScene.quantizedSH`, and no Float32 SH at all. The renderer evaluates them directly;
    /// it is the form render jobs decode to (a 3.4M-splat degree-3 scene: 153 MiB instead of
    /// 612 MiB). Formats without 8-bit SH decode to Float32 whatever this says.
    case quantized
}

/// A scene's non-DC SH kept as a file's 8-bit codes, for rendering: coefficient = code/128 − 1
/// (SPZ's (b − 128)/128, `formats.md` 2), which is exact in Float32, so evaluating from the codes
/// gives the very coefficients the Float32 decode holds.
///
/// Layout: `stride` bytes a splat, coefficient-major and channel-minor like `SplatScene.sh`
/// (`codes[i·stride + 3k + c]`), with 16 readable bytes past the last splat so a 4-byte load of
/// the last coefficient stays inside the allocation.
///
/// The codes are never rewritten by a change of frame. A rotation or mirror M of the scene
/// (p′ = M·p) is recorded instead in `storedDirection`: the SH function in the new frame is
/// f(Mᵀ·d) for the stored f, because M is orthogonal, so the renderer turns each viewing direction
/// back into the stored frame (9 multiply-adds per 8 splats) rather than mixing coefficients —
/// exact for the signed permutations of the named frames, where the Float32 path is exact too.
public final class QuantizedSH: @unchecked Sendable {
    /// Bands evaluated (at most the stored degree).
    public let degree: Int
    /// Bytes of codes per splat (3 per stored coefficient; may hold bands above `degree`).
    public let stride: Int
    /// Splats the storage holds (the scene's count; shrinks with `SplatScene.compact`).
    public internal(set) var count: Int
    /// The codes, `count × stride` bytes.
    public let codes: UnsafeMutablePointer<UInt8>
    /// Rows of the orthogonal matrix taking a direction in the scene's current frame into the
    /// frame the codes were stored in; nil while that is the identity.
    public private(set) var storedDirection: [SIMD3<Double>]?

    /// Readable bytes past the last splat's codes.
    public static let tailPadding = 16

    /// Allocates (uninitialised, apart from the zeroed tail) codes for `count` splats of
    /// `stride` bytes. Callers check the size against their limits first.
    public init(count: Int, stride: Int, degree: Int) {
        precondition(count >= 0 && stride >= 3 * SplatScene.shCoefficientCount(degree: degree), "shape is checked by the decoder")
        self.count = count
        self.stride = stride
        self.degree = degree
        let bytes = count * stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes + Self.tailPadding, alignment: 64)
        HugePageAdvice.advise(raw, byteCount: bytes)
        codes = raw.bindMemory(to: UInt8.self, capacity: bytes + Self.tailPadding)
        (codes + bytes).initialize(repeating: 0, count: Self.tailPadding)
    }

    deinit { codes.deallocate() }

    /// Bytes held.
    public var byteCount: Int { count * stride + Self.tailPadding }

    /// Coefficient `k` (non-DC, 0-based) of splat `i` as (R, G, B), exactly as the Float32 decode
    /// gives it.
    public func coefficient(_ i: Int, _ k: Int) -> SIMD3<Float> {
        let p = codes + i * stride + 3 * k
        return SIMD3(Float(p[0]), Float(p[1]), Float(p[2])) * (1.0 / 128) - 1
    }

    /// Records that the scene was transformed by the orthogonal `m` (rows, p′ = M·p): the stored
    /// direction of a new-frame direction d is D·Mᵀ·d.
    public func transform(by m: [SIMD3<Double>]) {
        let d = storedDirection ?? [SIMD3(1, 0, 0), SIMD3(0, 1, 0), SIMD3(0, 0, 1)]
        // (D·Mᵀ)[r][c] = Σ_k D[r][k]·M[c][k].
        let product = (0..<3).map { r in SIMD3<Double>((0..<3).map { c in (d[r] * m[c]).sum() }) }
        let identity = (0..<3).allSatisfy { r in (0..<3).allSatisfy { c in product[r][c] == (r == c ? 1 : 0) } }
        storedDirection = identity ? nil : product
    }

    /// Moves splat `read`'s codes to slot `write` (`write` < `read`).
    func move(_ read: Int, to write: Int) {
        (codes + write * stride).update(from: codes + read * stride, count: stride)
    }
}
