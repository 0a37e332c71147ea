import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import TestSupport

/// `splat-bench margins [--shared PATH] [--size N] [--padding P] [--azimuths N] [--elevations A,B,…] [--write DIR]`:
/// for each object scene of the corpus (`FramingCorpus`, the floater-carrying one last), auto-framed as the service frames an
/// orbit at each elevation (the distance fitted at that elevation), the smallest distance in
/// pixels from the subject (alpha > 0.5, `SubjectMargin`) to an image edge over every view —
/// the figure behind `--padding` (P, default `AutoFramer.defaultPadding`; at 512² and 0.05 the
/// padding is 25.6 px). `--write` keeps each view as a PNG to look at.
enum MarginsTool {
    static func run(_ arguments: [String]) -> Int32 {
        var shared: String?
        var size = 512
        var azimuthCount = 8
        var elevations: [Double] = [-30, 0, 20, 30, 60]
        var writeFolder: String?
        var only: Set<String>?
        var padding = AutoFramer.defaultPadding
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--shared": shared = rest.popFirst()
            case "--size": size = rest.popFirst().flatMap { Int($0) } ?? size
            case "--azimuths": azimuthCount = rest.popFirst().flatMap { Int($0) } ?? azimuthCount
            case "--elevations": elevations = rest.popFirst()?.split(separator: ",").compactMap { Double($0) } ?? elevations
            case "--write": writeFolder = rest.popFirst()
            case "--padding": padding = rest.popFirst().flatMap { Double($0) } ?? padding
            case "--scenes": only = rest.popFirst().map { Set($0.split(separator: ",").map(String.init)) }
            default:
                FileHandle.standardError.write(Data("margins: unknown argument \(argument)\n".utf8))
                return 2
            }
        }
        do {
            let paths = try BenchmarkPaths(shared: shared)
            if let writeFolder { try FileManager.default.createDirectory(atPath: writeFolder, withIntermediateDirectories: true) }
            print("| scene | splats | min margin px (\(size)²) | worst view (azimuth, elevation, side) | per elevation | coverage |")
            print("|---|---|---|---|---|---|")
            for entry in FramingCorpus.objectScenes + FramingCorpus.withFloaters where only?.contains(entry.name) ?? true {
                let scene = try SplatFile.decode(path: try paths.corpusFile(entry.file)).scene
                FrameDecision.decide(for: scene).apply(to: scene)
                let renderer = Renderer(scene: scene)
                var worst: (margin: Int, view: String) = (Int.max, "")
                var perElevation: [String] = []
                var lowest = 1.0, highest = 0.0
                for elevation in elevations {
                    let framing = AutoFramer.frame(scene, width: size, height: size, fovYDegrees: Camera.defaultFovYDegrees,
                                                   elevationDegrees: elevation, padding: padding)
                    var least = Int.max
                    for k in 0..<azimuthCount {
                        let azimuth = AutoFramer.defaultAzimuthDegrees + 360 * Double(k) / Double(azimuthCount)
                        let camera = framing.camera(azimuthDegrees: azimuth, elevationDegrees: elevation,
                                                    fovYDegrees: Camera.defaultFovYDegrees)
                        let result = try renderer.render(camera: camera, settings: RenderSettings(width: size, height: size))
                        lowest = min(lowest, result.coverage)
                        highest = max(highest, result.coverage)
                        if let writeFolder {
                            let name = "\(entry.name)_el\(Int(elevation))_az\(Int(azimuth)).png"
                            try AtomicFileWriter.write(try PNGWriter.encode(result.image), to: writeFolder + "/" + name)
                        }
                        guard let m = SubjectMargin.measure(result.image) else { continue }
                        least = min(least, m.minimum)
                        if m.minimum < worst.margin {
                            let side = [(m.left, "left"), (m.right, "right"), (m.top, "top"), (m.bottom, "bottom")].min { $0.0 < $1.0 }!.1
                            worst = (m.minimum, "\(Int(azimuth)), \(Int(elevation)), \(side)")
                        }
                    }
                    perElevation.append("\(Int(elevation))°: \(least == Int.max ? "–" : String(least))")
                }
                print("| \(entry.name) | \(scene.count) | \(worst.margin == Int.max ? "–" : String(worst.margin)) | \(worst.view) | \(perElevation.joined(separator: ", ")) | \(String(format: "%.3f–%.3f", lowest, highest)) |")
            }
        } catch {
            FileHandle.standardError.write(Data("margins: \(error)\n".utf8))
            return 1
        }
        return 0
    }
}
