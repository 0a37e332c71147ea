/// Turning a chosen up axis (from `--up` or the up estimate, in stored coordinates) into the change
/// of frame that shows it at the top, without ever mirroring.
///
/// The rule: read the stored values in the format's `convention` as before, then apply the
/// smallest rotation that brings the chosen axis onto the render frame's up — a quarter turn when
/// the chosen axis is one of the convention's horizontal axes, and the half turn about the
/// convention's left–right axis when it is the convention's down (what `--flip` does). Only the two
/// axes involved move; the third keeps its meaning, so a PLY (RDF) whose up is stored on +Z reads
/// as RFU (x still right), not as some other frame that happens to have Z up.
public enum UpAlignment {
    /// The proper rotation of the render frame to apply after the convention's own conversion
    /// (`FrameConversion(from: convention, to: renderFrame)`) so that stored axis `up` points to the
    /// render frame's up. Identity when `up` is the convention's up. Defined for all six axes, also
    /// when no named frame describes the result (up stored on ±X).
    public static func correction(forUp up: SignedAxis, convention: CoordinateSystem,
                                  renderFrame: CoordinateSystem = .render) -> SceneRotation {
        let m = FrameConversion(from: convention, to: renderFrame)
        let u = up.vector
        let upInRender = SIMD3<Double>((0..<3).map { i in
            Double(m.rows[i].x) * u.x + Double(m.rows[i].y) * u.y + Double(m.rows[i].z) * u.z
        })
        return SceneRotation.aligning(upInRender, onto: renderFrame.upAxis.vector)
    }

    /// The whole stored → render change of frame as a signed permutation (rows of M, p' = M · p):
    /// the convention's conversion followed by `correction`. Its determinant is the convention's
    /// (−1 only when the convention itself is left-handed); the up choice never adds a mirror.
    public static func storedToRender(forUp up: SignedAxis, convention: CoordinateSystem,
                                      renderFrame: CoordinateSystem = .render) -> [SIMD3<Double>] {
        let m = FrameConversion(from: convention, to: renderFrame).rows.map { SIMD3<Double>(Double($0.x), Double($0.y), Double($0.z)) }
        let q = correction(forUp: up, convention: convention, renderFrame: renderFrame).rows
        return (0..<3).map { i in
            SIMD3((0..<3).map { j in ((0..<3).reduce(0.0) { $0 + q[i][$1] * m[$1][j] }).rounded() })
        }
    }
}

extension CoordinateSystem {
    /// The named frame in which stored axis `up` reads as up, chosen by `UpAlignment`'s rule (the
    /// smallest rotation from `convention`, so the same handedness and as many of the convention's
    /// other axis letters as possible): e.g. RDF with up +Z → RFU, RDF with up +Y → RUB, RUB with
    /// up −Y → RDF. Using it as the source frame gives exactly `UpAlignment.storedToRender`. Nil
    /// when `up` is ±X: every named frame keeps X left–right, so none has X up; use
    /// `UpAlignment.correction` after the convention's conversion instead.
    public static func frame(forUp up: SignedAxis, convention: CoordinateSystem) -> CoordinateSystem? {
        if up == convention.upAxis { return convention }
        let m = UpAlignment.storedToRender(forUp: up, convention: convention, renderFrame: .rub)
        // RUB's axes are the world axes, so M's columns are the directions of the frame's +X, +Y, +Z.
        let columns = (0..<3).map { c in SIMD3<Float>(Float(m[0][c]), Float(m[1][c]), Float(m[2][c])) }
        return CoordinateSystem.allCases.first { frame in
            let (ax, ay, az) = frame.axes
            return ax == columns[0] && ay == columns[1] && az == columns[2]
        }
    }
}
