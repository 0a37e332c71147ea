/// The real SH basis used by 3DGS (`formats.md` Appendix A; degree 4 as in gsplat), with the
/// non-DC coefficient index k = l·(l+1) + m − 1.
public enum SphericalHarmonics {
    public static let c0: Float = 0.28209479177387814
    public static let c1: Float = 0.4886025119029199
    public static let c2: [Float] = [1.0925484305920792, -1.0925484305920792, 0.31539156525252005,
                                     -1.0925484305920792, 0.5462742152960396]
    public static let c3: [Float] = [-0.5900435899266435, 2.890611442640554, -0.4570457994644658,
                                     0.3731763325901154, -0.4570457994644658, 1.445305721320277,
                                     -0.5900435899266435]

    /// Values of the 24 non-DC basis functions (degrees 1–4) at the unit direction `d`, in Double
    /// (used by frame conversion and tests; the renderer has its own SIMD evaluation).
    public static func basis(_ d: SIMD3<Double>) -> [Double] {
        let x = d.x, y = d.y, z = d.z
        let xx = x * x, yy = y * y, zz = z * z
        var b = [Double](repeating: 0, count: 24)
        b[0] = -0.4886025119029199 * y
        b[1] = 0.4886025119029199 * z
        b[2] = -0.4886025119029199 * x
        b[3] = 1.0925484305920792 * x * y
        b[4] = -1.0925484305920792 * y * z
        b[5] = 0.31539156525252005 * (2 * zz - xx - yy)
        b[6] = -1.0925484305920792 * x * z
        b[7] = 0.5462742152960396 * (xx - yy)
        b[8] = -0.5900435899266435 * y * (3 * xx - yy)
        b[9] = 2.890611442640554 * x * y * z
        b[10] = -0.4570457994644658 * y * (4 * zz - xx - yy)
        b[11] = 0.3731763325901154 * z * (2 * zz - 3 * xx - 3 * yy)
        b[12] = -0.4570457994644658 * x * (4 * zz - xx - yy)
        b[13] = 1.445305721320277 * z * (xx - yy)
        b[14] = -0.5900435899266435 * x * (xx - 3 * yy)
        // Degree 4 (gsplat's constants; odd |m| carry the Condon–Shortley minus sign).
        b[15] = 2.5033429417967046 * x * y * (xx - yy)
        b[16] = -1.7701307697799304 * y * z * (3 * xx - yy)
        b[17] = 0.9461746957575601 * x * y * (7 * zz - 1)
        b[18] = -0.6690465435572892 * y * z * (7 * zz - 3)
        b[19] = 0.10578554691520431 * (35 * zz * zz - 30 * zz + 3)
        b[20] = -0.6690465435572892 * x * z * (7 * zz - 3)
        b[21] = 0.47308734787878004 * (xx - yy) * (7 * zz - 1)
        b[22] = -1.7701307697799304 * x * z * (xx - 3 * yy)
        b[23] = 0.6258357354491761 * (xx * (xx - 3 * yy) - yy * (3 * xx - yy))
        return b
    }

    /// View-dependent colour of one splat, per `rendering.md` 9 (before the +0.5 and clamp):
    /// `c0·dc + Σ sh[k]·Y_k(dir)` with `sh` coefficient-major, channel-minor.
    public static func evaluate(dc: SIMD3<Double>, sh: [SIMD3<Double>], direction d: SIMD3<Double>) -> SIMD3<Double> {
        let b = basis(d)
        var colour = Double(c0) * dc
        for (k, coefficient) in sh.enumerated() { colour += b[k] * coefficient }
        return colour
    }
}
