/// Resource ceilings every decoder checks against its header before it allocates or inflates
/// (`formats.md` section 8.3). A value, passed in; there is no global state.
public struct DecodeLimits: Sendable, Equatable {
    /// The service ceiling: 768 MiB of decoded floats.
    public static let serviceCeilingBytes = 805_306_368

    /// Ceiling on `N × bytesPerSplat(keptDegree)` and, separately, on any inflated or decoded
    /// intermediate (packed SPZ payload, zip entries, `W·H·4` per image).
    public var maxDecodedBytes: Int = DecodeLimits.serviceCeilingBytes
    /// SH bands above this degree are dropped before allocating (nil keeps what the file has).
    public var maxShDegree: Int? = nil
    /// Fail on the first non-finite splat instead of dropping it.
    public var strict: Bool = false
    public var maxSplats: Int = Int(Int32.max)
    public var maxPlyHeaderBytes: Int = 1 << 20
    public var maxMetaJsonBytes: Int = 64 << 20
    /// Most JSON values in a SOG `meta.json` (or a glTF JSON chunk): each costs ~64 bytes of
    /// parsed objects, and real files hold a few thousand.
    public var maxMetaJsonValues: Int = 1 << 20
    /// zstd window log ceiling (2^27).
    public var maxZstdWindowLog: Int = 27
    public var maxImageSide: Int = 16383
    /// Most bytes of one input file or stream that are read at all; nil derives it from the
    /// decoded-size ceiling (`inputByteLimit`).
    public var maxInputBytes: Int? = nil

    /// How many times the decoded ceiling an input may be. The largest legitimate input per
    /// decoded byte is an ASCII PLY: ~13 characters per float written at full precision, against
    /// 4 decoded bytes, i.e. 3.25×; everything binary is at most ~1.1× (PLY with a few unused
    /// properties) and compressed formats are far smaller.
    public static let inputBytesPerDecodedByte = 4

    /// The input cap in force: `maxInputBytes`, or 4 × the larger of `maxDecodedBytes` and the
    /// service ceiling (3 GiB by default). A lower `maxDecodedBytes` does not lower it: such
    /// files are still read, so their header can be reported with the figures that refuse them.
    public var inputByteLimit: Int {
        maxInputBytes ?? (CheckedSize.mul(max(maxDecodedBytes, Self.serviceCeilingBytes), Self.inputBytesPerDecodedByte) ?? Int.max)
    }

    public init(maxDecodedBytes: Int = DecodeLimits.serviceCeilingBytes, maxShDegree: Int? = nil, strict: Bool = false) {
        self.maxDecodedBytes = maxDecodedBytes
        self.maxShDegree = maxShDegree
        self.strict = strict
    }

    /// The SH degree a decoder keeps for a file of degree `fileDegree`.
    public func keptDegree(_ fileDegree: Int) -> Int {
        guard let cap = maxShDegree else { return fileDegree }
        return max(0, min(cap, fileDegree))
    }

    /// Decoded size of `count` splats at `degree`, in checked 64-bit arithmetic.
    /// Returns nil on overflow (which callers report as `too_large`).
    public static func decodedBytes(count: Int, degree: Int) -> Int? {
        CheckedSize.mul(count, SplatScene.bytesPerSplat(degree: degree))
    }

    /// The one computation of a scene's declared decoded size against these limits and the
    /// service ceiling: every decoder's allocation guard and every admission decision use it.
    public func sizeVerdict(count: Int, fileDegree: Int) -> SceneSizeVerdict {
        let kept = keptDegree(fileDegree)
        return SceneSizeVerdict(count: count, fileDegree: fileDegree, keptDegree: kept,
                                declaredDecodedBytes: Self.decodedBytes(count: count, degree: kept),
                                maxDecodedBytes: maxDecodedBytes, maxSplats: maxSplats)
    }

    /// Checks the declared scene size against the ceiling before any allocation and returns
    /// the kept degree. Throws `implausible_count` or `too_large` naming the figures.
    @discardableResult
    public func checkScene(count: Int, fileDegree: Int, file: String? = nil) throws(SplatError) -> Int {
        let verdict = sizeVerdict(count: count, fileDegree: fileDegree)
        if let refusal = verdict.refusal(file: file) { throw refusal }
        return verdict.keptDegree
    }

    /// Checks an intermediate buffer (inflated payload, zip entry, decoded image) against the ceiling.
    public func checkIntermediate(bytes: Int, what: String, file: String? = nil) throws(SplatError) {
        guard bytes >= 0, bytes <= maxDecodedBytes else {
            throw SplatError(.tooLarge, "\(what) would take \(bytes) bytes; the limit is \(maxDecodedBytes)", file: file)
        }
    }
}
