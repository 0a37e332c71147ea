import SplatCore

/// Where a render scene's colour coefficients live and how they are stored: the DC term and the
/// non-DC SH bands, each as Float32 columns of a decoded `SplatScene` or in a compact form whose
/// dequantization is folded into the SH evaluation.
///
/// The compact forms are SPZ's own bytes, kept as the file quantizes them and dequantized with
/// the decoder's exact formulas (so the colours are bit for bit those of the decoded scene), and
/// binary16 for float sources. Both store a splat's coefficients in the scene's order
/// (coefficient-major, R G B per coefficient), so one splat's SH is one contiguous run.
struct SplatColours: @unchecked Sendable {
    enum DC {
        /// Planar R, G, B columns.
        case float(red: UnsafePointer<Float>, green: UnsafePointer<Float>, blue: UnsafePointer<Float>)
        /// SPZ colour bytes, 3 per splat: (b/255 − 0.5)/0.15.
        case spzBytes(UnsafePointer<UInt8>)
    }

    enum SH {
        case none
        /// `perSplat` floats per splat (3 per coefficient); the last splat's run may end the array.
        case float(UnsafePointer<Float>, perSplat: Int)
        /// SPZ SH bytes, (b − 128)/128; at least 4 readable bytes past the last splat.
        case spzBytes(UnsafePointer<UInt8>, perSplat: Int)
        /// binary16; at least 4 readable values past the last splat.
        case half(UnsafePointer<Float16>, perSplat: Int)
    }

    var dc: DC
    var sh: SH
    /// Rows of the rotation taking a render-frame direction to the frame the SH coefficients are
    /// stored in, when they were not rotated with the positions (compact forms keep the file's
    /// coefficients: evaluating them at the rotated direction is the same function, and for the
    /// signed permutations of frame conversions it gives exactly the same floats as rotating the
    /// coefficients). nil for identity.
    var directionRows: (SIMD3<Float>, SIMD3<Float>, SIMD3<Float>)?

    /// SPZ's DC colour scale (`SPZ_COLOR_SCALE`).
    static let spzColorScale: Float = 0.15

    /// DC coefficient of splat `i` as (R, G, B, 0).
    @inline(__always)
    func dcCoefficient(_ i: Int) -> SIMD4<Float> {
        switch dc {
        case .float(let r, let g, let b):
            return SIMD4(r[i], g[i], b[i], 0)
        case .spzBytes(let bytes):
            let p = bytes + 3 &* i
            // The decoder's formula and operation order.
            let q = SIMD4<Float>(Float(p[0]), Float(p[1]), Float(p[2]), 0)
            return (q / 255 - 0.5) / Self.spzColorScale
        }
    }
}
