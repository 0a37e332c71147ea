import SplatCore
import SplatFormats
import SplatRender

// The JSON shapes of library values that run reports and `info --json` share. Keys are
// snake_case and part of the report format.

extension FrameDecision {
    /// The report's `frame_decision` object.
    public var json: JSONValue {
        .object([
            ("source_frame", .string(sourceFrame.name)),
            ("reason", .string(reason.rawValue)),
            ("base_frame", .string(baseFrame.name)),
            ("up", .string(up.rawValue)),
            ("up_source", .string(upSource.rawValue)),
            ("up_confidence", .optional(upConfidence) { .double($0) }),
            ("render_frame", .string(renderFrame.name)),
            ("flip", .bool(flip)),
            ("mirrors", .bool(conversion.isMirror)),
            ("summary", .string(summary)),
        ])
    }
}

extension UpEstimate {
    /// The `up_estimate` object of reports and `info --json`, in the stored frame.
    public var json: JSONValue {
        .object([
            ("axis", .string(axis.rawValue)),
            ("vector", .vector(vector)),
            ("confidence", .double(confidence)),
            ("confident", .bool(isConfident)),
            ("threshold", .double(UpEstimator.confidenceThreshold)),
            ("evidence", .array(evidence.map { e in
                .object([("source", .string(e.source.rawValue)), ("role", .string(e.role.rawValue)),
                         ("vector", .vector(e.vector)), ("weight", .double(e.weight)), ("agrees", .bool(e.agrees))])
            })),
        ])
    }
}

extension SceneHeader {
    /// The header facts shared by `info --json` and run reports: format, version, count,
    /// sh_degree, model, declared_frame, conventional_frame.
    public var jsonFields: [(String, JSONValue)] {
        [
            ("format", .string(format.rawValue)),
            ("version", .optional(version) { .int($0) }),
            ("count", .int(count)),
            ("sh_degree", .int(shDegree)),
            ("model", .string(model.rawValue)),
            ("declared_frame", .optional(declaredFrame) { .string($0.name) }),
            ("conventional_frame", .string(conventionalFrame.name)),
        ]
    }

    /// The SPZ safe-orbit values (radians, radians, scene units), or null.
    public var cameraHintsJSON: JSONValue {
        .optional(cameraHints) {
            .object([("elevation_min", .float($0.elevationMin)), ("elevation_max", .float($0.elevationMax)),
                     ("radius_min", .float($0.radiusMin))])
        }
    }

    /// Format-specific facts, keys sorted. Whole numbers and true/false are JSON numbers and
    /// booleans (a consumer should not have to parse `"4"`); everything else stays a string.
    public var detailsJSON: JSONValue {
        .object(details.sorted { $0.key < $1.key }.map { (key, value) in
            if let number = Int(value) { return (key, .int(number)) }
            if value == "true" || value == "false" { return (key, .bool(value == "true")) }
            return (key, .string(value))
        })
    }
}

extension SplatError {
    /// kind, message, file, offset, field.
    public var json: JSONValue { .object(jsonFields) }

    /// The members of `json`, for callers that add their own.
    public var jsonFields: [(String, JSONValue)] {
        [
            ("kind", .string(kind.rawValue)),
            ("message", .string(message)),
            ("file", .optional(file) { .string($0) }),
            ("offset", .optional(offset) { .int($0) }),
            ("field", .optional(field) { .string($0) }),
        ]
    }
}
