import Foundation
import SplatCore
@testable import SplatRender
import Testing

/// The numeric building blocks: SIMD exp and log, the per-tile depth sort, weighted quantiles.
@Suite struct KernelTests {
    @Test func fastExpRelativeError() {
        var worst = 0.0
        var x: Float = -30
        while x <= 0 {
            let got = Double(FastExp.exp(x)), want = Foundation.exp(Double(x))
            worst = max(worst, abs(got - want) / want)
            x += 0.0137
        }
        #expect(worst < 3e-7, "worst relative error \(worst)")
        // Large arguments are raised to the floor rather than producing garbage.
        #expect(FastExp.exp(-1e30) > 0 && FastExp.exp(-1e30) < 1e-37)
        let eight = FastExp.exp8(SIMD8(-100, -40, -20, -5.5, -1, -0.25, 0, 0.5), floor: -30)
        #expect(abs(Double(eight[0]) - Foundation.exp(-30.0)) / Foundation.exp(-30.0) < 3e-7)
        #expect(abs(Double(eight[7]) - Foundation.exp(0.5)) / Foundation.exp(0.5) < 3e-7)
    }

    @Test func fastLogAbsoluteError() {
        var worst = 0.0
        var x: Float = 1
        while x <= 300 {
            worst = max(worst, abs(Double(FastLog.log(x)) - Foundation.log(Double(x))))
            x *= 1.0031
        }
        #expect(worst < 1e-6, "worst absolute error \(worst)")
    }

    @Test func compositorRecordIsOneCacheLine() {
        // The compositor's speed relies on it: a record straddling two lines costs a second miss.
        #expect(MemoryLayout<ProjectedSplat>.stride == 64)
        #expect(MemoryLayout<ProjectedSplat>.alignment <= 64)
    }

    @Test(arguments: [0, 1, 7, 47, 48, 49, 300, 5000, 70_000])
    func tileDepthSortOrdersByDepthThenSlot(count: Int) {
        var generator = SplitMix64(seed: UInt64(count) + 1)
        // Slots ascending with gaps (as binning leaves them), few distinct depths in a narrow
        // range (many ties), plus a few far outliers.
        let slots = (0..<count).map { UInt32($0 * 3 + 1) }
        let depth = AlignedBuffer<Float>(count: max(1, 3 * count + 2))
        for i in 0..<(3 * count + 2) {
            depth[i] = i % 997 == 4 ? 1e30 - Float(i % 3) : 1 + Float(generator.next() % 50) / 64
        }
        let entries = AlignedBuffer<UInt32>(count: max(count, 1))
        for (k, slot) in slots.enumerated() { entries[k] = slot }
        let scratch = UnsafeMutablePointer<UInt64>.allocate(capacity: max(2, 2 * count))
        defer { scratch.deallocate() }
        TileDepthSort.sort(entries.base, count: count, depth: depth.base, scratch: scratch)
        let expected = slots.sorted { depth[Int($0)] != depth[Int($1)] ? depth[Int($0)] < depth[Int($1)] : $0 < $1 }
        var mismatches = 0
        for k in 0..<count where entries[k] != expected[k] { mismatches += 1 }
        #expect(mismatches == 0)
    }

    @Test func weightedQuantileMatchesDefinition() {
        // Small sets take the sorting path, large ones the histogram refinement; both must equal
        // the brute-force interpolated quantile.
        for (count, seed) in [(5, 1), (300, 2), (50_000, 3)] as [(Int, UInt64)] {
            var generator = SplitMix64(seed: seed)
            var values = (0..<count).map { _ in Float(Double(generator.next() % 1_000_000) / 1000 - 500) }
            if count > 1000 { for i in 0..<40 { values[i] = 1e6 + Float(i) } } // far outliers
            let weights = (0..<count).map { _ in Float(generator.next() % 1000 + 1) / 1000 }
            for fraction in [0.0, 0.02, 0.5, 0.98, 1.0] {
                let got = WeightedQuantile.quantile(values: values, weights: weights, fraction: fraction)!
                let want = Self.bruteForceQuantile(values, weights, fraction)
                #expect(abs(got - want) <= 1e-6 * max(1, abs(want)), "n \(count) q \(fraction): \(got) vs \(want)")
            }
        }
        #expect(WeightedQuantile.quantile(values: [], weights: [], fraction: 0.5) == nil)
        #expect(WeightedQuantile.quantile(values: [3, 3, 3], weights: [1, 1, 1], fraction: 0.4) == 3)
    }

    static func bruteForceQuantile(_ values: [Float], _ weights: [Float], _ fraction: Double) -> Double {
        let order = values.indices.sorted { values[$0] < values[$1] }
        let total = weights.reduce(0.0) { $0 + Double($1) }
        let target = fraction * total
        var cumulative = 0.0
        var previous: (Double, Double)?
        for i in order {
            let next = cumulative + Double(weights[i])
            if next >= target {
                guard let p = previous else { return Double(values[i]) }
                return p.0 + (Double(values[i]) - p.0) * (target - p.1) / (next - p.1)
            }
            previous = (Double(values[i]), next)
            cumulative = next
        }
        return Double(values[order.last!])
    }
}

@Suite struct FastSqrtTests {
    @Test func withinOneUlpOfCorrectlyRounded() {
        var worstUlps: Float = 0
        var x: Float = 1e-12
        while x < 1e12 {
            let got = FastSqrt.sqrt(x), want = x.squareRoot()
            worstUlps = max(worstUlps, abs(got - want) / want.ulp)
            x *= 1.000_37
        }
        #expect(worstUlps <= 1, "worst \(worstUlps) ulp")
        #expect(FastSqrt.sqrt(0) == 0)
        #expect(FastSqrt.sqrt(0.3) == Float(0.3).squareRoot() || abs(FastSqrt.sqrt(0.3) - Float(0.3).squareRoot()) <= Float(0.3).squareRoot().ulp)
    }
}
