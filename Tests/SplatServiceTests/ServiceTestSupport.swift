import SplatCore
import Foundation
import SplatImage
import TestSupport

/// Scenes and measurements the service suites share.
enum ServiceFixtures {
    /// 4,721 splats, SH degree 3, stored RDF: a real scene that fills a good part of the auto view.
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    /// 152,746 splats, SH degree 0: the "normal file" a small ceiling refuses.
    static let biker = Fixtures.sampleScenes.appendingPathComponent("biker.spz").path

    /// Mean alpha of an RGBA image, 0…1.
    static func alphaCoverage(_ image: ImageBuffer) -> Double {
        guard image.channels == 4, image.width * image.height > 0 else { return 1 }
        var sum = 0
        for i in stride(from: 3, to: image.pixels.count, by: 4) { sum += Int(image.pixels[i]) }
        return Double(sum) / Double(255 * image.width * image.height)
    }

    /// The `width`×`height` block of `image` at (x, y).
    static func crop(_ image: ImageBuffer, x: Int, y: Int, width: Int, height: Int) -> ImageBuffer {
        let c = image.channels
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * c)
        for row in y..<(y + height) {
            let start = (row * image.width + x) * c
            pixels += image.pixels[start..<(start + width * c)]
        }
        return ImageBuffer(width: width, height: height, channels: c, pixels: pixels)
    }

    /// Every regular file under `folder`, relative paths, sorted.
    static func files(under folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var out: [String] = []
        while let next = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            FileManager.default.fileExists(atPath: folder.appendingPathComponent(next).path, isDirectory: &isDirectory)
            if !isDirectory.boolValue { out.append(next) }
        }
        return out.sorted()
    }

    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
