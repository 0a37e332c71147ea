import Foundation
import Testing
import SplatCore
@testable import SplatImage

@Suite("ImageComparison")
struct ImageComparisonTests {
    /// A deterministic 16×8 RGB gradient with values spread over 0…255.
    static func gradient(channels: Int = 3) -> ImageBuffer {
        let w = 16, h = 8
        var pixels: [UInt8] = []
        for y in 0..<h { for x in 0..<w { for c in 0..<channels { pixels.append(UInt8((x * 17 + y * 31 + c * 50) % 256)) } } }
        return ImageBuffer(width: w, height: h, channels: channels, pixels: pixels)
    }

    @Test func identicalImagesHaveInfinitePSNR() {
        let a = Self.gradient()
        let r = ImageComparison.compare(a, a)
        #expect(r.psnr == .infinity)
        #expect(r.fractionWithinOne == 1)
        #expect(r.maxAbsDifference == 0)
        #expect(r.meanSignedDifference == 0)
        #expect(r.channelCount == 16 * 8 * 3)
        #expect(r.meetsGoldenThresholds)
    }

    @Test func oneChannelOffByOneGivesTheFormulaValue() {
        let b = Self.gradient()
        var a = b
        let index = 5 * 3 + 1 // pixel 5, green = 85+50: neither 0 nor 255
        #expect(b.pixels[index] != 0 && b.pixels[index] != 255)
        a.pixels[index] &+= 1
        let r = ImageComparison.compare(a, b)
        let n = Double(16 * 8 * 3)
        #expect(abs(r.psnr - 10 * log10(255.0 * 255.0 * n)) < 1e-9)
        #expect(abs(r.psnr - 73.9741) < 1e-4) // 10·log10(65025·384)
        #expect(r.fractionWithinOne == 1)
        #expect(r.maxAbsDifference == 1)
        let unsaturated = b.pixels.filter { $0 != 0 && $0 != 255 }.count
        #expect(r.meanSignedChannelCount == unsaturated)
        #expect(abs(r.meanSignedDifference - 1.0 / Double(unsaturated)) < 1e-12)
        #expect(r.meetsGoldenThresholds)
    }

    @Test func meanSignedDifferenceSkipsSaturatedGoldenValuesAndIsAMinusB() {
        let b = ImageBuffer(width: 2, height: 1, channels: 3, pixels: [0, 255, 100, 10, 20, 30])
        let a = ImageBuffer(width: 2, height: 1, channels: 3, pixels: [9, 200, 99, 9, 19, 29])
        let r = ImageComparison.compare(a, b)
        // Counted: 100, 10, 20, 30 → a − b = −1 each.
        #expect(r.meanSignedChannelCount == 4)
        #expect(r.meanSignedDifference == -1)
        #expect(r.maxAbsDifference == 55)
        #expect(r.fractionWithinOne == 4.0 / 6.0)
        #expect(!r.meetsGoldenThresholds)
    }

    @Test func biasAloneFailsTheThresholds() {
        // Every unsaturated value one level dark: PSNR 48 dB and all within 1, but the bias shows.
        let b = Self.gradient()
        var a = b
        for i in a.pixels.indices where b.pixels[i] != 0 && b.pixels[i] != 255 { a.pixels[i] -= 1 }
        let r = ImageComparison.compare(a, b)
        #expect(r.psnr > 45)
        #expect(r.fractionWithinOne == 1)
        #expect(r.meanSignedDifference == -1)
        #expect(!r.meetsGoldenThresholds)
    }

    @Test func shapeMismatchIsReportedNotTrapped() {
        let r = ImageComparison.compare(Self.gradient(channels: 3), Self.gradient(channels: 4))
        #expect(!r.sameShape)
        #expect(!r.meetsGoldenThresholds)
        let s = ImageComparison.compare(Self.gradient(), ImageBuffer(width: 8, height: 16, channels: 3))
        #expect(!s.sameShape)
    }
}
