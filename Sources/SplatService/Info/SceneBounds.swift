import SplatCore

/// Axis-aligned bounds of the stored positions of a decoded scene.
public struct SceneBounds: Sendable, Equatable {
    public var min: SIMD3<Float>
    public var max: SIMD3<Float>
    public var count: Int

    public init(_ scene: SplatScene) {
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

    /// "(x, y, z)".
    public static func describe(_ v: SIMD3<Float>) -> String { "(\(v.x), \(v.y), \(v.z))" }

    /// The `bounds` object of `info --json`.
    public func json(frame: CoordinateSystem) -> JSONValue {
        .object([("frame", .string(frame.name)), ("count", .int(count)), ("min", .vector(min)), ("max", .vector(max))])
    }
}
