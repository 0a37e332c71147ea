import SplatCore
import SplatFormats

/// How to read a scene and bring it into the render frame: the decode limits, an optional
/// forced format, and the inputs of the frame decision (`formats.md` 7.3).
public struct LoadOptions: Sendable, Equatable {
    /// Read the input as this format instead of detecting it (needed for `.splat` bytes, which
    /// have no signature, when there is no file name to go by).
    public var format: SplatFormat?
    public var limits: DecodeLimits
    /// The frame the stored values are in; overrides the file's declaration and the format's convention.
    public var sourceFrame: CoordinateSystem?
    /// A half turn about X after the conversion.
    public var flip: Bool
    public var renderFrame: CoordinateSystem
    /// Worker threads for the conversion (nil = all cores).
    public var threads: Int?

    public init(format: SplatFormat? = nil, limits: DecodeLimits = DecodeLimits(), sourceFrame: CoordinateSystem? = nil,
                flip: Bool = false, renderFrame: CoordinateSystem = .render, threads: Int? = nil) {
        self.format = format
        self.limits = limits
        self.sourceFrame = sourceFrame
        self.flip = flip
        self.renderFrame = renderFrame
        self.threads = threads
    }
}

/// A decoded scene converted to the render frame, with the decision that converted it.
public struct LoadedScene: Sendable {
    public let decoded: DecodedScene
    public let decision: FrameDecision

    public var scene: SplatScene { decoded.scene }
    public var header: SceneHeader { decoded.header }
}

/// Reading a scene the way every command does: header or full decode from a `SceneInput`, then
/// the frame decision and conversion. Errors name the input; bytes named `-` that fail
/// detection get the hint that `.splat` data needs its format given.
public enum SceneLoader {
    /// The header of `input`, without decoding the body where the format allows.
    public static func readHeader(_ input: SceneInput, format: SplatFormat? = nil,
                                  limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> SceneHeader {
        do throws(SplatError) {
            switch input {
            case .path(let path): return try SplatFile.readHeader(path: path, format: format, limits: limits)
            case .memory(let bytes): return try SplatFile.readHeader(bytes, format: format, limits: limits)
            }
        } catch {
            throw explained(error, name: input.name, format: format)
        }
    }

    /// The decoded scene, values in the file's own frame.
    public static func decode(_ input: SceneInput, format: SplatFormat? = nil,
                              limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        do throws(SplatError) {
            switch input {
            case .path(let path): return try SplatFile.decode(path: path, format: format, limits: limits)
            case .memory(let bytes): return try SplatFile.decode(bytes, format: format, limits: limits)
            }
        } catch {
            throw explained(error, name: input.name, format: format)
        }
    }

    /// Decodes, decides the source frame (option, then the file's declaration, then the format's
    /// convention) and converts the scene to `options.renderFrame` in place; the wall times go
    /// to `timings` under `decode` and `convert_frame`.
    public static func load(_ input: SceneInput, options: LoadOptions = LoadOptions(),
                            timings: inout StageTimings) throws(SplatError) -> LoadedScene {
        let decoded = try timings.time(.decode) { () throws(SplatError) in
            try decode(input, format: options.format, limits: options.limits)
        }
        let decision = FrameDecision.decide(for: decoded.scene, explicit: options.sourceFrame, flip: options.flip,
                                            renderFrame: options.renderFrame)
        timings.time(.convertFrame) { decision.apply(to: decoded.scene, threads: options.threads) }
        return LoadedScene(decoded: decoded, decision: decision)
    }

    /// `load` without the timings.
    public static func load(_ input: SceneInput, options: LoadOptions = LoadOptions()) throws(SplatError) -> LoadedScene {
        var timings = StageTimings()
        return try load(input, options: options, timings: &timings)
    }

    /// Adds the one hint a caller with anonymous bytes needs: `.splat` has no signature.
    static func explained(_ error: SplatError, name: String, format: SplatFormat?) -> SplatError {
        guard name == "-", format == nil, error.kind == .badMagic else { return error.inFile(name) }
        var copy = error.inFile("-")
        copy.message += "; .splat data on standard input needs --format splat"
        return copy
    }
}

extension SceneHeader {
    /// The frame decision `FrameDecision.decide(for:)` would make for the decoded scene, from the
    /// header alone (so `info` and batch reports can state it without decoding).
    public func frameDecision(explicit: CoordinateSystem? = nil, flip: Bool = false,
                              renderFrame: CoordinateSystem = .render) -> FrameDecision {
        if let explicit { return FrameDecision(sourceFrame: explicit, reason: .option, flip: flip, renderFrame: renderFrame) }
        if let declaredFrame {
            return FrameDecision(sourceFrame: declaredFrame, reason: .fileDeclaration, flip: flip, renderFrame: renderFrame)
        }
        return FrameDecision(sourceFrame: conventionalFrame, reason: .formatDefault, flip: flip, renderFrame: renderFrame)
    }
}
