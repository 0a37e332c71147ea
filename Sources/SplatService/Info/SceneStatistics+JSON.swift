import Foundation
import SplatCore
import SplatRender

extension SceneStatistics {
    /// The `stats` object of `info --stats --json`: keys as in `Documentation/statistics.md`, numbers
    /// as JSON numbers (a non-finite one, e.g. an overdraw of +Inf, is null).
    public var json: JSONValue {
        .object([
            ("splats", .int(splatCount)),
            ("sh_degree", .int(shDegree)),
            ("effective_sh_degree", .int(effectiveSHDegree)),
            ("file_bytes", .optional(fileBytes) { .int($0) }),
            ("decoded_bytes", .int(decodedBytes)),
            ("compression_ratio", .optional(compressionRatio) { .double($0) }),
            ("attributes", .object(namedAttributes.map { ($0.key, Self.json($0.statistics)) })),
            ("opacity_percentiles", .optional(opacityPercentiles, Self.json)),
            ("scale_percentiles", .optional(scalePercentiles, Self.json)),
            ("robust_box", .optional(robustBox) { box in
                .object([("lower", .vector(box.lower)), ("upper", .vector(box.upper)),
                         ("splats", .int(box.splatCount)), ("opaque_only", .bool(box.opaqueOnly))])
            }),
            ("overdraw", .optional(overdraw) { o in
                .object([("ratio", .double(o.ratio)), ("footprint_area", .double(o.footprintArea)),
                         ("splats", .int(o.splatCount)), ("cross_section_area", .double(o.crossSectionArea)),
                         ("cross_section", .string(o.crossSection.rawValue))])
            }),
        ])
    }

    private static func json(_ s: AttributeStatistics) -> JSONValue {
        .object([
            ("count", .int(s.count)), ("finite", .int(s.finiteCount)), ("nan", .int(s.nanCount)),
            ("pos_inf", .int(s.positiveInfinityCount)), ("neg_inf", .int(s.negativeInfinityCount)),
            ("min", .optional(s.minimum) { .double($0) }), ("max", .optional(s.maximum) { .double($0) }),
            ("mean", .optional(s.mean) { .double($0) }), ("std", .optional(s.standardDeviation) { .double($0) }),
        ])
    }

    private static func json(_ p: Percentiles) -> JSONValue {
        .object([("p1", .double(p.p1)), ("p50", .double(p.p50)), ("p99", .double(p.p99))])
    }

    /// Bytes of the input the scene came from: the file's size, or for a SOG scene (its folder
    /// or its `meta.json`) every regular file of the folder; nil when unknown.
    static func inputFileBytes(_ input: SceneInput) -> Int? {
        switch input {
        case .memory(let bytes):
            return bytes.bytes.count
        case .path(let path):
            guard let status = FileIO.status(atPath: path) else { return nil }
            let folder: String
            if status.kind == .directory {
                folder = path
            } else if (path as NSString).lastPathComponent == "meta.json" {
                folder = (path as NSString).deletingLastPathComponent
            } else {
                return status.kind == .regular ? status.size : nil
            }
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder) else { return nil }
            return names.reduce(0) { total, name in
                let entry = FileIO.status(atPath: (folder as NSString).appendingPathComponent(name), followLinks: false)
                return total + (entry?.kind == .regular ? entry?.size ?? 0 : 0)
            }
        }
    }
}
