import Foundation
import SplatCore

/// The orientation test set of issue 16: every corpus scene with at least 1,000 splats, with the
/// up direction of its stored frame as established by rendering it (CLI, looking at the images),
/// and the rotations each is put through. Shared by the accuracy test and `splat-bench up-eval`.
public enum UpEvaluationCorpus {
    public struct Entry: Sendable {
        public let name: String
        /// Path under the corpus folder.
        public let file: String
        /// The glb's SPZ payload is decoded on its own (no glTF decoder on this branch, and the
        /// payload is the Z-up data the issue describes).
        public let isGLBPayload: Bool
        /// Up in the stored frame.
        public let truth: SignedAxis
        /// Whether the format's convention (RDF for PLY, compressed PLY, .splat, SOG; RUB for
        /// SPZ) already shows it upright.
        public let uprightToday: Bool
        /// How the truth was established.
        public let reason: String
    }

    public static let entries: [Entry] = [
        Entry(name: "gs3d-lod1", file: "ply/gs3d-pr477-lod1_tile_0_0.5x.ply", isGLBPayload: false, truth: .plusZ, uprightToday: false,
              reason: "flower-bed tile: with +Z up (--source-frame RFU) the flowers stand on their soil; RDF shows a wall, RBD the soil's underside"),
        Entry(name: "gs3d-lod3", file: "ply/gs3d-pr477-lod3_tile_0.ply", isGLBPayload: false, truth: .plusZ, uprightToday: false,
              reason: "coarser level of the same tile: the same three renders, the same answer"),
        Entry(name: "fruit", file: "ply/supersplat-fruit_drops_minimal.ply", isGLBPayload: false, truth: .minusY, uprightToday: true,
              reason: "the embossed \"MIXED DROPS\" reads upright under the RDF convention"),
        Entry(name: "train-1000", file: "ply/loadersgl-train-1000.ply", isGLBPayload: false, truth: .minusY, uprightToday: true,
              reason: "too sparse to read in a render; Y is the short axis (±1 against 7 and 6), the opaque mass stops sharply at y ≈ +1 (the ground) and the large faint sky splats sit at −y: −Y, the RDF convention"),
        Entry(name: "guitar", file: "compressed-ply/guitar.compressed.ply", isGLBPayload: false, truth: .minusY, uprightToday: true,
              reason: "stands on its stand, headstock up, under the RDF convention"),
        Entry(name: "biker", file: "spz/biker.spz", isGLBPayload: false, truth: .plusY, uprightToday: true,
              reason: "a person standing, head up, under the SPZ RUB convention (MANIFEST: y up, feet at 0)"),
        Entry(name: "monkey", file: "sog/monkey_0001.sog", isGLBPayload: false, truth: .minusY, uprightToday: true,
              reason: "Suzanne's head upright (ears level, chin down) under the RDF convention"),
        Entry(name: "playbot", file: "sog/playbot-lod4/meta.json", isGLBPayload: false, truth: .minusY, uprightToday: true,
              reason: "robot above its ground tile under the RDF convention"),
        Entry(name: "playcanvas-logo", file: "sog/playcanvas-logo-v1/meta.json", isGLBPayload: false, truth: .minusY, uprightToday: true,
              reason: "the furry logo slab stands with its chevrons upright under the RDF convention"),
        Entry(name: "luma-seal", file: "splat/luma-seal.splat", isGLBPayload: false, truth: .minusY, uprightToday: true,
              reason: "seal statue on its bench on the pavement under the RDF convention"),
        Entry(name: "flywave-aerial", file: "gltf/flywave-aerial-tile1_2.glb", isGLBPayload: true, truth: .plusZ, uprightToday: false,
              reason: "Z-up 3D Tiles payload: with +Z up (RFU) the parking lot is a ground with poles standing; RUB shows a wall, RBD the underside"),
    ]

    /// The SPZ payload of a glb using KHR_gaussian_splatting_compression_spz_2: the bytes of the
    /// buffer view the primitive's extension names.
    public static func spzPayload(glbPath: String) throws -> [UInt8] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: glbPath)))
        func u32(_ o: Int) -> Int { Int(bytes[o]) | Int(bytes[o + 1]) << 8 | Int(bytes[o + 2]) << 16 | Int(bytes[o + 3]) << 24 }
        let jsonLength = u32(12)
        let json = try JSONSerialization.jsonObject(with: Data(bytes[20..<20 + jsonLength])) as! [String: Any]
        let binStart = 20 + jsonLength + 8
        let primitive = ((json["meshes"] as! [[String: Any]])[0]["primitives"] as! [[String: Any]])[0]
        let splatting = (primitive["extensions"] as! [String: Any])["KHR_gaussian_splatting"] as! [String: Any]
        let spz = (splatting["extensions"] as! [String: Any])["KHR_gaussian_splatting_compression_spz_2"] as! [String: Any]
        let view = (json["bufferViews"] as! [[String: Any]])[spz["bufferView"] as! Int]
        let offset = (view["byteOffset"] as? Int) ?? 0, length = view["byteLength"] as! Int
        return Array(bytes[binStart + offset..<binStart + offset + length])
    }

    /// The 24 proper rotations that map axes to axes (signed permutation matrices, det +1), the
    /// identity first.
    public static let axisRotations: [SceneRotation] = {
        var out: [SceneRotation] = [.identity]
        let permutations = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        for p in permutations {
            for signs in 0..<8 {
                let rows = (0..<3).map { r -> SIMD3<Double> in
                    var v = SIMD3<Double>.zero
                    v[p[r]] = (signs >> r) & 1 == 0 ? 1 : -1
                    return v
                }
                if let rotation = SceneRotation(rows: rows), !rotation.isIdentity { out.append(rotation) }
            }
        }
        return out
    }()

    /// `count` rotations drawn uniformly (random unit quaternions from `seed`).
    public static func randomRotations(count: Int, seed: UInt64) -> [SceneRotation] {
        var state = seed
        func next() -> Double {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
        }
        return (0..<count).map { _ in
            // Shoemake's uniform quaternion.
            let u1 = next(), u2 = next() * 2 * .pi, u3 = next() * 2 * .pi
            let a = (1 - u1).squareRoot(), b = u1.squareRoot()
            return SceneRotation(quaternion: SIMD4(b * cos(u3), a * sin(u2), a * cos(u2), b * sin(u3)))
        }
    }

    /// The splats `FramingSample` would take from `scene` (every ⌈n / 65,536⌉-th), as a scene of
    /// its own: estimating on it gives exactly the estimate for `scene` (the test checks), at a
    /// fraction of the cost of rotating the whole scene.
    public static func thinned(_ scene: SplatScene, maximum: Int = 65_536) -> SplatScene {
        let step = max(1, (scene.count + maximum - 1) / maximum)
        let kept = (scene.count + step - 1) / step
        let out = SplatScene(count: kept, shDegree: scene.shDegree)
        out.conventionalFrame = scene.conventionalFrame
        let dim = scene.shFloatsPerSplat
        for column in SplatScene.Column.allCases {
            let src = scene.columnBase(column), dst = out.columnBase(column)
            for j in 0..<kept { dst[j] = src[j * step] }
        }
        if dim > 0 {
            for j in 0..<kept {
                (out.sh.baseAddress! + j * dim).update(from: scene.sh.baseAddress! + j * step * dim, count: dim)
            }
        }
        return out
    }

    /// A copy of `scene` (values, frame facts).
    public static func copy(_ scene: SplatScene) -> SplatScene {
        let out = SplatScene(count: scene.count, shDegree: scene.shDegree)
        for column in SplatScene.Column.allCases {
            out.columnBase(column).update(from: scene.columnBase(column), count: scene.count)
        }
        if scene.shFloatsPerSplat > 0 { out.sh.baseAddress!.update(from: scene.sh.baseAddress!, count: scene.sh.count) }
        out.conventionalFrame = scene.conventionalFrame
        out.declaredFrame = scene.declaredFrame
        out.model = scene.model
        return out
    }
}
