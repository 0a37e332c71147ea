import Foundation
import Testing
import SplatImage
import SplatService
import TestSupport

/// The README's library example, kept compiling and true: a `SceneJob` run in memory gives the
/// PNG the command line would write.
@Suite struct ReadmeExampleTests {
    @Test func sceneJobInMemoryGivesThePNG() throws {
        let scene = Fixtures.sampleScenes.appendingPathComponent("biker.spz").path
        var job = SceneJob(input: .path(scene), image: .caller, timeoutSeconds: 60)
        job.view.settings.width = 256
        job.view.settings.height = 256
        let outcome = job.run()
        #expect(outcome.report.error == nil, "\(String(describing: outcome.report.error))")
        let png = try #require(outcome.imageBytes)
        let decoded = try PNGReader.read(bytes: png)
        #expect(decoded.width == 256 && decoded.height == 256)
        let line = try JSONSerialization.jsonObject(with: Data(outcome.report.jsonLine.utf8)) as? [String: Any]
        #expect(line?["status"] as? String == "ok")
        #expect(line?["count"] as? Int == 152_746)
    }
}
