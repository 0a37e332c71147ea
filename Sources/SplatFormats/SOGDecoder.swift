import SplatCore

/// Where a SOG scene's files come from.
public enum SOGSource {
    /// A bundled `.sog` zip in memory.
    case bundle(UnsafeRawBufferPointer, name: String?)
    /// An unbundled scene: `meta.json` on disk with its images beside it.
    case directory(metaPath: String)
}

/// Placeholder until the decoder lands: refuses every file with `unsupported`.
public enum SOGDecoder {
    public static func readHeader(_ source: SOGSource, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        throw SplatError(.unsupported, "SOG is not implemented yet")
    }

    public static func decode(_ source: SOGSource, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        throw SplatError(.unsupported, "SOG is not implemented yet")
    }
}
