import Foundation
import SplatCore
import SplatFormats

/// `make-stress-scene OUTDIR [--count N] [--seed S]`: builds the large benchmark scene from real
/// corpus data and writes it as `stress.ply`, `stress.v3.spz` and `stress.v4.spz`.
///
/// Geometry, scales, rotations, opacity and base colour come from the largest real PLY of the
/// corpus (a 4 × 4 m tile of 14,051 splats), laid out as a grid of jittered copies; that file's
/// higher SH bands are all zero, so each splat takes the SH of a random splat of the corpus's real
/// degree-3 capture plus a little noise. The default count, 3.4 million at degree 3, is just under
/// the 768 MiB decoded-size ceiling (3,412,315 splats).
enum StressSceneGenerator {
    static let geometrySource = "ply/gs3d-pr477-lod1_tile_0_0.5x.ply"
    static let shSource = "ply/supersplat-fruit_drops_minimal.ply"

    static func run(_ arguments: [String]) -> Int32 {
        var outDir: String?
        var count = 3_400_000
        var seed: UInt64 = 1
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--count":
                guard let v = rest.popFirst().flatMap(Int.init), v > 0 else { return usage("--count needs a positive number") }
                count = v
            case "--seed":
                guard let v = rest.popFirst().flatMap(UInt64.init) else { return usage("--seed needs a number") }
                seed = v
            default:
                if argument.hasPrefix("-") || outDir != nil { return usage("unexpected argument \(argument)") }
                outDir = argument
            }
        }
        guard let outDir else { return usage("missing OUTDIR") }
        return tool.run {
            try generate(count: count, seed: seed, outDir: outDir)
            return 0
        }
    }

    private static let tool = ToolCommand("make-stress-scene", synopsis: "OUTDIR [--count N] [--seed S]")

    private static func usage(_ problem: String) -> Int32 { tool.usage(problem) }

    /// `../shared/corpus` beside the checkout (the package root is two levels above this file).
    static var corpus: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }

    static func generate(count: Int, seed: UInt64, outDir: String) throws {
        let clock = ContinuousClock()
        let start = clock.now
        let geometry = try SplatFile.decode(path: corpus.appendingPathComponent(geometrySource).path).scene
        let colours = try SplatFile.decode(path: corpus.appendingPathComponent(shSource).path).scene
        guard colours.shDegree == 3, geometry.count > 0 else {
            throw SplatError(.invalidArgument, "corpus sources are not the expected files")
        }
        guard DecodeLimits().sizeVerdict(count: count, fileDegree: 3).fitsServiceCeiling else {
            throw SplatError(.invalidArgument, "\(count) splats at SH degree 3 exceed the 768 MiB decoded-size ceiling")
        }
        let scene = build(count: count, seed: seed, geometry: geometry, colours: colours)
        print("built \(count) splats at SH degree 3 in \(clock.now - start)")

        try FileManager.default.createDirectory(atPath: outDir, withIntermediateDirectories: true)
        func write(_ name: String, _ bytes: () throws(SplatError) -> [UInt8]) throws {
            let t = clock.now
            let data = try bytes()
            let path = (outDir as NSString).appendingPathComponent(name)
            try AtomicFileWriter.write(data, to: path)
            print("wrote \(path): \(data.count) bytes in \(clock.now - t)")
        }
        try write("stress.ply") { PLYEncoder.encode(scene) }
        try write("stress.v3.spz") { () throws(SplatError) in try SPZEncoder.encode(scene, options: .init(version: 3)) }
        try write("stress.v4.spz") { () throws(SplatError) in try SPZEncoder.encode(scene, options: .init(version: 4)) }
    }

    /// Tiles the geometry source on a square grid of 4 m cells (x and y), jittering each copy.
    static func build(count: Int, seed: UInt64, geometry g: SplatScene, colours: SplatScene) -> SplatScene {
        let scene = SplatScene(count: count, shDegree: 3)
        let copies = (count + g.count - 1) / g.count
        let side = Int(Double(copies).squareRoot().rounded(.up))
        let cell: Float = 4
        let shPer = scene.shFloatsPerSplat
        let sh = scene.sh.baseAddress!, shSource = colours.sh.baseAddress!
        let columns = SplatScene.Column.allCases
        Parallel.forEachChunk(count: count, chunkSize: 1 << 16) { chunk, range in
            var rng = SplitMix64(seed: seed &+ UInt64(chunk) &* 0x9E37_79B9)
            for i in range {
                let copy = i / g.count, j = i % g.count
                for c in columns { scene.columnBase(c)[i] = g.columnBase(c)[j] }
                // Centre the grid on the origin so positions stay well inside SPZ's ±2048 m.
                let dx = (Float(copy % side) - Float(side) / 2) * cell, dy = (Float(copy / side) - Float(side) / 2) * cell
                scene.x[i] += dx + rng.symmetric(0.01)
                scene.y[i] += dy + rng.symmetric(0.01)
                scene.z[i] += rng.symmetric(0.01)
                scene.logScaleX[i] += rng.symmetric(0.1)
                scene.logScaleY[i] += rng.symmetric(0.1)
                scene.logScaleZ[i] += rng.symmetric(0.1)
                scene.rotW[i] += rng.symmetric(0.05)
                scene.rotX[i] += rng.symmetric(0.05)
                scene.rotY[i] += rng.symmetric(0.05)
                scene.rotZ[i] += rng.symmetric(0.05)
                scene.alpha[i] = min(1, max(0, scene.alpha[i] + rng.symmetric(0.02)))
                scene.dcR[i] += rng.symmetric(0.05)
                scene.dcG[i] += rng.symmetric(0.05)
                scene.dcB[i] += rng.symmetric(0.05)
                let donor = Int(rng.next() % UInt64(colours.count))
                for k in 0..<shPer {
                    sh[i * shPer + k] = shSource[donor * shPer + k] + rng.symmetric(0.03)
                }
            }
        }
        return scene
    }
}

extension SplitMix64 {
    /// Uniform in [−amplitude, amplitude), for jittering copied splats.
    mutating func symmetric(_ amplitude: Float) -> Float {
        (Float(next() >> 40) / Float(1 << 24) * 2 - 1) * amplitude
    }
}
