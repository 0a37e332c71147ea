import Foundation
import SplatCore
@testable import SplatFormats
import Synchronization
import Testing
import TestSupport

/// SPZ v4 hands its geometry to the caller while the SH stream still inflates
/// (`SPZDecoder.decode(geometryReady:)`), so the job core can estimate up on an idle core.
@Suite struct SPZGeometryReadyTests {
    /// What the hook saw: how often it ran and the geometry columns at that moment.
    final class Seen: @unchecked Sendable {
        let calls = Atomic<Int>(0)
        var columns: [[Float]] = []
        var declaredFrame: CoordinateSystem?
        var conventionalFrame: CoordinateSystem?
    }

    static let geometry: [SplatScene.Column] = [.x, .y, .z, .logScaleX, .logScaleY, .logScaleZ, .rotW, .rotX, .rotY, .rotZ,
                                                .alpha, .dcR, .dcG, .dcB]

    static func decode(_ path: String, sh: SHStorage) throws -> (DecodedScene, Seen) {
        let seen = Seen()
        let decoded = try SplatFile.decode(path: path, sh: sh) { scene in
            seen.calls.add(1, ordering: .relaxed)
            seen.columns = Self.geometry.map { Array(scene.column($0)) }
            (seen.declaredFrame, seen.conventionalFrame) = (scene.declaredFrame, scene.conventionalFrame)
        }
        return (decoded, seen)
    }

    @Test(arguments: [SHStorage.quantized, .float32])
    func v4HandsOverItsFinalGeometryOnce(_ sh: SHStorage) throws {
        for name in ["spz/biker.spz", "spz/reference/adobe-SanitySplats.v4.spz"] {
            let (decoded, seen) = try Self.decode(Fixtures.corpusFile(name), sh: sh)
            #expect(seen.calls.load(ordering: .relaxed) == 1, "\(name)")
            #expect(seen.columns == Self.geometry.map { Array(decoded.scene.column($0)) }, "\(name)")
            #expect(seen.declaredFrame == decoded.scene.declaredFrame && seen.conventionalFrame == .rub, "\(name)")
        }
        // A declared frame (the coordinate-system extension) is already set when the hook runs.
        let (declared, seen) = try Self.decode(Fixtures.vector("sh1-ext-v4.spz"), sh: sh)
        #expect(seen.calls.load(ordering: .relaxed) == 1)
        #expect(seen.declaredFrame == declared.scene.declaredFrame)
    }

    /// The legacy container inflates as one member: there is nothing to overlap, and other
    /// formats never call the hook either; callers then do the work after the decode.
    @Test func otherContainersAndFormatsNeverCallIt() throws {
        for name in ["spz/reference/biker.v3.spz", "ply/supersplat-fruit_drops_minimal.ply", "splat/luma-seal.splat"] {
            let (_, seen) = try Self.decode(Fixtures.corpusFile(name), sh: .quantized)
            #expect(seen.calls.load(ordering: .relaxed) == 0, "\(name)")
        }
    }
}
