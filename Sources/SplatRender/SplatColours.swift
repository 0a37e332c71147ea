import SplatCore

/// Where a render scene's colour coefficients live: the DC term as planar R, G, B columns and
/// the non-DC SH bands, one splat's coefficients one contiguous run (coefficient-major, R G B per
/// coefficient) — either a decoded scene's Float32 `sh` or its 8-bit `QuantizedSH` codes.
struct SplatColours: @unchecked Sendable {
    let red: UnsafePointer<Float>, green: UnsafePointer<Float>, blue: UnsafePointer<Float>
    /// `perSplat` floats a splat (3 per coefficient); the last splat's run may end the array.
    /// nil at SH degree 0 or when the scene holds codes.
    let sh: UnsafePointer<Float>?
    let perSplat: Int
    /// `codeStride` bytes a splat, readable 4 bytes at a time up to the last coefficient
    /// (`QuantizedSH.tailPadding`); nil unless the scene holds codes.
    let codes: UnsafePointer<UInt8>?
    let codeStride: Int
    /// Rows taking a render-frame direction into the frame the codes were stored in (nil: the
    /// same frame). Float32 SH is always rotated into the render frame itself.
    let storedDirection: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)?

    init(_ scene: SplatScene) {
        red = UnsafePointer(scene.columnBase(.dcR))
        green = UnsafePointer(scene.columnBase(.dcG))
        blue = UnsafePointer(scene.columnBase(.dcB))
        sh = scene.shDegree > 0 ? UnsafePointer(scene.sh.baseAddress) : nil
        perSplat = scene.shFloatsPerSplat
        let quantized = scene.quantizedSH.flatMap { $0.degree > 0 ? $0 : nil }
        codes = quantized.map { UnsafePointer($0.codes) }
        codeStride = quantized?.stride ?? 0
        storedDirection = quantized?.storedDirection.map { rows in
            let r = rows.map { SIMD3<Float>(Float($0.x), Float($0.y), Float($0.z)) }
            return (r[0], r[1], r[2])
        }
    }
}
