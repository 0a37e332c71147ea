import Foundation
import SplatCore
import SplatFormats
@testable import SplatRender
import Testing
import TestSupport

/// `--padding` on renders: for each object scene of the corpus (`FramingCorpus`: which and why),
/// framed for an orbit at each elevation from −30° to 60°, no pixel more than half opaque lies
/// in the padding band at twelve azimuths around the orbit — and the framing is
/// tight: in some view the subject comes within a few pixels of the band.
@Suite struct FramingPaddingTests {
    static let size = 128
    static let elevations: [Double] = [-30, 20, 60]
    /// Every 30° from the default azimuth: the framing is fitted over 24 azimuths, so these are
    /// views it was fitted for and views between them (12 × 3 × 6 scenes keeps the debug-build
    /// test under a minute; `splat-bench margins` measures the 36-frame turntable).
    static let azimuths = (0..<12).map { AutoFramer.defaultAzimuthDegrees + 360 * Double($0) / 12 }

    @Test(arguments: FramingCorpus.objectScenes.map(\.file))
    func subjectStaysOutOfThePadding(_ file: String) throws {
        let scene = try SplatFile.decode(path: Fixtures.corpusFile(file)).scene
        FrameDecision.decide(for: scene).apply(to: scene)
        let renderer = Renderer(scene: scene)
        let padding = AutoFramer.defaultPadding
        // A pixel is in the padding when its centre is: x + ½ < padding · size.
        let band = Int((padding * Double(Self.size) - 0.5).rounded(.up))
        var tightest = Int.max
        for elevation in Self.elevations {
            let framing = AutoFramer.frame(scene, width: Self.size, height: Self.size, fovYDegrees: 50,
                                           elevationDegrees: elevation, padding: padding)
            for azimuth in Self.azimuths {
                let camera = framing.camera(azimuthDegrees: azimuth, elevationDegrees: elevation, fovYDegrees: 50)
                let image = try renderer.render(camera: camera, settings: RenderSettings(width: Self.size, height: Self.size)).image
                let margin = try #require(SubjectMargin.measure(image), "blank at azimuth \(azimuth), elevation \(elevation)")
                #expect(margin.minimum >= band, "azimuth \(azimuth), elevation \(elevation): \(margin)")
                tightest = min(tightest, margin.minimum)
            }
        }
        // Measured at 128²: 7 px for every scene but the fruit (10: its haze is fainter than ½
        // where the padded centres end).
        #expect(tightest <= band + 6, "closest approach \(tightest) px, band \(band) px")
    }
}
