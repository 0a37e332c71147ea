import CDeflate
import CWebP
import CZstd
import Foundation
import SplatCore

/// The physical floors the decoders are judged against: the bare library calls on the same
/// bytes, with none of our parsing, validation or dequantization. Each returns what it wrote so
/// the stopwatch frees it outside the timed region, as it does a decoded scene.
enum RawBaselines {
    /// Inflates every zstd stream of an SPZ v4 file into its own exact-size fresh buffer,
    /// concurrently and largest first — the decoder's own inflate schedule.
    static func zstdStreams(_ bytes: UnsafeRawBufferPointer, file: String) throws -> [FreshBuffer] {
        let streams = try SPZv4Streams(bytes, file: file)
        let order = streams.ranges.indices.sorted { streams.ranges[$0].decoded > streams.ranges[$1].decoded }
        let outputs = order.map { FreshBuffer(streams.ranges[$0].decoded) }
        let failures = Failures()
        Parallel.forEach(iterations: order.count) { task in
            let (range, size) = streams.ranges[order[task]]
            let n = ZSTD_decompress(outputs[task].base, size, bytes.baseAddress! + range.lowerBound, range.count)
            if ZSTD_isError(n) != 0 || n != size { failures.add("zstd stream \(order[task])") }
        }
        try failures.check(file)
        return outputs
    }

    /// Inflates the whole gzip member of an SPZ v3 (or older) file with one libdeflate call into
    /// a fresh buffer of the trailer's size; gzip cannot be split across threads.
    static func libdeflateGzip(_ bytes: UnsafeRawBufferPointer, file: String) throws -> FreshBuffer {
        let n = bytes.count
        guard n >= 18 else { throw BenchmarkError("\(file): too short for gzip") }
        let size = Int(bytes[n - 4]) | Int(bytes[n - 3]) << 8 | Int(bytes[n - 2]) << 16 | Int(bytes[n - 1]) << 24
        let out = FreshBuffer(size)
        guard let d = libdeflate_alloc_decompressor() else { throw BenchmarkError("libdeflate: no decompressor") }
        defer { libdeflate_free_decompressor(d) }
        guard libdeflate_gzip_decompress(d, bytes.baseAddress, n, out.base, size, nil) == LIBDEFLATE_SUCCESS else {
            throw BenchmarkError("\(file): raw libdeflate failed")
        }
        return out
    }

    /// Decodes WebP images to RGBA with libwebp, concurrently and largest first, each into a
    /// fresh buffer — what the SOG decoder does before it assembles splats.
    static func webpImages(_ images: [UnsafeRawBufferPointer], file: String) throws -> [FreshBuffer] {
        var sizes: [(width: Int, height: Int)] = []
        for image in images {
            var w: Int32 = 0, h: Int32 = 0
            guard WebPGetInfo(image.baseAddress?.assumingMemoryBound(to: UInt8.self), image.count, &w, &h) != 0 else {
                throw BenchmarkError("\(file): libwebp cannot read an image header")
            }
            sizes.append((Int(w), Int(h)))
        }
        let order = images.indices.sorted { sizes[$0].width * sizes[$0].height > sizes[$1].width * sizes[$1].height }
        let outputs = order.map { FreshBuffer(sizes[$0].width * sizes[$0].height * 4) }
        let failures = Failures()
        Parallel.forEach(iterations: order.count) { task in
            let i = order[task], image = images[i], (w, h) = sizes[i]
            let out = WebPDecodeRGBAInto(image.baseAddress!.assumingMemoryBound(to: UInt8.self), image.count,
                                         outputs[task].base.assumingMemoryBound(to: UInt8.self), w * h * 4, Int32(w * 4))
            if out == nil { failures.add("webp image \(i)") }
        }
        try failures.check(file)
        return outputs
    }

    /// Compresses `bytes` with libdeflate's zlib format at `level`, one thread: the entropy-coding
    /// floor of a PNG encode of the same pixels (libpng adds row filters and uses zlib).
    static func deflate(_ bytes: [UInt8], level: Int32) throws -> FreshBuffer {
        guard let c = libdeflate_alloc_compressor(level) else { throw BenchmarkError("libdeflate: no compressor") }
        defer { libdeflate_free_compressor(c) }
        let bound = libdeflate_zlib_compress_bound(c, bytes.count)
        let out = FreshBuffer(bound, hugePages: false)
        let written = bytes.withUnsafeBytes { libdeflate_zlib_compress(c, $0.baseAddress, $0.count, out.base, bound) }
        guard written > 0 else { throw BenchmarkError("libdeflate: compression failed") }
        return out
    }

    /// Copies `source` into `destination` on all cores in 4 MiB chunks (a decoder's output is
    /// written by every core, so its floor is too).
    /// Reads the file at `path` into `destination` with `pread` in 1 MiB slices on all cores,
    /// each slice at its own offset: the file read once into fresh memory, the floor of a decoder
    /// that reads its input without mapping it and writes a scene about the file's size.
    static func parallelRead(_ path: String, into destination: FreshBuffer) throws {
        let file = try RegularFile(path: path, maxBytes: Int.max)
        let count = min(file.size, destination.size)
        try Parallel.forEachChunkOnWorkers(count: count, chunkSize: 1 << 20) { (_, _, range) throws(SplatError) in
            try file.read(into: destination.base + range.lowerBound, count: range.count, at: range.lowerBound)
        }
    }

    static func parallelCopy(_ source: UnsafeRawBufferPointer, into destination: FreshBuffer) {
        let count = min(source.count, destination.size)
        guard count > 0, let from = source.baseAddress else { return }
        Parallel.forEachChunk(count: count, chunkSize: 4 << 20) { _, range in
            memcpy(destination.base + range.lowerBound, from + range.lowerBound, range.count)
        }
    }
}

/// The stream table of an SPZ v4 file (`formats.md` SPZ v4): where each zstd stream lies and
/// how large it inflates. Checked against the file size so a bad file fails the harness
/// instead of crashing it.
struct SPZv4Streams {
    var ranges: [(compressed: Range<Int>, decoded: Int)] = []

    init(_ bytes: UnsafeRawBufferPointer, file: String) throws {
        guard bytes.count >= 32, bytes[0] == 0x4E, bytes[1] == 0x47 else { throw BenchmarkError("\(file): not SPZ v4") }
        func u32(_ at: Int) -> Int { Int(bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) }
        func u64(_ at: Int) -> Int { Int(truncatingIfNeeded: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self).littleEndian) }
        let count = Int(bytes[15]), toc = u32(16)
        guard toc >= 32, toc + 16 * count <= bytes.count else { throw BenchmarkError("\(file): bad stream table") }
        var offset = toc + 16 * count
        for i in 0..<count {
            let c = u64(toc + 16 * i), u = u64(toc + 16 * i + 8)
            guard c >= 0, u >= 0, c <= bytes.count - offset else { throw BenchmarkError("\(file): stream \(i) out of bounds") }
            ranges.append((offset..<offset + c, u))
            offset += c
        }
    }
}

/// Failures reported from worker threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var messages: [String] = []

    func add(_ message: String) { lock.lock(); messages.append(message); lock.unlock() }

    func check(_ file: String) throws {
        lock.lock(); defer { lock.unlock() }
        if !messages.isEmpty { throw BenchmarkError("\(file): " + messages.joined(separator: ", ") + " failed") }
    }
}

/// A failure of the harness itself (a missing file, a decode error): the run exits non-zero.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
