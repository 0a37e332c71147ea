import Testing
import SplatCore

@Suite struct DecodeLimitsTests {
    @Test func bytesPerSplatMatchesTheModel() {
        #expect((0...4).map { SplatScene.bytesPerSplat(degree: $0) } == [56, 92, 152, 236, 344])
        #expect((0...4).map { SplatScene.shCoefficientCount(degree: $0) } == [0, 3, 8, 15, 24])
    }

    @Test func ceilingIsCheckedBeforeAllocation() throws {
        let limits = DecodeLimits()
        // 3,412,315 SH3 splats fit 768 MiB; one more does not.
        #expect(try limits.checkScene(count: 3_412_315, fileDegree: 3) == 3)
        #expect(throws: SplatError.self) { try limits.checkScene(count: 3_412_316, fileDegree: 3) }
        do {
            try limits.checkScene(count: 3_412_316, fileDegree: 3, file: "big.spz")
            Issue.record("expected too_large")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.file == "big.spz")
            #expect(error.message.contains("805306368"))
        }
        // A 2^31-splat header overflows nothing in 64 bits but is far over the ceiling.
        #expect(throws: SplatError.self) { try limits.checkScene(count: Int(Int32.max), fileDegree: 4) }
    }

    @Test func shTruncationDropsBandsBeforeTheCheck() throws {
        var limits = DecodeLimits()
        limits.maxShDegree = 0
        // 5M SH3 splats are too large at degree 3 but fit at degree 0.
        #expect(try limits.checkScene(count: 5_000_000, fileDegree: 3) == 0)
        #expect(limits.sizeVerdict(count: 5_000_000, fileDegree: 3).fitsServiceCeiling)
        #expect(!DecodeLimits().sizeVerdict(count: 5_000_000, fileDegree: 3).fitsServiceCeiling)
    }

    @Test func checkedArithmetic() {
        #expect(CheckedSize.mul(Int.max / 2 + 1, 2) == nil)
        #expect(CheckedSize.add(Int.max, 1) == nil)
        #expect(CheckedSize.mul(-1, 2) == nil)
        #expect(CheckedSize.int(UInt64.max) == nil)
        #expect(CheckedSize.int(1 << 40) == 1 << 40)
    }
}

@Suite struct NonFiniteFilterTests {
    private func scene(_ n: Int) -> SplatScene {
        let s = SplatScene(count: n, shDegree: 1, zeroed: true)
        for i in 0..<n { s.x[i] = Float(i); s.rotW[i] = 1; s.alpha[i] = 0.5 }
        return s
    }

    @Test func dropsNaNAndInfinitiesButKeepsFlatSplats() throws {
        let s = scene(6)
        s.y[1] = .nan
        s.logScaleZ[2] = -.infinity   // 2DGS / zero extent: kept
        s.logScaleX[3] = .infinity    // dropped
        s.sh[4 * 9 + 5] = .infinity   // dropped
        s.alpha[5] = 1                // opacity 1: kept
        let removed = try NonFiniteFilter.apply(to: s, strict: false)
        #expect(removed == 3)
        #expect(s.count == 3)
        #expect(Array(s.x) == [0, 2, 5])
        #expect(s.warnings.contains { $0.contains("first index 1") })
    }

    @Test func largeScenesAreScannedInVectorisedChunks() throws {
        // Several 16,384-splat chunks: a clean chunk with an allowed −∞, a dirty one further on.
        let s = scene(40_000)
        s.logScaleY[100] = -.infinity
        s.rotZ[30_001] = .infinity
        s.sh[35_000 * 9] = .nan
        #expect(try NonFiniteFilter.apply(to: s, strict: false) == 2)
        #expect(s.count == 39_998)
        #expect(s.logScaleY[100] == -.infinity)
        #expect(s.x[30_001] == 30_002 && s.x[34_999] == 35_001)
        #expect(s.warnings.last?.contains("first index 30001") == true)
    }

    @Test func strictFailsWithTheIndex() {
        let s = scene(4)
        s.dcG[2] = .nan
        do {
            try NonFiniteFilter.apply(to: s, strict: true, file: "x.ply")
            Issue.record("expected non_finite")
        } catch {
            #expect(error.kind == .nonFinite)
            #expect(error.message.contains("splat 2"))
        }
        #expect(s.count == 4)
    }
}
