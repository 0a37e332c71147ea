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
        let (bytes, overflow) = count.multipliedReportingOverflow(by: SplatScene.bytesPerSplat(degree: degree))
        return overflow ? nil : bytes
    }

    /// Checks the declared scene size against the ceiling before any allocation and returns
    /// the kept degree. Throws `too_large` naming the declared size and the limit.
    @discardableResult
    public func checkScene(count: Int, fileDegree: Int, file: String? = nil) throws(SplatError) -> Int {
        let kept = keptDegree(fileDegree)
        guard count <= maxSplats else {
            throw SplatError(.implausibleCount, "\(count) splats exceeds the limit of \(maxSplats)", file: file, field: "count")
        }
        guard let bytes = DecodeLimits.decodedBytes(count: count, degree: kept) else {
            throw SplatError(.tooLarge, "\(count) splats at SH degree \(kept) overflow a 64-bit size", file: file, field: "count")
        }
        guard bytes <= maxDecodedBytes else {
            throw SplatError(.tooLarge, "decoded scene would take \(bytes) bytes (\(count) splats at SH degree \(kept)); the limit is \(maxDecodedBytes)", file: file, field: "count")
        }
        return kept
    }

    /// Checks an intermediate buffer (inflated payload, zip entry, decoded image) against the ceiling.
    public func checkIntermediate(bytes: Int, what: String, file: String? = nil) throws(SplatError) {
        guard bytes >= 0, bytes <= maxDecodedBytes else {
            throw SplatError(.tooLarge, "\(what) would take \(bytes) bytes; the limit is \(maxDecodedBytes)", file: file)
        }
    }

    /// Whether a scene of this size fits the 768 MiB service ceiling, whatever limit the caller set.
    public static func fitsServiceCeiling(count: Int, degree: Int) -> Bool {
        guard let bytes = decodedBytes(count: count, degree: degree) else { return false }
        return bytes <= serviceCeilingBytes
    }
}

/// Overflow-checked arithmetic for size computations on untrusted numbers.
public enum CheckedSize {
    /// a × b, or nil on overflow or a negative operand.
    @inlinable public static func mul(_ a: Int, _ b: Int) -> Int? {
        guard a >= 0, b >= 0 else { return nil }
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? nil : r
    }

    /// a + b, or nil on overflow or a negative operand.
    @inlinable public static func add(_ a: Int, _ b: Int) -> Int? {
        guard a >= 0, b >= 0 else { return nil }
        let (r, o) = a.addingReportingOverflow(b)
        return o ? nil : r
    }

    /// A u64 from a file as Int, or nil when it does not fit (values ≥ 2^63).
    @inlinable public static func int(_ v: UInt64) -> Int? {
        v <= UInt64(Int.max) ? Int(v) : nil
    }
}
