import SplatCore

/// The last decode step every format shares (`formats.md` 0.1, Rule (quaternions)): q ← q/|q|,
/// identity plus a warning for a zero-length q, and NaN or ±∞ left in place for the central
/// non-finite filter.
enum QuaternionNormalization {
    /// Zero-length quaternions found in a range: how many, and the first index.
    struct ZeroCount: Sendable {
        var count = 0
        var first = Int.max

        mutating func merge(_ other: ZeroCount) {
            count += other.count
            first = min(first, other.first)
        }

        /// The warning for the scene, or nil when every quaternion had a length.
        var warning: String? {
            count == 0 ? nil : "rotation: \(count) splat(s) had a zero-length quaternion, set to identity (first index \(first))"
        }
    }

    /// Normalizes splats `range` of `scene` in place, in Double so tiny or huge float
    /// components neither underflow nor overflow.
    @inline(__always)
    static func normalize(_ scene: SplatScene, _ range: Range<Int>) -> ZeroCount {
        let w = scene.columnBase(.rotW), x = scene.columnBase(.rotX)
        let y = scene.columnBase(.rotY), z = scene.columnBase(.rotZ)
        var zeros = ZeroCount()
        for i in range {
            let qw = Double(w[i]), qx = Double(x[i]), qy = Double(y[i]), qz = Double(z[i])
            let n2 = qw * qw + qx * qx + qy * qy + qz * qz
            if n2 == 0 {
                w[i] = 1; x[i] = 0; y[i] = 0; z[i] = 0
                zeros.count += 1
                zeros.first = min(zeros.first, i)
            } else {
                let inv = 1 / n2.squareRoot()
                w[i] = Float(qw * inv); x[i] = Float(qx * inv); y[i] = Float(qy * inv); z[i] = Float(qz * inv)
            }
        }
        return zeros
    }

    /// Per-chunk zero counts gathered from a parallel loop, merged in chunk order.
    final class Tally: @unchecked Sendable {
        private let slots: UnsafeMutableBufferPointer<ZeroCount>

        init(chunks: Int) {
            slots = .allocate(capacity: max(1, chunks))
            slots.initialize(repeating: ZeroCount())
        }

        deinit { slots.deallocate() }

        /// Records chunk `c`'s count; each chunk writes only its own slot.
        func record(_ c: Int, _ z: ZeroCount) { slots[c] = z }

        var total: ZeroCount {
            var t = ZeroCount()
            for z in slots { t.merge(z) }
            return t
        }
    }
}
