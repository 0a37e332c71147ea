import Foundation
import SplatCore
import SplatFormats
@testable import SplatRender
import Testing
import TestSupport

/// `SceneStatistics` against the one-value-at-a-time reference on random, hand-made and corpus
/// scenes.
@Suite struct SceneStatisticsTests {
    /// A random scene: centres far from the origin (so a naive Σx² − (Σx)²/n would lose the
    /// spread), mixed scales, opacities including exactly 0 and 1, and with `dirt` > 0 that
    /// fraction of values replaced by NaN, +∞ or −∞ in every column and the SH.
    static func randomScene(count: Int, degree: Int, seed: UInt64, dirt: Double = 0) -> SplatScene {
        var g = SplitMix64(seed: seed)
        let scene = SplatScene(count: count, shDegree: degree)
        func uniform(_ a: Float, _ b: Float) -> Float { Float.random(in: a...b, using: &g) }
        func maybeDirty(_ v: Float) -> Float {
            guard dirt > 0, Double.random(in: 0..<1, using: &g) < dirt else { return v }
            return [Float.nan, .infinity, -.infinity][Int.random(in: 0..<3, using: &g)]
        }
        for i in 0..<count {
            scene.x[i] = maybeDirty(1000 + uniform(-3, 3))
            scene.y[i] = maybeDirty(uniform(-1, 1) * uniform(0, 1))
            scene.z[i] = maybeDirty(-20 + uniform(-0.5, 0.5))
            scene.logScaleX[i] = maybeDirty(uniform(-7, 1))
            scene.logScaleY[i] = maybeDirty(uniform(-7, 1))
            scene.logScaleZ[i] = maybeDirty(i % 5 == 0 ? -.infinity : uniform(-9, -2))
            for c: SplatScene.Column in [.rotW, .rotX, .rotY, .rotZ] { scene.columnBase(c)[i] = maybeDirty(uniform(-1, 1)) }
            let a = uniform(0, 1)
            scene.alpha[i] = maybeDirty(i % 7 == 0 ? 1 : i % 11 == 0 ? 0 : a * a)
            for c: SplatScene.Column in [.dcR, .dcG, .dcB] { scene.columnBase(c)[i] = maybeDirty(uniform(-2, 2)) }
        }
        for j in 0..<scene.sh.count { scene.sh[j] = maybeDirty(uniform(-0.3, 0.3)) }
        return scene
    }

    static func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case let (x?, y?): return x == y || abs(x - y) <= tolerance * max(1, abs(y))
        default: return false
        }
    }

    static func matches(_ a: AttributeStatistics, _ b: AttributeStatistics) -> Bool {
        let spread = max(1, abs(b.minimum ?? 0), abs(b.maximum ?? 0))
        return a.count == b.count && a.finiteCount == b.finiteCount && a.nanCount == b.nanCount
            && a.positiveInfinityCount == b.positiveInfinityCount && a.negativeInfinityCount == b.negativeInfinityCount
            && a.minimum == b.minimum && a.maximum == b.maximum
            && close(a.mean, b.mean, 1e-12 * spread) && close(a.standardDeviation, b.standardDeviation, 1e-9 * spread)
    }

    /// Every field against the reference; footprints go through FastExp (≤ 2e−7 relative).
    static func expectMatchesReference(_ s: SceneStatistics, _ r: SceneStatistics, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(s.splatCount == r.splatCount && s.shDegree == r.shDegree, sourceLocation: sourceLocation)
        #expect(s.effectiveSHDegree == r.effectiveSHDegree, sourceLocation: sourceLocation)
        for (mine, theirs) in zip(s.namedAttributes, r.namedAttributes) {
            #expect(mine.key == theirs.key && matches(mine.statistics, theirs.statistics),
                    "\(mine.key): \(mine.statistics) vs \(theirs.statistics)", sourceLocation: sourceLocation)
        }
        #expect(s.shBands.count == r.shBands.count, sourceLocation: sourceLocation)
        #expect(s.opacityPercentiles == r.opacityPercentiles, sourceLocation: sourceLocation)
        #expect(s.scalePercentiles == r.scalePercentiles, sourceLocation: sourceLocation)
        #expect(s.robustBox == r.robustBox, "\(String(describing: s.robustBox)) vs \(String(describing: r.robustBox))",
                sourceLocation: sourceLocation)
        #expect(s.decodedBytes == r.decodedBytes && s.fileBytes == r.fileBytes && s.compressionRatio == r.compressionRatio,
                sourceLocation: sourceLocation)
        switch (s.overdraw, r.overdraw) {
        case (nil, nil): break
        case let (o?, e?):
            #expect(o.splatCount == e.splatCount && o.crossSection == e.crossSection, sourceLocation: sourceLocation)
            #expect(close(o.footprintArea, e.footprintArea, 1e-6) && close(o.crossSectionArea, e.crossSectionArea, 1e-6)
                    && close(o.ratio, e.ratio, 1e-6), "\(o) vs \(e)", sourceLocation: sourceLocation)
        default: Issue.record("overdraw \(String(describing: s.overdraw)) vs \(String(describing: r.overdraw))",
                              sourceLocation: sourceLocation)
        }
    }

    /// Sizes around the 16-lane, 4096-splat chunk and 65,536-element counting-chunk edges.
    @Test(arguments: [(1, 0), (15, 1), (17, 3), (4096, 2), (9001, 3), (70_001, 1), (2500, 4)])
    func randomScenesMatchReference(_ shape: (count: Int, degree: Int)) {
        let scene = Self.randomScene(count: shape.count, degree: shape.degree, seed: UInt64(shape.count * 10 + shape.degree))
        Self.expectMatchesReference(SceneStatistics.compute(scene, fileBytes: 12_345),
                                    SceneStatisticsReference.compute(scene, fileBytes: 12_345))
    }

    @Test(arguments: [0.001, 0.05, 0.6])
    func dirtyScenesMatchReference(_ dirt: Double) {
        let scene = Self.randomScene(count: 5000, degree: 3, seed: 77, dirt: dirt)
        let s = SceneStatistics.compute(scene)
        Self.expectMatchesReference(s, SceneStatisticsReference.compute(scene))
        #expect(s.positionX.nonFiniteCount > 0 && s.shBands[2].nonFiniteCount > 0)
    }

    /// Counts read off a hand-made scene rather than the reference.
    @Test func nonFiniteValuesAreCountedByKind() {
        var splats = (0..<40).map { TestScenes.Splat(position: SIMD3(Float($0), 0, 0)) }
        splats[3].position.x = .nan
        splats[4].position.x = .infinity
        splats[5].position.x = -.infinity
        splats[6].position.x = -.infinity
        splats[39].position.x = .nan // in the scalar tail after the two 16-lane vectors
        splats[7].logScale.z = -.infinity
        splats[8].alpha = .nan
        splats[9].sh = [SIMD3(0, .nan, 0), SIMD3(.infinity, 0, 0), .zero, .zero, .zero, SIMD3(0, 0, -.infinity)]
        let scene = TestScenes.scene(splats, shDegree: 2)
        let s = SceneStatistics.compute(scene)
        #expect(s.positionX.count == 40 && s.positionX.finiteCount == 35)
        #expect(s.positionX.nanCount == 2 && s.positionX.positiveInfinityCount == 1 && s.positionX.negativeInfinityCount == 2)
        let finiteX = (0..<40).filter { ![3, 4, 5, 6, 39].contains($0) }.map(Double.init)
        #expect(s.positionX.minimum == 0 && s.positionX.maximum == 38)
        #expect(abs(s.positionX.mean! - finiteX.reduce(0, +) / 35) < 1e-12)
        #expect(s.logScaleZ.negativeInfinityCount == 1 && s.logScaleZ.finiteCount == 39)
        #expect(s.opacity.nanCount == 1 && s.opacityPercentiles != nil)
        #expect(s.shBands[0].count == 40 * 9 && s.shBands[0].nanCount == 1 && s.shBands[0].positiveInfinityCount == 1)
        #expect(s.shBands[1].count == 40 * 15 && s.shBands[1].negativeInfinityCount == 1 && s.shBands[1].nanCount == 0)
        #expect(s.shBands[0].minimum == 0 && s.shBands[0].maximum == 0)
        Self.expectMatchesReference(s, SceneStatisticsReference.compute(scene))
    }

    @Test func effectiveSHDegreeIsTheHighestNonZeroBand() {
        let base = Self.randomScene(count: 300, degree: 3, seed: 5)
        for j in 0..<base.sh.count { base.sh[j] = 0 }
        #expect(SceneStatistics.compute(base).effectiveSHDegree == 0)
        base.sh[7] = -0.0
        #expect(SceneStatistics.compute(base).effectiveSHDegree == 0)
        // Splat 200, coefficient 4 (band 2), blue.
        base.sh[(200 * 15 + 4) * 3 + 2] = 1e-6
        #expect(SceneStatistics.compute(base).effectiveSHDegree == 2)
        base.sh[(299 * 15 + 14) * 3] = .nan
        #expect(SceneStatistics.compute(base).effectiveSHDegree == 3)
        #expect(SceneStatistics.compute(Self.randomScene(count: 10, degree: 0, seed: 1)).effectiveSHDegree == 0)
    }

    @Test func resultDoesNotDependOnThreadCount() {
        let scene = Self.randomScene(count: 140_000, degree: 2, seed: 11, dirt: 0.0005)
        let one = SceneStatistics.compute(scene, threads: 1)
        for threads in [2, 3, 7] { #expect(SceneStatistics.compute(scene, threads: threads) == one, "\(threads) threads") }
    }

    @Test func percentilesFollowTypeSeven() {
        // Opacities 0, 0.01, …, 1 shuffled: p1 = 0.01, p50 = 0.5, p99 = 0.99 exactly as Floats.
        var order = Array(0...100)
        var g = SplitMix64(seed: 3)
        order.shuffle(using: &g)
        let scene = TestScenes.scene(order.map { TestScenes.Splat(position: SIMD3(Float($0), 0, 0), alpha: Float($0) / 100) })
        let p = SceneStatistics.compute(scene).opacityPercentiles!
        #expect(p == Percentiles(p1: Double(Float(0.01)), p50: Double(Float(0.5)), p99: Double(Float(0.99))))
        // Four values: h = 3p, so p50 interpolates halfway between the 2nd and 3rd.
        let four = TestScenes.scene([1, 2, 4, 8].map { TestScenes.Splat(position: .zero, alpha: Float($0) / 8) })
        let q = SceneStatistics.compute(four).opacityPercentiles!
        #expect(q.p50 == 0.375 && abs(q.p1 - (0.125 + 0.03 * 0.125)) < 1e-15 && abs(q.p99 - (0.5 + 0.97 * 0.5)) < 1e-15)
    }

    @Test func robustBoxIgnoresFaintSplatsAndFloaters() {
        var splats: [TestScenes.Splat] = []
        for i in 0..<1000 { splats.append(.init(position: SIMD3(Float(i) / 999, 2, -Float(i) / 999), alpha: 0.5)) }
        for i in 0..<5 { splats.append(.init(position: SIMD3(1e6, 1e6, Float(i)), alpha: 0.9)) }
        for _ in 0..<500 { splats.append(.init(position: SIMD3(-50, 0, 0), alpha: 0.05)) }
        let s = SceneStatistics.compute(TestScenes.scene(splats))
        let box = s.robustBox!
        #expect(box.opaqueOnly && box.splatCount == 1005)
        #expect(abs(box.lower.x - 0.01005) < 1e-3 && abs(box.upper.x - 0.995) < 1e-2 && box.lower.y == 2 && box.upper.y == 2)
        // Only faint splats: the box falls back to every finite centre.
        let faint = SceneStatistics.compute(TestScenes.scene((0..<10).map { .init(position: SIMD3(Float($0), 0, 0), alpha: 0.01) }))
        #expect(faint.robustBox?.opaqueOnly == false && faint.robustBox?.splatCount == 10)
    }

    @Test func overdrawOnHandMadeScenes() {
        // 100 coincident unit-σ splats: no box face, so the median footprint π divides π·100.
        let stack = SceneStatistics.compute(TestScenes.scene(Array(repeating: .init(position: .zero, logScale: .zero), count: 100)))
        #expect(stack.overdraw?.crossSection == .medianFootprint && abs(stack.overdraw!.ratio - 100) < 1e-4)
        // A 10 × 10 grid in the x–y plane, spacing 1, σ = 0.5 in-plane and flat in z (2DGS): each
        // footprint π/4; ten centres share each coordinate, so p1–p99 is the whole 0…9.
        var grid: [TestScenes.Splat] = []
        for i in 0..<10 { for j in 0..<10 {
            grid.append(.init(position: SIMD3(Float(i), Float(j), 0), logScale: SIMD3(log(0.5), log(0.5), -.infinity)))
        } }
        let flat = SceneStatistics.compute(TestScenes.scene(grid)).overdraw!
        let side = 9.0
        #expect(flat.crossSection == .largestBoxFace && abs(flat.crossSectionArea - side * side) < 1e-9)
        #expect(abs(flat.ratio - 100 * Double.pi / 4 / (side * side)) < 1e-6 && flat.splatCount == 100)
        // One splat, a splat below the cull threshold, and an infinite scale.
        let single = SceneStatistics.compute(TestScenes.scene([.init(position: .zero)])).overdraw!
        #expect(abs(single.ratio - 1) < 1e-6)
        var culled = grid
        culled[0].alpha = 0.001
        #expect(SceneStatistics.compute(TestScenes.scene(culled)).overdraw!.splatCount == 99)
        grid[5].logScale.x = .infinity
        #expect(SceneStatistics.compute(TestScenes.scene(grid)).overdraw!.ratio == .infinity)
    }

    @Test func emptySceneHasCountsOnly() {
        let s = SceneStatistics.compute(SplatScene(count: 0, shDegree: 1), fileBytes: 0)
        #expect(s.splatCount == 0 && s.positionX.count == 0 && s.positionX.mean == nil && s.shBands[0].count == 0)
        #expect(s.opacityPercentiles == nil && s.scalePercentiles == nil && s.robustBox == nil && s.overdraw == nil)
        #expect(s.compressionRatio == nil && s.effectiveSHDegree == 0)
    }

    /// The gs3d tile declares SH 3 but every f_rest is zero; the fruit scene uses all three bands.
    @Test(arguments: [("ply/gs3d-pr477-lod3_tile_0.ply", 3, 0), ("ply/supersplat-fruit_drops_minimal.ply", 3, 3),
                      ("spz/biker.spz", 0, 0)])
    func corpusSceneMatchesReference(_ file: String, declared: Int, effective: Int) throws {
        let path = Fixtures.corpusFile(file)
        let bytes = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let scene = try SplatFile.decode(path: path).scene
        let s = SceneStatistics.compute(scene, fileBytes: bytes)
        Self.expectMatchesReference(s, SceneStatisticsReference.compute(scene, fileBytes: bytes))
        #expect(s.splatCount > 0 && s.robustBox?.opaqueOnly == true && s.overdraw.map { $0.ratio > 0 && $0.ratio.isFinite } == true)
        #expect(s.compressionRatio == Double(scene.decodedBytes) / Double(bytes))
        #expect(s.shDegree == declared && s.effectiveSHDegree == effective)
    }

    @Test func rowsDescribeEveryField() {
        let scene = Self.randomScene(count: 100, degree: 3, seed: 9)
        for j in 0..<scene.sh.count { scene.sh[j] = 0 }
        scene.x[3] = .nan
        let rows = SceneStatistics.compute(scene, fileBytes: 2_000_000).rows
        let table = Dictionary(rows.map { ($0.label, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(table["sh degree"] == "3 stored, 0 effective")
        #expect(table["position x"]?.hasSuffix("(1 NaN)") == true)
        #expect(table["file size"] == "1.9 MiB (2000000 B)")
        #expect(rows.count == 5 + 14 + 3 + 4)
        #expect(rows.last?.label == "overdraw")
    }
}
