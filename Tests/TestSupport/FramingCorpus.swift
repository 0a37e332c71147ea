/// The corpus scenes that are one object in front of the camera, for the framing guarantees
/// (`--padding`: no subject pixel inside the padding at any turntable azimuth, elevations −30…60).
/// Shared by the framing test and `splat-bench margins`.
///
/// Chosen from `corpus/MANIFEST.json` and the renders: a captured or modelled subject with empty
/// space around it. Left out: the gs3d tiles (a 4×4 patch cut from a flower bed: the content runs
/// to the tile's cut edges), `loadersgl-train-1000` (the first splats of an outdoor scene, no
/// single object), the flywave aerial tile (a parking lot), the glTF conformance files (single
/// synthetic splats) and the toy files of 3–16 splats (a few dots, framing has nothing to frame).
/// `luma-seal` is an object too, but its capture left a cluster of floaters above the statue,
/// beyond the box the framing fits (by design: floaters do not shrink the subject), and at
/// elevations 0–30° they show in the top band: it is measured (`withFloaters`), not held to the
/// padding.
public enum FramingCorpus {
    public struct Scene: Sendable {
        public let name: String
        /// Path under the corpus folder.
        public let file: String
        /// Why it counts as an object scene.
        public let reason: String
    }

    public static let objectScenes: [Scene] = [
        Scene(name: "biker", file: "spz/biker.spz", reason: "a rider standing by a motorbike, captured; hair and boots are the extremities"),
        Scene(name: "guitar", file: "compressed-ply/guitar.compressed.ply", reason: "a guitar on its stand: tall and thin, the headstock the extremity"),
        Scene(name: "monkey", file: "sog/monkey_0001.sog", reason: "Suzanne, a modelled head"),
        Scene(name: "fruit", file: "ply/supersplat-fruit_drops_minimal.ply", reason: "a packet of fruit drops"),
        Scene(name: "playbot", file: "sog/playbot-lod4/meta.json", reason: "a robot on its ground tile: the tile's corners are the extremities"),
        Scene(name: "playcanvas-logo", file: "sog/playcanvas-logo-v1/meta.json", reason: "a furry logo slab standing upright"),
    ]

    /// Object scenes whose floaters may show in the padding.
    public static let withFloaters: [Scene] = [
        Scene(name: "luma-seal", file: "splat/luma-seal.splat", reason: "a seal statue on its bench with a disc of pavement, and a floater cluster above it"),
    ]
}
