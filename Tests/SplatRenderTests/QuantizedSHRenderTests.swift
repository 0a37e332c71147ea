import Foundation
import SplatCore
import SplatFormats
import SplatImage
import SplatRender
import Testing
import TestSupport

/// The render form that keeps SPZ's SH as its 8-bit codes (`SHStorage.quantized`): the codes are
/// the Float32 decode's coefficients exactly, every other column is the same, and frames rendered
/// from it match the Float32 scene's — bit for bit through the named frames' conversions, within
/// rounding through an arbitrary rotation.
@Suite struct QuantizedSHRenderTests {
    static let spzFiles = ["spz/biker.spz", "spz/splat-transform-minimal-v2.spz", "spz/splat-transform-minimal-v3.spz",
                           "spz/splat-transform-minimal-v4.spz", "spz/adobe-SanitySplats.spz",
                           "spz/metalsplatter-3-points-from-train.spz"]
    static let vectorFiles = ["sh1-ext-v3.spz", "sh1-ext-v4.spz", "sh2-v2.spz", "deg4-v4.spz", "v1-half.spz", "clamp-quat-v3.spz"]

    static func bothForms(_ path: String, limits: DecodeLimits = DecodeLimits()) throws -> (float: DecodedScene, codes: DecodedScene) {
        (try SplatFile.decode(path: path, limits: limits), try SplatFile.decode(path: path, limits: limits, sh: .quantized))
    }

    /// A real degree-3 scene (the 4,721-splat fruit PLY, whose SH is strong) written as SPZ `version`: the corpus
    /// SPZ files with SH are only a few splats.
    static func degree3SPZ(version: Int = 4) throws -> InputBytes {
        let ply = try SplatFile.decode(path: Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")).scene
        let bytes = try SPZEncoder.encode(ply, options: SPZEncoder.Options(version: version))
        return bytes.withUnsafeBytes { InputBytes(copying: $0, name: "fruit.v\(version).spz") }
    }

    static func bothForms(_ input: InputBytes, limits: DecodeLimits = DecodeLimits()) throws -> (float: DecodedScene, codes: DecodedScene) {
        (try SplatFile.decode(input, limits: limits), try SplatFile.decode(input, limits: limits, sh: .quantized))
    }

    @Test(arguments: spzFiles.map(Fixtures.corpusFile) + vectorFiles.map(Fixtures.vector))
    func codesAreTheFloatDecodesCoefficients(path: String) throws {
        let (float, coded) = try Self.bothForms(path)
        let a = float.scene, b = coded.scene
        #expect(b.count == a.count)
        #expect(coded.header.shDegree == float.header.shDegree)
        for column in SplatScene.Column.allCases {
            #expect(Array(b.column(column)) == Array(a.column(column)), "column \(column)")
        }
        guard a.shDegree > 0 else {
            #expect(b.quantizedSH == nil, "degree 0 keeps no codes")
            return
        }
        #expect(b.shDegree == 0 && b.sh.isEmpty, "no Float32 SH is made")
        let codes = try #require(b.quantizedSH)
        #expect(codes.degree == a.shDegree)
        #expect(codes.stride == a.shFloatsPerSplat)
        var mismatches = 0
        for i in 0..<a.count {
            for k in 0..<a.shCoefficientsPerChannel where codes.coefficient(i, k) != a.shCoefficient(i, k) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// A degree-3 scene of 4.7k splats, through the v4 stream path and the legacy (gzip) payload
    /// path.
    @Test(arguments: [4, 3])
    func degree3CodesMatch(version: Int) throws {
        let (floatDecode, codedDecode) = try Self.bothForms(try Self.degree3SPZ(version: version))
        let float = floatDecode.scene, coded = codedDecode.scene
        let codes = try #require(coded.quantizedSH)
        #expect(coded.count == float.count && float.count == 4721)
        #expect(codes.degree == 3 && float.shDegree == 3)
        var mismatches = 0
        for i in 0..<float.count {
            for k in 0..<float.shCoefficientsPerChannel where codes.coefficient(i, k) != float.shCoefficient(i, k) { mismatches += 1 }
        }
        #expect(mismatches == 0)
        for column in SplatScene.Column.allCases { #expect(Array(coded.column(column)) == Array(float.column(column))) }
    }

    /// Three orbit views around the scene's robust centre (SH is view dependent).
    static func views(of scene: SplatScene) -> [Camera] {
        let framing = AutoFramer.frame(scene, width: 160, height: 120, fovYDegrees: 50)
        return [0.0, 2.1, 4.2].map { azimuth in
            let offset = SIMD3(sin(azimuth), -0.35, cos(azimuth)) * framing.distance
            return Camera(position: framing.center + offset, target: framing.center, up: SIMD3(0, -1, 0), fovYDegrees: 50)
        }
    }

    static func render(_ scene: SplatScene, _ cameras: [Camera], threads: Int? = nil) throws -> [ImageBuffer] {
        let renderer = Renderer(scene: scene, threads: threads)
        return try cameras.map { try renderer.render(camera: $0, settings: RenderSettings(width: 160, height: 120)).image }
    }

    /// Through the job's own frame decision and then a half turn (`--flip`, which flips SH signs),
    /// the images are byte-identical.
    @Test func rendersBitIdenticalAfterAHalfTurn() throws {
        let (float, coded) = try Self.bothForms(try Self.degree3SPZ())
        for scene in [float.scene, coded.scene] {
            FrameDecision.decide(for: scene).apply(to: scene)
            FrameConversion.halfTurnX.apply(to: scene)
        }
        #expect(coded.scene.quantizedSH?.storedDirection != nil, "the half turn is recorded, not applied to the codes")
        let cameras = Self.views(of: float.scene)
        let a = try Self.render(float.scene, cameras), b = try Self.render(coded.scene, cameras)
        for (x, y) in zip(a, b) { #expect(x.pixels == y.pixels) }
        // And independent of the thread count.
        let one = try Self.render(coded.scene, cameras, threads: 1)
        for (x, y) in zip(b, one) { #expect(x.pixels == y.pixels) }
    }

    /// A quarter turn (Y and Z swapped, a named frame) and a rotation about a skew axis (the up
    /// alignment's kind): the Float32 path mixes coefficients, the coded path turns the viewing
    /// direction instead; the two agree to rounding.
    @Test func rotationsMatchTheRotatedFloatSH() throws {
        let input = try Self.degree3SPZ()
        let (float, coded) = try Self.bothForms(input)
        let rotation = SceneRotation(axis: SIMD3(1, 2, 3), angle: 0.7)
        for scene in [float.scene, coded.scene] {
            FrameDecision.decide(for: scene).apply(to: scene)
            FrameConversion(from: .rub, to: .rfd).apply(to: scene)
            rotation.apply(to: scene)
        }
        let cameras = Self.views(of: float.scene)
        let a = try Self.render(float.scene, cameras), b = try Self.render(coded.scene, cameras)
        let unrotated = try Self.render(try SplatFile.decode(input).scene, cameras)
        for ((x, y), z) in zip(zip(a, b), unrotated) {
            let report = ImageComparison.compare(y, x)
            print("coded vs Float32 SH after rotation: \(report)")
            #expect(report.psnr >= 70, "\(report)")
            // The views differ from the unrotated scene's: the rotation really happened.
            #expect(ImageComparison.compare(z, x).psnr < 40)
        }
    }

    /// `--sh-degree` keeps fewer bands: the coded scene evaluates only those of the file's codes.
    @Test func keptDegreeCapMatchesTheFloatDecode() throws {
        let limits = DecodeLimits(maxShDegree: 1)
        let (float, coded) = try Self.bothForms(try Self.degree3SPZ(), limits: limits)
        #expect(float.scene.shDegree == 1)
        let codes = try #require(coded.scene.quantizedSH)
        #expect(codes.degree == 1 && codes.stride == 45, "the file's stride, degree-1 evaluation")
        for scene in [float.scene, coded.scene] { FrameDecision.decide(for: scene).apply(to: scene) }
        let cameras = Self.views(of: float.scene)
        for (x, y) in zip(try Self.render(float.scene, cameras), try Self.render(coded.scene, cameras)) {
            #expect(x.pixels == y.pixels)
        }
    }

    /// Dropping a splat (the non-finite rule) moves the codes with the other columns.
    @Test func compactionMovesTheCodes() throws {
        let scene = SplatScene(count: 4, shDegree: 0, zeroed: true)
        let codes = QuantizedSH(count: 4, stride: 9, degree: 1)
        for i in 0..<4 { for j in 0..<9 { codes.codes[i * 9 + j] = UInt8(16 * i + j) } }
        scene.quantizedSH = codes
        for i in 0..<4 { scene.rotW[i] = 1 }
        scene.x[1] = .nan
        let removed = try NonFiniteFilter.apply(to: scene, strict: false)
        #expect(removed == 1 && scene.count == 3 && codes.count == 3)
        #expect(codes.coefficient(1, 0) == SIMD3(Float(32), 33, 34) / 128 - 1, "splat 2's codes moved into slot 1")
        #expect(codes.coefficient(2, 2) == SIMD3(Float(54), 55, 56) / 128 - 1)
    }

    /// The direction record composes: a turn followed by its inverse is the identity again.
    @Test func directionRecordComposes() {
        let codes = QuantizedSH(count: 1, stride: 9, degree: 1)
        let scene = SplatScene(count: 1, shDegree: 0, zeroed: true)
        scene.quantizedSH = codes
        FrameConversion.halfTurnX.apply(to: scene)
        #expect(codes.storedDirection == [SIMD3(1, 0, 0), SIMD3(0, -1, 0), SIMD3(0, 0, -1)])
        FrameConversion(from: .rub, to: .rfd).apply(to: scene)
        FrameConversion(from: .rfd, to: .rub).apply(to: scene)
        FrameConversion.halfTurnX.apply(to: scene)
        #expect(codes.storedDirection == nil)
    }
}
