import SplatCore

/// Placeholder until the decoder lands: refuses every file with `unsupported`.
public enum CompressedPLYDecoder {
    public static func readHeader(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        throw SplatError(.unsupported, "CompressedPLYDecoder is not implemented yet", file: file)
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) -> DecodedScene {
        throw SplatError(.unsupported, "CompressedPLYDecoder is not implemented yet", file: file)
    }
}
