import Foundation
import SplatCore

/// Pixel-level agreement between a rendered image and a golden one (`rendering.md` section 12).
public enum ImageComparison {
    /// Statistics over all channel values of two images of the same size and channel count.
    public struct Report: Sendable, Equatable, CustomStringConvertible {
        /// False when the images differ in width, height or channel count; every other field is
        /// then at its worst value and the golden thresholds are not met.
        public var sameShape: Bool
        /// Number of channel values compared (width × height × channels).
        public var channelCount: Int
        /// 10·log10(255² / MSE) over all channel values, in dB; +infinity when the images are equal.
        public var psnr: Double
        /// Fraction (0…1) of channel values whose absolute difference is at most 1 level.
        public var fractionWithinOne: Double
        /// Largest absolute difference of any channel value, in levels.
        public var maxAbsDifference: Int
        /// Mean of (a − b) over the channel values where b is neither 0 nor 255 (0 when there are none).
        /// b is the golden: saturated golden values hide a biased quantisation, so they are left out.
        public var meanSignedDifference: Double
        /// How many channel values entered `meanSignedDifference`.
        public var meanSignedChannelCount: Int

        /// PSNR ≥ 45 dB, ≥ 99.5 % of channel values within 1 level and |mean signed difference| ≤ 0.25.
        public var meetsGoldenThresholds: Bool {
            sameShape
                && psnr >= ImageComparison.minimumPSNR
                && fractionWithinOne >= ImageComparison.minimumFractionWithinOne
                && abs(meanSignedDifference) <= ImageComparison.maximumMeanSignedDifference
        }

        public var description: String {
            guard sameShape else { return "images differ in size or channel count" }
            let psnrText = psnr.isInfinite ? "inf" : String(format: "%.2f", psnr)
            return "PSNR \(psnrText) dB, \(String(format: "%.4f", fractionWithinOne * 100))% within 1 level, "
                + "max |diff| \(maxAbsDifference), mean signed \(String(format: "%+.4f", meanSignedDifference))"
        }
    }

    public static let minimumPSNR = 45.0
    public static let minimumFractionWithinOne = 0.995
    public static let maximumMeanSignedDifference = 0.25

    /// Compares `a` (e.g. a render) with `b` (the golden). Images of different shape give a
    /// report with `sameShape == false` rather than an error, so callers can print it as a failure.
    public static func compare(_ a: ImageBuffer, _ b: ImageBuffer) -> Report {
        guard a.width == b.width, a.height == b.height, a.channels == b.channels, a.pixels.count == b.pixels.count else {
            return Report(sameShape: false, channelCount: 0, psnr: 0, fractionWithinOne: 0, maxAbsDifference: 255,
                          meanSignedDifference: .infinity, meanSignedChannelCount: 0)
        }
        let count = a.pixels.count
        var sumSquares = 0
        var withinOne = 0
        var maxAbs = 0
        var signedSum = 0
        var signedCount = 0
        a.pixels.withUnsafeBufferPointer { pa in
            b.pixels.withUnsafeBufferPointer { pb in
                for i in 0..<count {
                    let bv = Int(pb[i])
                    let d = Int(pa[i]) - bv
                    let m = abs(d)
                    sumSquares += d * d
                    if m <= 1 { withinOne += 1 }
                    if m > maxAbs { maxAbs = m }
                    if bv != 0 && bv != 255 {
                        signedSum += d
                        signedCount += 1
                    }
                }
            }
        }
        let psnr: Double
        if sumSquares == 0 {
            psnr = .infinity
        } else {
            let mse = Double(sumSquares) / Double(count)
            psnr = 10 * log10(255.0 * 255.0 / mse)
        }
        return Report(sameShape: true, channelCount: count, psnr: psnr,
                      fractionWithinOne: count == 0 ? 1 : Double(withinOne) / Double(count),
                      maxAbsDifference: maxAbs,
                      meanSignedDifference: signedCount == 0 ? 0 : Double(signedSum) / Double(signedCount),
                      meanSignedChannelCount: signedCount)
    }
}
