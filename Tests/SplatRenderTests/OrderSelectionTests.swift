import SplatCore
@testable import SplatRender
import Testing

/// The two exact selections behind `SceneStatistics`' percentiles, against sorting.
@Suite struct OrderSelectionTests {
    /// One column's finite values as a one-quantity key source.
    struct ColumnKeys: OrderKeySource {
        let values: UnsafePointer<Float>
        var quantities: Int { 1 }
        func keys(_ i: Int, into keys: UnsafeMutablePointer<SIMD16<UInt32>>) {
            let v = UnsafeRawPointer(values + i).loadUnaligned(as: SIMD16<Float>.self)
            keys[0] = OrderKey.keys(v, included: (v - v) .== 0)
        }
    }

    static let fractions = [0.0, 0.01, 0.3, 0.5, 0.99, 1.0]

    /// Sorted finite values and the values at every rank the fractions need.
    static func expected(_ values: [Float]) -> (valid: Int, values: [Int: Float]) {
        let sorted = values.filter(\.isFinite).sorted()
        var out: [Int: Float] = [:]
        for f in fractions { for r in Percentiles.ranks(fraction: f, count: sorted.count) { out[r] = sorted[r] } }
        return (sorted.count, out)
    }

    /// Columns that are hard for a sample: heavy ties (8-bit quantized), a few huge outliers,
    /// values sorted so a stride hits a pattern, NaN and ±∞ sprinkled in, negative zeros.
    static func columns() -> [[Float]] {
        var g = SplitMix64(seed: 21)
        let n = 50_000
        let quantized = (0..<n).map { _ in Float(Int.random(in: 0...255, using: &g)) / 255 }
        let spiky = (0..<n).map { i in i % 997 == 0 ? Float(1e30) : Float.random(in: -1...1, using: &g) }
        let periodic = (0..<n).map { i in i % 3 == 0 ? Float(-5) : Float(i) }
        let dirty = (0..<n).map { i in [Float.nan, .infinity, -.infinity, -0.0, 0][i % 5 == 0 ? i % 4 : 4] + Float(i % 7) }
        let constant = [Float](repeating: 0.25, count: n)
        return [quantized, spiky, periodic, dirty, constant, Array(quantized.prefix(100))]
    }

    /// 16,384 brackets from a real sample; 64 gives narrow brackets that ties and outliers can
    /// defeat; 3 gives unbounded brackets that overflow the gather cap, forcing the radix path.
    @Test(arguments: [16_384, 64, 3])
    func sampledSelectionIsExactForAnySample(_ sampleSize: Int) {
        for values in Self.columns() {
            let scene = SplatScene(count: values.count, shDegree: 0)
            for (i, v) in values.enumerated() { scene.x[i] = v }
            let got = SampledSelection.select(ColumnKeys(values: scene.columnBase(.x)), count: scene.count, threads: 2,
                                              fractions: [Self.fractions], sampleSize: sampleSize)[0]
            let want = Self.expected(values)
            #expect(got.valid == want.valid)
            // Float ==: −0 and +0 tie in the sort, so either may come back.
            #expect(got.values == want.values, "sample \(sampleSize), \(values.count) values")
        }
    }

    @Test func radixSelectionIsExact() {
        for values in Self.columns() {
            let scene = SplatScene(count: values.count, shDegree: 0)
            for (i, v) in values.enumerated() { scene.x[i] = v }
            let want = Self.expected(values)
            let ranks = want.values.keys.sorted()
            let got = RadixSelection.select(ColumnKeys(values: scene.columnBase(.x)), count: scene.count, threads: 3) { _, _ in ranks }[0]
            #expect(got.valid == want.valid && got.values == ranks.map { want.values[$0]! })
        }
    }

    @Test func nthElementAgreesWithSorting() {
        var g = SplitMix64(seed: 4)
        for n in [1, 2, 3, 10, 1000] {
            let a = (0..<n).map { _ in Int32.random(in: -5...5, using: &g) }
            let sorted = a.sorted()
            for k in 0..<n {
                var b = a
                #expect(SampledSelection.nthElement(&b, k) == sorted[k])
            }
        }
    }

    @Test func keysSortLikeFloats() {
        let values: [Float] = [-.infinity, -3e38, -1, -1e-45, -0.0, 0, 1e-45, 1, 3e38, .infinity]
        let keys = values.map { OrderKey.keys(SIMD16(repeating: $0), included: SIMDMask(repeating: true))[0] }
        #expect(keys == keys.sorted() && Set(keys).count == keys.count)
        #expect(zip(keys, values).allSatisfy { OrderKey.value(ofKey: $0).bitPattern == $1.bitPattern })
        #expect(keys.allSatisfy { $0 < OrderKey.excluded && Int32(bitPattern: $0 ^ 0x8000_0000) > .min })
    }
}
