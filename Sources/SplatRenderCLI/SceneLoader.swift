import SplatCore
import SplatFormats

/// Reading a scene the way every command does: a path, a SOG folder, or `-` for standard input
/// (read through an injectable `InputSource`, so tests need no real stdin), followed by the frame
/// decision. Everything here is also reachable from Swift without the command line.
public enum SceneLoader {
    /// The header of the scene at `path` (`-` reads `stdin`).
    public static func readHeader(path: String, format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(),
                                  stdin: InputSource = .standardInput) throws(SplatError) -> SceneHeader {
        do throws(SplatError) {
            if path == "-" {
                return try SplatFile.readHeader(standardInput(stdin), format: format, limits: limits)
            }
            return try SplatFile.readHeader(path: path, format: format, limits: limits)
        } catch {
            throw explained(error, path: path, format: format)
        }
    }

    /// The decoded scene at `path` (`-` reads `stdin`), values in the file's own frame.
    public static func decode(path: String, format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(),
                              stdin: InputSource = .standardInput) throws(SplatError) -> DecodedScene {
        do throws(SplatError) {
            if path == "-" {
                return try SplatFile.decode(standardInput(stdin), format: format, limits: limits)
            }
            return try SplatFile.decode(path: path, format: format, limits: limits)
        } catch {
            throw explained(error, path: path, format: format)
        }
    }

    /// Decodes, decides the source frame (explicit option, then the file's declaration, then the
    /// format's convention) and converts the scene to `renderFrame` in place: what `render` needs.
    public static func decodeForRendering(path: String, format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(),
                                          sourceFrame: CoordinateSystem? = nil, flip: Bool = false,
                                          renderFrame: CoordinateSystem = .render, threads: Int? = nil,
                                          stdin: InputSource = .standardInput) throws(SplatError) -> (DecodedScene, FrameDecision) {
        let decoded = try decode(path: path, format: format, limits: limits, stdin: stdin)
        let decision = FrameDecision.decide(for: decoded.scene, explicit: sourceFrame, flip: flip, renderFrame: renderFrame)
        decision.apply(to: decoded.scene, threads: threads)
        return (decoded, decision)
    }

    static func standardInput(_ stdin: InputSource) -> InputBytes {
        let bytes = stdin.readAll()
        return bytes.withUnsafeBytes { InputBytes(copying: $0, name: "-") }
    }

    /// Adds the one hint a user on standard input needs: `.splat` has no signature.
    static func explained(_ error: SplatError, path: String, format: SplatFormat?) -> SplatError {
        guard path == "-", format == nil, error.kind == .badMagic else { return error.inFile(path) }
        var copy = error.inFile("-")
        copy.message += "; .splat data on standard input needs --format splat"
        return copy
    }
}

extension SceneHeader {
    /// The frame decision `FrameDecision.decide(for:)` would make for the decoded scene, from the
    /// header alone (so `info` can report it without decoding).
    public func frameDecision(explicit: CoordinateSystem? = nil, flip: Bool = false,
                              renderFrame: CoordinateSystem = .render) -> FrameDecision {
        if let explicit { return FrameDecision(sourceFrame: explicit, reason: .option, flip: flip, renderFrame: renderFrame) }
        if let declaredFrame {
            return FrameDecision(sourceFrame: declaredFrame, reason: .fileDeclaration, flip: flip, renderFrame: renderFrame)
        }
        return FrameDecision(sourceFrame: conventionalFrame, reason: .formatDefault, flip: flip, renderFrame: renderFrame)
    }
}
