import CDeflate
import CZlib
import SplatCore

/// Inflates the gzip member of a legacy SPZ file (`formats.md` 2.2) in the order the spec asks:
/// first only the 16 header bytes (zlib, streaming), then — after the caller has checked the
/// declared sizes — the whole member into a buffer sized from the gzip trailer (libdeflate, about
/// twice zlib's speed). Only the first member is read; bytes after it are ignored.
enum GzipInflater {
    /// The most a legacy payload may carry after its attribute blocks (extension records or
    /// trailing bytes) is max(1 MiB, P), where P is the size of the blocks.
    static func outputCap(payloadSize: Int, limits: DecodeLimits) -> Int {
        let slack = max(1 << 20, payloadSize)
        let cap = CheckedSize.add(payloadSize, slack) ?? Int.max
        return min(cap, limits.maxDecodedBytes)
    }

    /// Inflates only the first `count` bytes of the member.
    static func peek(_ bytes: UnsafeRawBufferPointer, count: Int, file: String?) throws(SplatError) -> [UInt8] {
        try checkMagic(bytes, file: file)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, count))
        defer { out.deallocate() }
        var produced = 0
        var stream = z_stream()
        guard czlib_inflate_init2(&stream, 16 + 15) == Z_OK else {
            throw SplatError(.corrupt, "cannot initialise zlib", file: file)
        }
        defer { inflateEnd(&stream) }
        let input = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var fed = 0
        var ended = false
        while produced < count {
            if stream.avail_in == 0 && fed < bytes.count {
                let piece = min(bytes.count - fed, 1 << 30)
                stream.next_in = UnsafeMutablePointer(mutating: input + fed)
                stream.avail_in = UInt32(piece)
                fed += piece
            }
            stream.next_out = out + produced
            stream.avail_out = UInt32(count - produced)
            let before = stream.avail_out
            let status = inflate(&stream, Z_NO_FLUSH)
            produced += Int(before - stream.avail_out)
            if status == Z_STREAM_END { ended = true; break }
            if status == Z_OK { continue }
            if status == Z_BUF_ERROR && stream.avail_in == 0 && fed == bytes.count {
                throw SplatError(.truncated, "gzip stream ended early (no end-of-stream marker)", file: file, offset: bytes.count)
            }
            throw zlibError(status, stream: stream, file: file)
        }
        if produced < count {
            throw SplatError(.truncated, ended ? "gzip payload shorter than the \(count)-byte header"
                                               : "gzip stream ended early (no end-of-stream marker)", file: file)
        }
        return Array(UnsafeBufferPointer(start: out, count: count))
    }

    /// Inflates the whole first member into a buffer of at least `minimumSize` bytes and at most
    /// `outputCap(payloadSize: minimumSize)`. Returns the buffer and the inflated size.
    /// Fewer than `minimumSize` bytes or a missing end-of-stream → `truncated`; deflate, CRC-32
    /// or ISIZE errors → `corrupt`; more than the cap → `too_large`.
    static func inflateMember(_ bytes: UnsafeRawBufferPointer, minimumSize: Int, limits: DecodeLimits,
                              file: String?) throws(SplatError) -> (buffer: PageBuffer, count: Int) {
        try checkMagic(bytes, file: file)
        let cap = outputCap(payloadSize: minimumSize, limits: limits)
        // libdeflate inflates in one call that cannot stop; under a deadline zlib streams in
        // pieces with a check between them (slower, but the deadline holds).
        if let deadlined = CancellationToken.current, deadlined.deadline != nil {
            return try inflateWithZlib(bytes, minimumSize: minimumSize, cap: cap, file: file, cancellation: deadlined)
        }
        // The trailer's ISIZE is the inflated size mod 2^32 when nothing follows the member.
        // When it is plausible, libdeflate inflates straight into a buffer of that size; any
        // failure there is re-run through zlib, which tells truncation from corruption.
        if let isize = trailerSize(bytes) {
            if isize >= minimumSize && isize <= cap {
                let buffer = try PageBuffer.forExactSize(isize, file: file)
                if let produced = inflateWithLibdeflate(bytes, into: buffer), produced >= minimumSize {
                    return (buffer, produced)
                }
            }
        }
        return try inflateWithZlib(bytes, minimumSize: minimumSize, cap: cap, file: file, cancellation: nil)
    }

    /// The inflated size the gzip trailer states (ISIZE, mod 2³²); nil for a file too short to
    /// have one. Only a hint: bytes after the member make it meaningless.
    static func trailerSize(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= 18 else { return nil }
        let end = bytes.count
        return Int(bytes[end - 4]) | Int(bytes[end - 3]) << 8 | Int(bytes[end - 2]) << 16 | Int(bytes[end - 1]) << 24
    }

    /// Inflates the first member into `target` with libdeflate; true only when it succeeds (CRC
    /// and ISIZE checked) and fills `target` exactly. On false the caller inflates again with
    /// `inflateMember(_:minimumSize:limits:file:)`, which classifies the failure.
    static func inflateMember(_ bytes: UnsafeRawBufferPointer, exactlyInto target: UnsafeMutableRawBufferPointer) -> Bool {
        guard bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B,
              let decompressor = libdeflate_alloc_decompressor() else { return false }
        defer { libdeflate_free_decompressor(decompressor) }
        var consumed = 0
        var produced = 0
        let result = libdeflate_gzip_decompress_ex(decompressor, bytes.baseAddress, bytes.count,
                                                   target.baseAddress, target.count, &consumed, &produced)
        return result == LIBDEFLATE_SUCCESS && produced == target.count
    }

    /// libdeflate over the whole member; nil on any failure (including a buffer that turns out
    /// too small because ISIZE wrapped or bytes follow the member).
    private static func inflateWithLibdeflate(_ bytes: UnsafeRawBufferPointer, into buffer: PageBuffer) -> Int? {
        guard let decompressor = libdeflate_alloc_decompressor() else { return nil }
        defer { libdeflate_free_decompressor(decompressor) }
        var consumed = 0
        var produced = 0
        let result = libdeflate_gzip_decompress_ex(decompressor, bytes.baseAddress, bytes.count,
                                                   buffer.base, buffer.capacity, &consumed, &produced)
        return result == LIBDEFLATE_SUCCESS ? produced : nil
    }

    /// zlib streaming into a reserved buffer of `cap` bytes: only the pages written cost memory.
    /// With a `cancellation` token, output comes in 8 MiB pieces with a check after each.
    private static func inflateWithZlib(_ bytes: UnsafeRawBufferPointer, minimumSize: Int, cap: Int, file: String?,
                                        cancellation: CancellationToken?) throws(SplatError) -> (buffer: PageBuffer, count: Int) {
        let buffer = try PageBuffer(capacity: cap, file: file)
        var stream = z_stream()
        guard czlib_inflate_init2(&stream, 16 + 15) == Z_OK else {
            throw SplatError(.corrupt, "cannot initialise zlib", file: file)
        }
        defer { inflateEnd(&stream) }
        let input = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let output = buffer.base.assumingMemoryBound(to: UInt8.self)
        var fed = 0
        var produced = 0
        while true {
            if stream.avail_in == 0 && fed < bytes.count {
                let piece = min(bytes.count - fed, 1 << 30)
                stream.next_in = UnsafeMutablePointer(mutating: input + fed)
                stream.avail_in = UInt32(piece)
                fed += piece
            }
            if produced == cap {
                // Output is full; one more byte would pass the cap. Probe with a scratch byte.
                var probe: UInt8 = 0
                let status = withUnsafeMutablePointer(to: &probe) { p -> Int32 in
                    stream.next_out = p
                    stream.avail_out = 1
                    return inflate(&stream, Z_NO_FLUSH)
                }
                if stream.avail_out == 0 {
                    throw SplatError(.tooLarge, "gzip stream inflates past \(cap) bytes (the limit for this payload)", file: file)
                }
                if status == Z_STREAM_END { break }
                if status == Z_OK { continue }
                if status == Z_BUF_ERROR && stream.avail_in == 0 && fed == bytes.count {
                    throw SplatError(.truncated, "gzip stream ended early (no end-of-stream marker)", file: file, offset: bytes.count)
                }
                throw zlibError(status, stream: stream, file: file)
            }
            if let cancellation { try cancellation.check("while inflating the gzip payload") }
            let room = min(cap - produced, cancellation == nil ? 1 << 30 : 8 << 20)
            stream.next_out = output + produced
            stream.avail_out = UInt32(room)
            let status = inflate(&stream, Z_NO_FLUSH)
            produced += room - Int(stream.avail_out)
            if status == Z_STREAM_END { break }
            if status == Z_OK { continue }
            if status == Z_BUF_ERROR && stream.avail_in == 0 && fed == bytes.count {
                throw SplatError(.truncated, "gzip stream ended early (no end-of-stream marker)", file: file, offset: bytes.count)
            }
            if status == Z_BUF_ERROR && stream.avail_out == 0 { continue }
            throw zlibError(status, stream: stream, file: file)
        }
        if produced < minimumSize {
            throw SplatError(.truncated, "legacy payload \(produced) bytes, expected \(minimumSize)", file: file)
        }
        return (buffer, produced)
    }

    private static func checkMagic(_ bytes: UnsafeRawBufferPointer, file: String?) throws(SplatError) {
        guard bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B else {
            throw SplatError(.badMagic, "not a gzip stream", file: file, offset: 0)
        }
    }

    private static func zlibError(_ status: Int32, stream: z_stream, file: String?) -> SplatError {
        let detail = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
        if status == Z_MEM_ERROR {
            return SplatError(.tooLarge, "zlib ran out of memory", file: file)
        }
        // Z_DATA_ERROR covers bad deflate data and the trailer checks ("incorrect data check" for
        // CRC-32, "incorrect length check" for ISIZE).
        return SplatError(.corrupt, "gzip: \(detail)", file: file, offset: Int(stream.total_in))
    }
}
