import CZstd
import SplatCore

/// One SPZ v4 stream through libzstd: exact-size decompression and compression.
///
/// Decompression writes into a buffer of exactly the size the TOC promised, so a lying frame
/// cannot write more, and frames declaring another content size are refused before inflating.
/// The output buffer is the window (one-shot, or streaming with a stable output buffer), so
/// memory is bounded by that buffer whatever window a frame declares, and frames with large
/// windows — legal, e.g. from `--long` — decode as the reference decodes them.
///
/// Under a job's token the input is fed in `pieceBytes` slices with a check of the token after
/// each: one call for a 150 MB SH stream ran 130–300 ms past a deadline. With the output stable,
/// libzstd keeps no window copy of its own, so the pieces cost no extra copy.
enum ZstdCodec {
    /// Sum of the content sizes the frames of `src` declare; nil when a frame does not declare
    /// one (legal zstd: the size is then checked after decompressing). Throws `corrupt` on a
    /// malformed frame header.
    static func declaredContentSize(_ src: UnsafeRawBufferPointer, stream: String, file: String?) throws(SplatError) -> Int? {
        guard let base = src.baseAddress, !src.isEmpty else {
            throw SplatError(.corrupt, "stream \(stream) is empty", file: file, field: stream)
        }
        var offset = 0
        var total = 0
        var known = true
        while offset < src.count {
            let rest = src.count - offset
            let frameSize = ZSTD_findFrameCompressedSize(base + offset, rest)
            if ZSTD_isError(frameSize) != 0 {
                throw SplatError(.corrupt, "zstd error in stream \(stream): \(errorName(frameSize))", file: file, field: stream)
            }
            let content = ZSTD_getFrameContentSize(base + offset, rest)
            if content == ZSTD_CONTENTSIZE_ERROR {
                throw SplatError(.corrupt, "zstd error in stream \(stream): bad frame header", file: file, field: stream)
            }
            if content == ZSTD_CONTENTSIZE_UNKNOWN {
                known = false
            } else if known {
                guard let c = CheckedSize.int(UInt64(content)), let sum = CheckedSize.add(total, c) else {
                    throw SplatError(.corrupt, "stream \(stream): frame content sizes overflow", file: file, field: stream)
                }
                total = sum
            }
            offset += frameSize
        }
        return known ? total : nil
    }

    /// `ZSTD_WINDOWLOG_MAX_64`, which zstd.h declares only for static linking.
    private static let largestWindowLog: Int32 = 31

    /// Compressed bytes fed per call when a token is checked between calls (about 2–4 MB of SH
    /// output, a few milliseconds).
    static let pieceBytes = 1 << 20

    /// Decompresses `src` (one or more concatenated frames) into `dst`, which must be filled
    /// exactly. Throws `corrupt` for a zstd error, a declared content size other than
    /// `dst.count`, or output of a different size; with `cancellation` (the job's token: the
    /// caller passes it, since the workers that inflate streams have none bound), the token's
    /// error once it is cancelled, checked after every `pieceBytes` of input. With `progress`,
    /// the input is fed in pieces too, and after each the count of leading bytes of `dst` that
    /// hold their final values is passed to it (another thread may then read them).
    static func decompress(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawBufferPointer,
                           stream: String, file: String?, limits: DecodeLimits,
                           cancellation: CancellationToken?, progress: ((Int) -> Void)? = nil) throws(SplatError) {
        try checkDeclaredSize(src, expected: dst.count, stream: stream, file: file)
        guard let dctx = ZSTD_createDCtx() else {
            throw SplatError(.corrupt, "cannot create a zstd context", file: file, field: stream)
        }
        defer { ZSTD_freeDCtx(dctx) }
        guard cancellation != nil || progress != nil else {
            _ = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, Int32(limits.maxZstdWindowLog))
            let written = ZSTD_decompressDCtx(dctx, dst.baseAddress, dst.count, src.baseAddress, src.count)
            if ZSTD_isError(written) != 0 {
                throw SplatError(.corrupt, "zstd error in stream \(stream): \(errorName(written))", file: file, field: stream)
            }
            guard written == dst.count else {
                throw SplatError(.corrupt, "stream \(stream) inflated to \(written) bytes, expected \(dst.count)", file: file, field: stream)
            }
            return
        }
        var consumed = 0
        try inflateInPieces(into: dst, dctx: dctx, stream: stream, file: file, cancellation: cancellation,
                            progress: progress) { () -> ZSTD_inBuffer? in
            guard consumed < src.count else { return nil }
            let piece = ZSTD_inBuffer(src: src.baseAddress! + consumed, size: min(pieceBytes, src.count - consumed), pos: 0)
            consumed += piece.size
            return piece
        }
    }

    /// `decompress` for a stream that is still in its file: bytes [offset, offset + count) of
    /// `file` are read in `pieceBytes` slices into one small buffer as zstd takes them, so the
    /// file is never held whole (and never copied into fresh memory of its size). The first
    /// frame's declared size is checked before inflating; the rest, as in memory, by the exact
    /// output buffer: zstd cannot write past it, and it must come out full. A file that shrinks
    /// meanwhile is `truncated`.
    static func decompress(from file: RegularFile, offset: Int, count: Int, into dst: UnsafeMutableRawBufferPointer,
                           stream: String, cancellation: CancellationToken?, progress: ((Int) -> Void)? = nil) throws(SplatError) {
        let name = file.path
        guard count > 0 else { throw SplatError(.corrupt, "stream \(stream) is empty", file: name, field: stream) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: min(count, pieceBytes), alignment: 64)
        defer { buffer.deallocate() }
        var read = 0
        func next() throws(SplatError) -> ZSTD_inBuffer? {
            guard read < count else { return nil }
            let n = min(pieceBytes, count - read)
            try file.read(into: buffer, count: n, at: offset + read)
            read += n
            return ZSTD_inBuffer(src: buffer, size: n, pos: 0)
        }
        let first = try next()!
        let declared = ZSTD_getFrameContentSize(buffer, first.size)
        if declared == ZSTD_CONTENTSIZE_ERROR {
            throw SplatError(.corrupt, "zstd error in stream \(stream): bad frame header", file: name, field: stream)
        }
        if declared != ZSTD_CONTENTSIZE_UNKNOWN, declared > UInt64(dst.count) {
            throw SplatError(.corrupt, "stream \(stream): zstd frames declare \(declared) bytes, expected \(dst.count)",
                             file: name, field: stream)
        }
        guard let dctx = ZSTD_createDCtx() else {
            throw SplatError(.corrupt, "cannot create a zstd context", file: name, field: stream)
        }
        defer { ZSTD_freeDCtx(dctx) }
        var pending: ZSTD_inBuffer? = first
        try inflateInPieces(into: dst, dctx: dctx, stream: stream, file: name, cancellation: cancellation,
                            progress: progress) { () throws(SplatError) -> ZSTD_inBuffer? in
            if let piece = pending {
                pending = nil
                return piece
            }
            return try next()
        }
    }

    /// The streaming form of `decompress`, fed piece by piece by `nextPiece` (nil: the input has
    /// ended), with the output buffer stable across calls (`ZSTD_d_stableOutBuffer`, which zstd.h
    /// lists as `ZSTD_d_experimentalParam2`): zstd then matches against `dst` itself and allocates
    /// no window, so the window limit that guards its own buffer is lifted to what the one-shot
    /// call accepts. After each piece's call: `progress`, then the token.
    private static func inflateInPieces(into dst: UnsafeMutableRawBufferPointer, dctx: OpaquePointer, stream: String,
                                        file: String?, cancellation: CancellationToken?, progress: ((Int) -> Void)?,
                                        nextPiece: () throws(SplatError) -> ZSTD_inBuffer?) throws(SplatError) {
        _ = ZSTD_DCtx_setParameter(dctx, ZSTD_d_experimentalParam2, 1)
        _ = ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, Self.largestWindowLog)
        var output = ZSTD_outBuffer(dst: dst.baseAddress, size: dst.count, pos: 0)
        var input = try nextPiece() ?? ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        var ended = false
        // Until every piece is taken and the last frame is flushed (zstd's hint is then 0).
        while true {
            let before = (input.pos, output.pos)
            let hint = ZSTD_decompressStream(dctx, &output, &input)
            if ZSTD_isError(hint) != 0 {
                throw SplatError(.corrupt, "zstd error in stream \(stream): \(errorName(hint))", file: file, field: stream)
            }
            let moved = (input.pos, output.pos) != before
            if input.pos == input.size, !ended {
                if let piece = try nextPiece() { input = piece } else { ended = true }
            }
            // No byte taken and none made: the input ended inside a frame, or the output is full
            // while input remains.
            if !moved {
                throw SplatError(.corrupt, ended ? "stream \(stream) ends inside a zstd frame"
                                     : "stream \(stream) inflates to more than \(dst.count) bytes", file: file, field: stream)
            }
            // With a stable output buffer, zstd has written everything below `pos` for good.
            progress?(output.pos)
            try cancellation?.check("while inflating zstd stream \(stream)")
            if hint == 0, ended, input.pos == input.size { break }
        }
        guard output.pos == dst.count else {
            throw SplatError(.corrupt, "stream \(stream) inflated to \(output.pos) bytes, expected \(dst.count)", file: file, field: stream)
        }
    }

    /// Compresses `src` as one zstd frame with its content size recorded; nil if libzstd fails
    /// (out of memory).
    static func compress(_ src: UnsafeRawBufferPointer, level: Int32) -> [UInt8]? {
        let bound = ZSTD_compressBound(src.count)
        var out = [UInt8](repeating: 0, count: bound)
        let written = out.withUnsafeMutableBytes { dst -> Int? in
            guard let cctx = ZSTD_createCCtx() else { return nil }
            defer { ZSTD_freeCCtx(cctx) }
            _ = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level)
            _ = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)
            // An empty source still needs a valid pointer.
            var empty: UInt8 = 0
            let r = withUnsafePointer(to: &empty) { e in
                ZSTD_compress2(cctx, dst.baseAddress, dst.count, src.baseAddress ?? UnsafeRawPointer(e), src.count)
            }
            return ZSTD_isError(r) != 0 ? nil : r
        }
        guard let written else { return nil }
        out.removeSubrange(written...)
        return out
    }

    private static func checkDeclaredSize(_ src: UnsafeRawBufferPointer, expected: Int, stream: String, file: String?) throws(SplatError) {
        if let declared = try declaredContentSize(src, stream: stream, file: file), declared != expected {
            throw SplatError(.corrupt, "stream \(stream): zstd frames declare \(declared) bytes, expected \(expected)",
                             file: file, field: stream)
        }
    }

    static func errorName(_ code: Int) -> String {
        String(cString: ZSTD_getErrorName(code))
    }
}
