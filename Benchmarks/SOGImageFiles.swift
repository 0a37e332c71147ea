import CDeflate
import Foundation
import SplatFormats

/// The WebP images of a SOG scene, found once before timing so the libwebp baseline spends its
/// time where the decoder does: mapping the input and decoding pixels. A bundled `.sog` is a zip
/// whose entries are usually stored; deflated entries are inflated inside the timed region, as
/// the decoder has to.
struct SOGImageFiles {
    private enum Layout {
        /// Image files beside `meta.json`.
        case directory([String])
        /// Zip entries of one archive: data offset, stored size, inflated size, method (0 or 8).
        case bundle(path: String, entries: [(offset: Int, size: Int, inflated: Int, method: Int)])
    }

    private let layout: Layout
    let imageCount: Int

    init(path: String) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BenchmarkError("\(path): missing")
        }
        if isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".webp") }.sorted()
            layout = .directory(names.map { (path as NSString).appendingPathComponent($0) })
            imageCount = names.count
        } else {
            let input = try InputBytes(path: path)
            let entries = try Self.zipEntries(input.bytes, file: path).filter { $0.name.hasSuffix(".webp") }
            layout = .bundle(path: path, entries: entries.map { ($0.offset, $0.size, $0.inflated, $0.method) })
            imageCount = entries.count
        }
        guard imageCount > 0 else { throw BenchmarkError("\(path): no WebP images") }
    }

    /// Maps the input, inflates what is deflated, and decodes every image with bare libwebp.
    func decodeWithLibwebp() throws -> [AnyObject] {
        switch layout {
        case .directory(let files):
            let inputs = try files.map { try InputBytes(path: $0) }
            return try RawBaselines.webpImages(inputs.map(\.bytes), file: files[0]) + inputs
        case .bundle(let path, let entries):
            let input = try InputBytes(path: path)
            var images: [UnsafeRawBufferPointer] = []
            var kept: [AnyObject] = [input]
            for entry in entries {
                guard entry.offset + entry.size <= input.bytes.count else { throw BenchmarkError("\(path): entry out of bounds") }
                let stored = UnsafeRawBufferPointer(rebasing: input.bytes[entry.offset..<entry.offset + entry.size])
                if entry.method == 0 {
                    images.append(stored)
                    continue
                }
                let out = FreshBuffer(entry.inflated, hugePages: false)
                guard let d = libdeflate_alloc_decompressor() else { throw BenchmarkError("libdeflate: no decompressor") }
                defer { libdeflate_free_decompressor(d) }
                guard libdeflate_deflate_decompress(d, stored.baseAddress, stored.count, out.base, entry.inflated, nil)
                        == LIBDEFLATE_SUCCESS else { throw BenchmarkError("\(path): cannot inflate an entry") }
                images.append(UnsafeRawBufferPointer(start: out.base, count: entry.inflated))
                kept.append(out)
            }
            return try RawBaselines.webpImages(images, file: path) + kept
        }
    }

    /// Entries from the central directory (no ZIP64, no encryption: what SOG writers produce).
    private static func zipEntries(_ bytes: UnsafeRawBufferPointer, file: String)
        throws -> [(name: String, offset: Int, size: Int, inflated: Int, method: Int)] {
        func u16(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt16.self).littleEndian) }
        func u32(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) }
        guard bytes.count >= 22 else { throw BenchmarkError("\(file): not a zip") }
        var end = bytes.count - 22
        while end >= max(0, bytes.count - 22 - 65535), u32(end) != 0x0605_4B50 { end -= 1 }
        guard end >= 0, u32(end) == 0x0605_4B50 else { throw BenchmarkError("\(file): no zip directory") }
        var at = u32(end + 16)
        var entries: [(String, Int, Int, Int, Int)] = []
        for _ in 0..<u16(end + 10) {
            guard at + 46 <= bytes.count, u32(at) == 0x0201_4B50 else { throw BenchmarkError("\(file): bad zip directory") }
            let method = u16(at + 10), size = u32(at + 20), inflated = u32(at + 24)
            let nameLength = u16(at + 28), extra = u16(at + 30), comment = u16(at + 32), local = u32(at + 42)
            guard at + 46 + nameLength <= bytes.count, local + 30 <= bytes.count, method == 0 || method == 8 else {
                throw BenchmarkError("\(file): unsupported zip entry")
            }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[at + 46..<at + 46 + nameLength]), as: UTF8.self)
            let data = local + 30 + u16(local + 26) + u16(local + 28)
            entries.append((name, data, size, inflated, method))
            at += 46 + nameLength + extra + comment
        }
        return entries
    }
}
