import SplatCore

/// A scene's header read from the first bytes of an input that is still arriving (an HTTP
/// upload), so a scene over a limit can be refused, and its job's memory reserved, before the
/// rest is received. Only formats whose header sits at the start answer early: PLY and
/// compressed PLY (once `end_header` is in), SPZ (v4 through its TOC, legacy through the first
/// inflated bytes) and `.splat` (its size is its header). SOG, glTF and `.ksplat` are read whole.
///
/// A header read early equals the one `SplatFile.readHeader` gives for the whole input. Errors
/// are thrown only when the prefix alone proves the input bad (no known signature); any other
/// failure on a prefix answers `.whole`, so the full read decides, with its own error.
public enum PrefixHeaderReader {
    public enum Outcome: Sendable {
        /// The header, as the whole input would give it.
        case header(SceneHeader)
        /// Not enough bytes yet; ask again with more.
        case more
        /// No header before the input is complete (the format, or what the prefix showed).
        case whole
    }

    /// Bytes of an input at least looked at before the format is sniffed (the sniffer's window),
    /// unless the whole input is shorter.
    public static let sniffBytes = FormatSniffer.windowBytes
    /// Past this many bytes without a header, stop trying (headers of every format here are far
    /// shorter; `end_header` of a PLY must come within `DecodeLimits.maxPlyHeaderBytes`).
    public static let giveUpBytes = 1 << 20

    /// Reads the header of an input of `totalBytes` (nil: unknown, e.g. a chunked upload) whose
    /// first `prefix.count` bytes have arrived. `name` labels errors; `format` skips detection.
    public static func read(prefix: UnsafeRawBufferPointer, totalBytes: Int?, name: String,
                            format: SplatFormat?, limits: DecodeLimits) throws(SplatError) -> Outcome {
        let complete = totalBytes.map { prefix.count >= $0 } ?? false
        if complete { return .whole }
        // A `.splat` has no signature to wait for: its size is its header.
        if format == .splat { return splatHeader(totalBytes: totalBytes, name: name, limits: limits) }
        guard prefix.count >= min(sniffBytes, totalBytes ?? sniffBytes) else { return .more }
        let detected: SplatFormat
        if let format {
            detected = format
        } else {
            detected = try FormatSniffer.detect(prefix: UnsafeRawBufferPointer(rebasing: prefix.prefix(sniffBytes)), name: name).format
        }
        guard prefix.count <= giveUpBytes else { return .whole }
        switch detected {
        case .ply, .compressedPLY:
            guard containsEndHeader(prefix) else { return .more }
            return attempt { () throws(SplatError) in try PLYDecoder.readHeader(prefix, file: name, limits: limits) }
        case .spz:
            guard let totalBytes else { return .whole }
            return attempt { () throws(SplatError) in
                try SPZDecoder.readHeader(prefix: prefix, fileSize: totalBytes, file: name, limits: limits)
            }
        case .splat:
            return splatHeader(totalBytes: totalBytes, name: name, limits: limits)
        case .sog, .gltf, .ksplat:
            return .whole
        }
    }

    private static func splatHeader(totalBytes: Int?, name: String, limits: DecodeLimits) -> Outcome {
        guard let totalBytes else { return .whole }
        return attempt { () throws(SplatError) in try DotSplatDecoder.readHeader(fileSize: totalBytes, file: name, limits: limits) }
    }

    /// The header, `.more` when the prefix was too short for it, `.whole` on any other failure.
    private static func attempt(_ body: () throws(SplatError) -> SceneHeader) -> Outcome {
        do throws(SplatError) {
            return .header(try body())
        } catch {
            return error.kind == .truncated ? .more : .whole
        }
    }

    /// Whether `end_header` and its line end are in `bytes`.
    private static func containsEndHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let marker = Array("end_header".utf8)
        guard bytes.count > marker.count else { return false }
        var i = 0
        while i + marker.count < bytes.count {
            if bytes[i] == marker[0], (0..<marker.count).allSatisfy({ bytes[i + $0] == marker[$0] }) {
                let next = bytes[i + marker.count]
                if next == 0x0A || next == 0x0D { return true }
            }
            i += 1
        }
        return false
    }
}
