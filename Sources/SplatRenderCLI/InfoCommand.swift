import SplatCore
import SplatFormats
import SplatService

/// `splatrender info FILE [--json] [--bounds]`: describes a scene from its header. A scene over
/// the ceiling is reported with exit status 0, not refused; only `--bounds` decodes.
enum InfoCommand {
    static func run(_ context: CommandContext) -> Int32 {
        let parsed = context.parsed
        let options = DecodeOptions(parsed, path: parsed.positionals[0])
        // Standard input is read once; the optional decode uses the same bytes.
        let input = context.sceneInput(options.path)
        var header: SceneHeader
        do throws(SplatError) {
            header = try SceneLoader.readHeader(input, format: options.format, limits: options.limits)
        } catch {
            return context.failInput(error)
        }
        var decision = header.frameDecision(explicit: options.sourceFrame, flip: options.flip)
        let verdict = CeilingVerdict(header: header, limits: options.limits)

        var bounds: SceneBounds?
        var boundsError: SplatError?
        if parsed.flag("bounds") {
            do throws(SplatError) {
                let decoded = try SceneLoader.decode(input, format: options.format, limits: options.limits)
                bounds = SceneBounds(decoded.scene)
                // A full decode can see more than the header (legacy SPZ extensions sit after the data).
                header = decoded.header
                for warning in decoded.scene.warnings where !header.warnings.contains(warning) {
                    header.warnings.append(warning)
                }
                decision = FrameDecision.decide(for: decoded.scene, explicit: options.sourceFrame, flip: options.flip)
            } catch {
                boundsError = error
            }
        }

        if parsed.flag("json") {
            var fields: [(String, JSONValue)] = [("file", .string(options.path))]
            fields += header.jsonFields
            fields += [
                ("frame_decision", decision.json),
                ("camera_hints", header.cameraHintsJSON),
                ("ceiling", verdict.json),
                ("warnings", .array(header.warnings.map { .string($0) })),
                ("details", header.detailsJSON),
            ]
            if parsed.flag("bounds") {
                fields.append(("bounds", .optional(bounds) { $0.json(frame: decision.sourceFrame) }))
                if let boundsError { fields.append(("bounds_error", boundsError.json)) }
            }
            context.say(JSONValue.object(fields).serialized())
        } else {
            context.say(text(path: options.path, header: header, decision: decision, verdict: verdict, bounds: bounds))
        }
        if let boundsError { return context.failInput(boundsError) }
        return ExitCode.ok.rawValue
    }

    static func text(path: String, header: SceneHeader, decision: FrameDecision, verdict: CeilingVerdict,
                     bounds: SceneBounds?) -> String {
        var rows: [(String, String)] = [
            ("file", path),
            ("format", header.format.rawValue + (header.version.map { " version \($0)" } ?? "")),
            ("splats", String(header.count)),
            ("SH degree", String(header.shDegree) + (verdict.keptDegree != header.shDegree ? " (keeping \(verdict.keptDegree))" : "")),
            ("model", header.model.rawValue),
            ("frame", decision.summary),
            ("decoded size", verdict.summary),
        ]
        if let hints = header.cameraHints {
            rows.append(("camera hints", "elevation \(hints.elevationMin)…\(hints.elevationMax), min radius \(hints.radiusMin)"))
        }
        if let bounds {
            rows.append(("bounds", "min \(bounds.describe(bounds.min)), max \(bounds.describe(bounds.max)) (stored \(decision.sourceFrame.name) values, \(bounds.count) splats)"))
        }
        for warning in header.warnings { rows.append(("warning", warning)) }
        for (key, value) in header.details.sorted(by: { $0.key < $1.key }) { rows.append((key, value)) }
        let width = rows.map(\.0.count).max() ?? 0
        let continuation = "\n" + String(repeating: " ", count: width + 2)
        return rows.map {
            HelpText.pad($0.0 + ":", width + 1) + " " + $0.1.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: continuation)
        }.joined(separator: "\n")
    }
}

/// Axis-aligned bounds of the stored positions of a decoded scene.
struct SceneBounds {
    var min: SIMD3<Float>
    var max: SIMD3<Float>
    var count: Int

    init(_ scene: SplatScene) {
        count = scene.count
        guard scene.count > 0 else {
            min = .zero
            max = .zero
            return
        }
        var lo = SIMD3<Float>(repeating: .infinity), hi = SIMD3<Float>(repeating: -.infinity)
        let xs = scene.x, ys = scene.y, zs = scene.z
        for i in 0..<scene.count {
            let p = SIMD3(xs[i], ys[i], zs[i])
            lo = pointwiseMin(lo, p)
            hi = pointwiseMax(hi, p)
        }
        min = lo
        max = hi
    }

    func describe(_ v: SIMD3<Float>) -> String { "(\(v.x), \(v.y), \(v.z))" }

    func json(frame: CoordinateSystem) -> JSONValue {
        .object([("frame", .string(frame.name)), ("count", .int(count)), ("min", .vector(min)), ("max", .vector(max))])
    }
}
