import SplatCore

// The PngSuite approach for splat files: every small spec vector and corpus file is damaged in
// deterministic, structure-aware ways (cuts at every structural boundary, header bit flips,
// counts and sizes set to extremes, forged gzip trailers, lying zip directories, garbage
// images, non-finite floats, header-only files). Each result must be a documented SplatError
// (formats.md 0.2) or a valid scene, and where formats.md 8.4 names the kind, that kind.
// Everything runs under a 64 MiB ceiling, so no mutation may allocate more than that.

/// The ceiling every mutation runs under.
let mutationLimits = DecodeLimits(maxDecodedBytes: 64 << 20)

/// The kinds a decoder may report for bytes in memory (formats.md 0.2); `io`,
/// `invalid_argument` and `timeout` cannot come from a decode of bytes.
let documentedKinds: Set<SplatErrorKind> = [
    .truncated, .badMagic, .unsupportedVersion, .badHeader, .badTOC, .corrupt, .implausibleCount,
    .tooLarge, .empty, .badSize, .notGaussian, .unsupported, .badMeta, .badTexture, .nonFinite,
]

/// One damaged file and what formats.md says must come of it.
struct Mutation {
    enum Expectation {
        /// A documented error or a valid scene.
        case anyOutcome
        /// One of these error kinds.
        case failure(Set<SplatErrorKind>)
        /// A valid scene of exactly this many splats.
        case scene(count: Int)
    }

    var label: String
    var bytes: [UInt8]
    var expect: Expectation
}
