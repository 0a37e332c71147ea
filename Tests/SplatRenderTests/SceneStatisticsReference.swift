import Foundation
import SplatCore
@testable import SplatRender

/// The statistics `SceneStatistics` reports, computed the obvious way: one value at a time in
/// Double, two-pass variance, full sorts for the percentiles. Slow and simple on purpose.
enum SceneStatisticsReference {
    static func attribute(_ values: [Float]) -> AttributeStatistics {
        let finite = values.filter(\.isFinite).map(Double.init)
        let mean = finite.isEmpty ? nil : finite.reduce(0, +) / Double(finite.count)
        let std = mean.map { m in (finite.map { ($0 - m) * ($0 - m) }.reduce(0, +) / Double(finite.count)).squareRoot() }
        return AttributeStatistics(count: values.count, finiteCount: finite.count,
                                   nanCount: values.filter(\.isNaN).count,
                                   positiveInfinityCount: values.filter { $0 == .infinity }.count,
                                   negativeInfinityCount: values.filter { $0 == -.infinity }.count,
                                   minimum: finite.min(), maximum: finite.max(), mean: mean, standardDeviation: std)
    }

    /// Type 7 on a sorted array.
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        let h = Double(sorted.count - 1) * p
        let k = Int(h.rounded(.down))
        if k + 1 >= sorted.count || sorted[k] == sorted[k + 1] { return sorted[k] }
        return sorted[k] + (h - Double(k)) * (sorted[k + 1] - sorted[k])
    }

    static func percentiles(_ values: [Double]) -> Percentiles? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        return Percentiles(p1: percentile(s, 0.01), p50: percentile(s, 0.5), p99: percentile(s, 0.99))
    }

    static func column(_ scene: SplatScene, _ c: SplatScene.Column) -> [Float] { Array(scene.column(c)) }

    /// Band of 0-based rest coefficient k.
    static func band(_ k: Int) -> Int { Int(Double(k + 1).squareRoot().rounded(.down)) }

    static func logArea(_ l: [Float]) -> Double? {
        guard !l.contains(where: \.isNaN) else { return nil }
        let sums = [l[0] + l[1], l[0] + l[2], l[1] + l[2]].filter { !$0.isNaN }
        return Double(sums.max() ?? -.infinity)
    }

    static func compute(_ scene: SplatScene, fileBytes: Int? = nil) -> SceneStatistics {
        let n = scene.count
        let cols = SplatScene.Column.allCases.map { column(scene, $0) }
        let s = cols.map(attribute)
        let dim = scene.shCoefficientsPerChannel
        var bandValues = [[Float]](repeating: [], count: scene.shDegree)
        for i in 0..<n {
            for k in 0..<dim {
                for c in 0..<3 { bandValues[band(k) - 1].append(scene.sh[(i * dim + k) * 3 + c]) }
            }
        }
        let bands = bandValues.map(attribute)
        let effective = bandValues.lastIndex { $0.contains { $0 != 0 } }.map { $0 + 1 } ?? 0

        let alpha = cols[SplatScene.Column.alpha.rawValue]
        let logScales = (0..<n).map { [scene.logScaleX[$0], scene.logScaleY[$0], scene.logScaleZ[$0]] }
        let opacity = percentiles(alpha.filter(\.isFinite).map(Double.init))
        let scale = percentiles(logScales.compactMap { l -> Double? in
            guard !l.contains(where: \.isNaN), let m = l.max(), m != .infinity else { return nil }
            return Foundation.exp(Double(m))
        })

        func finiteCentre(_ i: Int) -> Bool { scene.x[i].isFinite && scene.y[i].isFinite && scene.z[i].isFinite }
        var members = (0..<n).filter { finiteCentre($0) && alpha[$0] >= RobustBox.minimumOpacity }
        let opaqueOnly = !members.isEmpty
        if !opaqueOnly { members = (0..<n).filter(finiteCentre) }
        var box: RobustBox?
        if !members.isEmpty {
            let axes = [scene.x, scene.y, scene.z].map { col in members.map { Double(col[$0]) }.sorted() }
            box = RobustBox(lower: SIMD3(axes.map { percentile($0, 0.01) }), upper: SIMD3(axes.map { percentile($0, 0.99) }),
                            splatCount: members.count, opaqueOnly: opaqueOnly)
        }

        var areas: [Double] = []
        for i in 0..<n where alpha[i] >= OverdrawEstimate.minimumOpacity {
            if let t = logArea(logScales[i]) { areas.append(Double.pi * Foundation.exp(t)) }
        }
        let total = areas.reduce(0, +)
        let overdraw = box.map { box -> OverdrawEstimate in
            var section = box.largestFaceArea, kind = OverdrawEstimate.CrossSection.largestBoxFace
            if !(section > 0) {
                kind = .medianFootprint
                let median = areas.isEmpty ? 0 : percentile(areas.sorted(), 0.5)
                section = median.isFinite ? median : 0
            }
            return OverdrawEstimate(ratio: section > 0 ? total / section : (total > 0 ? .infinity : 0), footprintArea: total,
                                    splatCount: areas.count, crossSectionArea: section, crossSection: kind)
        }
        return SceneStatistics(
            splatCount: n, shDegree: scene.shDegree, effectiveSHDegree: effective,
            positionX: s[0], positionY: s[1], positionZ: s[2], logScaleX: s[3], logScaleY: s[4], logScaleZ: s[5],
            rotationW: s[6], rotationX: s[7], rotationY: s[8], rotationZ: s[9], opacity: s[10],
            dcR: s[11], dcG: s[12], dcB: s[13], shBands: bands,
            opacityPercentiles: opacity, scalePercentiles: scale, robustBox: box, overdraw: overdraw,
            fileBytes: fileBytes, decodedBytes: n * SplatScene.bytesPerSplat(degree: scene.shDegree),
            compressionRatio: fileBytes.map { Double(n * SplatScene.bytesPerSplat(degree: scene.shDegree)) / Double($0) })
    }
}
