import Foundation
import SplatCore

/// One reported number: a measured sample beside the baseline it should be judged against,
/// measured in the same run, and the target when there is one.
struct Figure: Sendable {
    /// The baseline figure and its median, in this figure's unit.
    struct Baseline: Sendable {
        var figure: String
        var value: Double
    }

    /// An issue target and whether this run met it (`met` is nil when it cannot be judged).
    struct Target: Sendable {
        var text: String
        var met: Bool?
    }

    var suite: String
    var name: String
    var unit: String
    var sample: Sample
    var baseline: Baseline?
    var target: Target?
    /// Why a figure is what it is: the floor that bounds it, a scaling, a skipped part.
    var note: String?
    /// Facts about the input (file, splats, bytes) for the JSON line.
    var details: [(String, JSONScalar)] = []

    /// Median over the baseline's median (for times: how many times slower than the floor;
    /// for thread scaling: the all-threads time over the one-thread time).
    var ratio: Double? {
        guard let baseline, baseline.value > 0, sample.median.isFinite else { return nil }
        return sample.median / baseline.value
    }
}

/// The scalar values a JSON line carries.
enum JSONScalar: Sendable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null

    var json: String {
        switch self {
        case .string(let s): return JSONString.quoted(s)
        case .int(let i): return String(i)
        case .double(let d): return d.isFinite ? String(format: "%.6g", d) : "null"
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        }
    }

}
