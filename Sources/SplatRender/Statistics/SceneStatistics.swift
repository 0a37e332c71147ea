import Foundation
import SplatCore

/// What is in a decoded scene (`info --stats`): per-attribute value statistics, the effective
/// SH degree, opacity and scale percentiles, the robust box, an overdraw estimate, and sizes.
///
/// Values are the scene's stored ones, in its current frame. The `alpha` column already holds
/// opacity (`formats.md` 0.1: decoders apply the sigmoid to a PLY logit, so ±∞ logits arrive
/// as 0 and 1); `opacity` describes it as stored, and no logit is reconstructed.
///
/// Computed in one streaming SIMD pass over the columns and one counting pass over the
/// columns the percentiles need (`SampledSelection`), split with `Parallel` into fixed chunks
/// whose partials are merged in chunk order: the result is identical for any thread count.
public struct SceneStatistics: Sendable, Equatable {
    public var splatCount: Int
    /// The degree the file declares (coefficients stored per splat).
    public var shDegree: Int
    /// The highest SH band with any coefficient not exactly zero (NaN and ±∞ count as non-zero),
    /// 0 when every rest coefficient is zero: files that declare SH3 but carry only DC colour
    /// report 0. At most `shDegree`.
    public var effectiveSHDegree: Int

    public var positionX: AttributeStatistics
    public var positionY: AttributeStatistics
    public var positionZ: AttributeStatistics
    /// Natural logs of the per-axis standard deviations, as stored (−∞ for a 2DGS flat axis).
    public var logScaleX: AttributeStatistics
    public var logScaleY: AttributeStatistics
    public var logScaleZ: AttributeStatistics
    public var rotationW: AttributeStatistics
    public var rotationX: AttributeStatistics
    public var rotationY: AttributeStatistics
    public var rotationZ: AttributeStatistics
    /// The alpha column: opacity in [0, 1].
    public var opacity: AttributeStatistics
    /// Band-0 SH coefficients per channel (not colours: rgb = 0.5 + 0.2820948·dc).
    public var dcR: AttributeStatistics
    public var dcG: AttributeStatistics
    public var dcB: AttributeStatistics
    /// One entry per stored SH band, `shBands[b − 1]` for band b: all 2b + 1 coefficients of
    /// all three channels of every splat pooled.
    public var shBands: [AttributeStatistics]

    /// Percentiles of the finite opacities; nil when there are none.
    public var opacityPercentiles: Percentiles?
    /// Percentiles of each splat's largest linear scale, exp(max log-scale), in scene units: the
    /// 1-σ radius of its widest axis, directly comparable with the robust box (a linear size
    /// reads as a length; exp is monotone, so the order statistics are those of the log-scales
    /// and only the interpolation between neighbours happens in the linear domain). Splats
    /// with a NaN log-scale or an infinite largest one are left out. nil when none remain.
    public var scalePercentiles: Percentiles?
    /// nil when no splat has a finite centre.
    public var robustBox: RobustBox?
    /// nil when there is no robust box.
    public var overdraw: OverdrawEstimate?

    /// Size of the file the scene came from, when the caller knows it.
    public var fileBytes: Int?
    /// `SplatScene.decodedBytes`: the decoded model's size (`formats.md` 0.1), without padding.
    public var decodedBytes: Int
    /// decodedBytes / fileBytes (above 1: the file is smaller than the model); nil without a
    /// positive file size.
    public var compressionRatio: Double?

    /// Every attribute in report order, with a snake_case key fit for JSON object names.
    public var namedAttributes: [(key: String, statistics: AttributeStatistics)] {
        [("position_x", positionX), ("position_y", positionY), ("position_z", positionZ),
         ("log_scale_x", logScaleX), ("log_scale_y", logScaleY), ("log_scale_z", logScaleZ),
         ("rotation_w", rotationW), ("rotation_x", rotationX), ("rotation_y", rotationY), ("rotation_z", rotationZ),
         ("opacity", opacity), ("dc_r", dcR), ("dc_g", dcG), ("dc_b", dcB)]
            + shBands.enumerated().map { ("sh_band_\($0.offset + 1)", $0.element) }
    }

    /// Splats per chunk of the streaming pass: a multiple of 16 (whole SH vector groups), and
    /// long enough per column (64 KiB) that the hardware prefetcher is ahead of the loads
    /// most of the time (at 4,096 the column kernels waited on memory).
    static let chunkSize = 16_384

    /// Statistics of `scene`. `fileBytes` is the size of its file, for the compression ratio;
    /// `threads` nil uses every core (the result does not depend on it).
    public static func compute(_ scene: SplatScene, fileBytes: Int? = nil, threads: Int? = nil) -> SceneStatistics {
        let n = scene.count
        let columns: [SplatScene.Column] = [.x, .y, .z, .logScaleX, .logScaleY, .logScaleZ,
                                            .rotW, .rotX, .rotY, .rotZ, .alpha, .dcR, .dcG, .dcB]
        // The columns the footprint sum rereads (log-scales, alpha) go last, so they are still
        // in cache when it runs.
        let order: [Int] = [0, 1, 2, 6, 7, 8, 9, 11, 12, 13, 3, 4, 5, 10]
        let degree = scene.shDegree
        let perChunk = columns.count + degree
        let chunks = (n + chunkSize - 1) / chunkSize
        let partials = UnsafeMutableBufferPointer<ColumnMoments>.allocate(capacity: max(1, chunks * perChunk))
        partials.initialize(repeating: ColumnMoments())
        let footprints = UnsafeMutableBufferPointer<(area: Double, splats: Int)>.allocate(capacity: max(1, chunks))
        footprints.initialize(repeating: (0, 0))
        defer {
            partials.deallocate()
            footprints.deallocate()
        }
        let base = columns.map { UnsafePointer(scene.columnBase($0)) }
        let sh = UnsafePointer(scene.sh.baseAddress ?? scene.columnBase(.x))
        let alpha = base[10], lx = base[3], ly = base[4], lz = base[5]
        Parallel.forEachChunk(count: n, chunkSize: chunkSize, threads: threads) { c, range in
            let out = partials.baseAddress! + c * perChunk
            for k in order { out[k] = MomentsKernel.column(base[k], range) }
            footprints[c] = FootprintKernel.sum(alpha: alpha, logScaleX: lx, logScaleY: ly, logScaleZ: lz, range)
            let bands = MomentsKernel.shBands(sh, floatsPerSplat: scene.shFloatsPerSplat, degree: degree, range)
            for b in 0..<degree { out[columns.count + b] = bands[b] }
        }
        var merged = [ColumnMoments](repeating: ColumnMoments(), count: perChunk)
        var footprintArea = 0.0, footprintSplats = 0
        for c in 0..<chunks {
            for k in 0..<perChunk { merged[k].merge(partials[c * perChunk + k]) }
            footprintArea += footprints[c].area
            footprintSplats += footprints[c].splats
        }
        let a = merged.map(AttributeStatistics.init)
        let shBands = Array(a[columns.count...])

        // Opacity, largest log-scale and the opaque centres share one counting pass.
        let boxFractions = [RobustBox.lowerFraction, RobustBox.upperFraction]
        let identity: (Float) -> Double = { Double($0) }
        let opaqueCentres = CentreKeys(x: base[0], y: base[1], z: base[2], alpha: alpha, minimumOpacity: RobustBox.minimumOpacity)
        let ranked = percentiles(SplatKeys(alpha: alpha, logScaleX: lx, logScaleY: ly, logScaleZ: lz, centres: opaqueCentres),
                                 count: n, threads: threads,
                                 fractions: [Percentiles.fractions, Percentiles.fractions, boxFractions, boxFractions, boxFractions],
                                 transforms: [identity, { Foundation.exp(Double($0)) }, identity, identity, identity])
        let opacityPercentiles = ranked[0].values, scalePercentiles = ranked[1].values
        var box = robustBox(ranked[2...], opaqueOnly: true)
        if box == nil && n > 0 {
            let centres = CentreKeys(x: base[0], y: base[1], z: base[2], alpha: alpha, minimumOpacity: nil)
            box = robustBox(percentiles(centres, count: n, threads: threads, fractions: Array(repeating: boxFractions, count: 3),
                                        transforms: Array(repeating: identity, count: 3))[...], opaqueOnly: false)
        }
        let overdraw = box.map { box -> OverdrawEstimate in
            var crossSection = box.largestFaceArea, kind = OverdrawEstimate.CrossSection.largestBoxFace
            if !(crossSection > 0) {
                kind = .medianFootprint
                let median = percentiles(FootprintKeys(alpha: alpha, x: lx, y: ly, z: lz), count: n, threads: threads,
                                         fractions: [[0.5]], transforms: [{ FootprintKernel.area(logArea: $0) }])[0].values
                crossSection = median.map { $0[0] }.flatMap { $0.isFinite ? $0 : nil } ?? 0
            }
            let ratio = crossSection > 0 ? footprintArea / crossSection : (footprintArea > 0 ? .infinity : 0)
            return OverdrawEstimate(ratio: ratio, footprintArea: footprintArea, splatCount: footprintSplats,
                                    crossSectionArea: crossSection, crossSection: kind)
        }
        let decoded = scene.decodedBytes
        return SceneStatistics(
            splatCount: n, shDegree: degree,
            effectiveSHDegree: shBands.lastIndex(where: \.hasNonZero).map { $0 + 1 } ?? 0,
            positionX: a[0], positionY: a[1], positionZ: a[2], logScaleX: a[3], logScaleY: a[4], logScaleZ: a[5],
            rotationW: a[6], rotationX: a[7], rotationY: a[8], rotationZ: a[9], opacity: a[10],
            dcR: a[11], dcG: a[12], dcB: a[13], shBands: shBands,
            opacityPercentiles: opacityPercentiles.map { Percentiles(p1: $0[0], p50: $0[1], p99: $0[2]) },
            scalePercentiles: scalePercentiles.map { Percentiles(p1: $0[0], p50: $0[1], p99: $0[2]) },
            robustBox: box, overdraw: overdraw, fileBytes: fileBytes, decodedBytes: decoded,
            compressionRatio: fileBytes.flatMap { $0 > 0 ? Double(decoded) / Double($0) : nil })
    }

    /// Per quantity of `source`: how many values take part, and their type-7 percentiles at
    /// `fractions[q]`, each value mapped through `transforms[q]` (monotone non-decreasing) before
    /// interpolating; nil values when none takes part.
    static func percentiles<Source: OrderKeySource>(_ source: Source, count: Int, threads: Int?, fractions: [[Double]],
                                                    transforms: [(Float) -> Double]) -> [(valid: Int, values: [Double]?)] {
        SampledSelection.select(source, count: count, threads: threads, fractions: fractions).enumerated().map { q, s in
            guard s.valid > 0 else { return (0, nil) }
            return (s.valid, fractions[q].map { f in
                Percentiles.interpolate(fraction: f, count: s.valid) { transforms[q](s.values[$0]!) }
            })
        }
    }

    /// The `RobustBox` from the x, y, z centre percentiles; nil when no centre took part.
    private static func robustBox(_ axes: ArraySlice<(valid: Int, values: [Double]?)>, opaqueOnly: Bool) -> RobustBox? {
        let bounds = axes.compactMap(\.values)
        guard bounds.count == 3 else { return nil }
        return RobustBox(lower: SIMD3(bounds[0][0], bounds[1][0], bounds[2][0]),
                         upper: SIMD3(bounds[0][1], bounds[1][1], bounds[2][1]),
                         splatCount: axes.first!.valid, opaqueOnly: opaqueOnly)
    }
}
