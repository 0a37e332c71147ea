import Foundation
import Testing
import SplatCore
import SplatFormats
import SplatService
import TestSupport

/// The estimate's scene term is the form the job renders from: SPZ keeps its SH as 8-bit codes
/// (3 bytes a coefficient of the file's degree beside the 56-byte degree-0 columns), every other
/// format Float32 SH of the kept degree.
@Suite struct MemoryEstimateSceneTests {
    static func sceneBytes(_ path: String, limits: DecodeLimits = DecodeLimits()) throws -> Int {
        var load = LoadOptions()
        load.limits = limits
        let job = SceneJob(input: .path(path), load: load, image: .file("/tmp/unused.png"))
        let header = try SplatFile.readHeader(path: path, limits: limits)
        return MemoryEstimate.of(job, header: header, inputBytes: 0).sceneBytes
    }

    @Test func spzCountsItsCodesAndPLYItsFloats() throws {
        let dir = try Fixtures.temporaryDirectory("estimate-scene")
        defer { try? FileManager.default.removeItem(at: dir) }
        let ply = Fixtures.corpusFile("ply/supersplat-fruit_drops_minimal.ply")
        let fruit = try SplatFile.decode(path: ply).scene
        let spz = dir.appendingPathComponent("fruit.spz").path
        try Data(try SPZEncoder.encode(fruit)).write(to: URL(fileURLWithPath: spz))

        #expect(try Self.sceneBytes(ply) == 4721 * 236)
        #expect(try Self.sceneBytes(spz) == 4721 * (56 + 45) + QuantizedSH.tailPadding)
        // Bands dropped by the limits are still held as the file's bytes (only evaluated less).
        #expect(try Self.sceneBytes(spz, limits: DecodeLimits(maxShDegree: 1)) == 4721 * (56 + 45) + QuantizedSH.tailPadding)
        #expect(try Self.sceneBytes(spz, limits: DecodeLimits(maxShDegree: 0)) == 4721 * 56)
        // And the decoded render form is that size.
        let coded = try SplatFile.decode(path: spz, sh: .quantized).scene
        #expect(coded.decodedBytes + (coded.quantizedSH?.byteCount ?? 0) == 4721 * (56 + 45) + QuantizedSH.tailPadding)
    }
}
