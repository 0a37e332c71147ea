import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// A v4 file's small streams (positions, alphas, colours, scales, rotations) — and a legacy
/// file's whole payload — inflate into one of two places: inside the scene's own SH floats
/// (every band kept as Float32), or a buffer of their own, from the allocator when small (SH
/// kept as codes, or bands dropped). Every way gives the same geometry, value for value.
@Suite struct SPZStreamBufferTests {
    static func decode(_ path: String, sh: SHStorage, maxShDegree: Int? = nil) throws -> DecodedScene {
        let input = try InputBytes(path: path)
        return try SPZDecoder.decode(input.bytes, file: path, limits: DecodeLimits(maxShDegree: maxShDegree), sh: sh)
    }

    @Test func everyBufferGivesTheSameGeometry() throws {
        var compared = 0
        for path in SPZFileStreamingTests.files + Self.legacyFiles {
            let name = (path as NSString).lastPathComponent
            guard let inPlace = try? Self.decode(path, sh: .float32), inPlace.scene.count > 0 else { continue }
            let codes = try Self.decode(path, sh: .quantized)
            let dropped = try Self.decode(path, sh: .float32, maxShDegree: max(0, inPlace.scene.shDegree - 1))
            for other in [codes, dropped] {
                try #require(other.scene.count == inPlace.scene.count, "\(name)")
                for column in SplatScene.Column.allCases {
                    #expect(memcmp(inPlace.scene.columnBase(column), other.scene.columnBase(column), 4 * inPlace.scene.count) == 0,
                            "\(name): \(column)")
                }
            }
            if inPlace.scene.shDegree > 0 { compared += 1 }
        }
        // Files with SH among the corpus, its reference re-encodings and the vectors.
        #expect(compared >= 8, "\(compared) files with SH compared")
    }

    /// Every gzip (v1–v3) SPZ among the vectors and the corpus.
    static let legacyFiles: [String] = {
        let folders = [Fixtures.vectors.path, Fixtures.corpus.appendingPathComponent("spz").path,
                       Fixtures.corpus.appendingPathComponent("spz/reference").path]
        return folders.flatMap { folder in
            ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
                .filter { $0.hasSuffix(".spz") }
                .map { (folder as NSString).appendingPathComponent($0) }
                .filter { FileHandle(forReadingAtPath: $0)?.readData(ofLength: 2).elementsEqual([0x1F, 0x8B]) ?? false }
        }
    }()
}
