import CCurl
import SplatCore

/// What one libcurl transfer reads and writes while it runs. libcurl's easy interface calls
/// back on the thread running `curl_easy_perform`, so the state is owned by that one call and
/// needs no lock; the callbacks reach it through an unretained pointer that the caller keeps
/// alive for the whole transfer.
final class TransferState {
    /// The response body (downloads), at most `cap` bytes.
    var body: [UInt8] = []
    let cap: Int
    /// True once the body passed the cap; the write callback then fails the transfer.
    var capExceeded = false
    /// Uploads: keep nothing beyond the cap and never fail for it.
    var discardsBody = false
    let upload: [UInt8]
    var uploadOffset = 0
    let cancellation: CancellationToken

    init(cap: Int, upload: [UInt8], cancellation: CancellationToken) {
        self.cap = cap
        self.upload = upload
        self.cancellation = cancellation
    }

    var opaque: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    static func from(_ pointer: UnsafeMutableRawPointer?) -> TransferState? {
        pointer.map { Unmanaged<TransferState>.fromOpaque($0).takeUnretainedValue() }
    }
}

/// The C callbacks libcurl calls with a `TransferState` as context.
enum TransferCallbacks {
    /// Appends response bytes; returning less than given makes curl stop with a write error.
    static let write: curl_write_callback = { buffer, size, count, context in
        guard let state = TransferState.from(context) else { return 0 }
        let (length, overflow) = size.multipliedReportingOverflow(by: count)
        guard !overflow else { return 0 }
        if state.discardsBody {
            let kept = max(0, min(length, state.cap - state.body.count))
            if kept > 0, let buffer { state.body.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: kept)) }
            return length
        }
        guard length <= state.cap - state.body.count else {
            state.capExceeded = true
            return 0
        }
        if length > 0, let buffer { state.body.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: length)) }
        return length
    }

    /// Hands the next slice of the upload to curl.
    static let read: curl_read_callback = { buffer, size, count, context in
        guard let state = TransferState.from(context), let buffer else { return Int(CURL_READFUNC_ABORT) }
        let room = size.multipliedReportingOverflow(by: count).overflow ? Int.max : size * count
        let length = min(room, state.upload.count - state.uploadOffset)
        guard length > 0 else { return 0 }
        state.upload.withUnsafeBytes { bytes in
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + state.uploadOffset, byteCount: length)
        }
        state.uploadOffset += length
        return length
    }

    /// Rewinds the upload when a redirect (307/308) or a retried connection sends it again.
    static let seek: curl_seek_callback = { context, offset, origin in
        guard let state = TransferState.from(context), origin == SEEK_SET, offset >= 0, offset <= state.upload.count else {
            return CURL_SEEKFUNC_CANTSEEK
        }
        state.uploadOffset = Int(offset)
        return CURL_SEEKFUNC_OK
    }

    /// Called at least once a second while the transfer runs: a cancelled token aborts it.
    static let progress: curl_xferinfo_callback = { context, _, _, _, _ in
        guard let state = TransferState.from(context) else { return 1 }
        return state.cancellation.isCancelled ? 1 : 0
    }
}

/// Loads libcurl and runs `curl_global_init`, once before the first transfer (Swift's lazy
/// statics are thread-safe), whichever thread gets there first.
enum CurlGlobal {
    static let status: CURLcode = splat_curl_global_init()

    static func ready() throws(SplatError) {
        guard status == CURLE_OK else {
            let loading = String(cString: splat_curl_load_error())
            throw SplatError(.io, loading.isEmpty ? "libcurl failed to initialise: \(String(cString: splat_curl_easy_strerror(status)))"
                                                  : loading)
        }
    }
}
