import SplatCore

/// The bytes of a glTF's `buffers` (`formats-gltf.md` 11.4), each loaded once and only when an
/// accessor that is decoded needs it: the GLB BIN chunk, a base64 data URI (bounded before it
/// is decoded), or a relative file confined to the glTF's folder (`GLTFBufferURI`).
final class GLTFBuffers {
    private let declarations: [JSONValue]
    private let bin: UnsafeRawBufferPointer?
    private let isGLB: Bool
    private let folder: String?
    private let fields: GLTFFields
    private let limits: DecodeLimits
    /// Loaded buffers and what keeps their bytes alive (nil: the caller's GLB bytes). Pointers
    /// handed out stay valid while this object lives.
    private var loaded: [Int: (bytes: UnsafeRawBufferPointer, owner: AnyObject?)] = [:]
    private(set) var warnings: [String] = []

    var count: Int { declarations.count }

    init(_ declarations: [JSONValue], bin: UnsafeRawBufferPointer?, isGLB: Bool, folder: String?,
         fields: GLTFFields, limits: DecodeLimits) {
        self.declarations = declarations
        self.bin = bin
        self.isGLB = isGLB
        self.folder = folder
        self.fields = fields
        self.limits = limits
    }

    /// `buffers[i].byteLength`, validated (≥ 1) and checked against the decoded-size ceiling.
    func byteLength(_ i: Int) throws(SplatError) -> Int {
        let buffer = try fields.object(declarations[i], "buffers[\(i)]")
        let length = try fields.integer(buffer["byteLength"], "buffers[\(i)].byteLength", minimum: 1)
        guard length <= limits.maxDecodedBytes else {
            throw SplatError(.tooLarge, "buffers[\(i)] is \(length) bytes; the limit is \(limits.maxDecodedBytes)", file: fields.file, field: "buffers[\(i)].byteLength")
        }
        return length
    }

    /// The first `byteLength` bytes of buffer `i`, loading it on first use; valid while `self` lives.
    func bytes(_ i: Int) throws(SplatError) -> UnsafeRawBufferPointer {
        if let cached = loaded[i] { return cached.bytes }
        let length = try byteLength(i)
        let buffer = try fields.object(declarations[i], "buffers[\(i)]")
        let data: (bytes: UnsafeRawBufferPointer, owner: AnyObject?)
        switch buffer["uri"] {
        case nil:
            data = try binChunk(i, length: length)
        case .string(let uri) where !uri.isEmpty:
            if uri.utf8.count >= 5, uri.utf8.prefix(5).map({ $0 | 0x20 }) == Array("data:".utf8) {
                data = try dataURI(uri, index: i)
            } else {
                let path = try GLTFBufferURI.resolve(uri, folder: folder, field: "buffers[\(i)].uri", file: fields.file)
                data = try file(path, index: i, length: length)
            }
        default:
            throw fields.failure("buffers[\(i)].uri", "must be a non-empty string")
        }
        guard data.bytes.count >= length else {
            throw SplatError(.truncated, "buffers[\(i)] resolves to \(data.bytes.count) bytes, byteLength is \(length)", file: fields.file, field: "buffers[\(i)]")
        }
        let exact = UnsafeRawBufferPointer(rebasing: data.bytes[0..<length])
        loaded[i] = (exact, data.owner)
        return exact
    }

    private func binChunk(_ i: Int, length: Int) throws(SplatError) -> (bytes: UnsafeRawBufferPointer, owner: AnyObject?) {
        guard isGLB, i == 0 else {
            throw fields.failure("buffers[\(i)]", "has no uri and is not the GLB-stored buffer")
        }
        guard let bin else {
            throw SplatError(.truncated, "buffers[0] is the GLB BIN chunk, which is missing", file: fields.file, field: "buffers[0]")
        }
        if bin.count > length + 3 {
            warnings.append("BIN chunk is \(bin.count - length) bytes longer than buffers[0].byteLength")
        }
        // The GLB's bytes outlive the decode (the caller holds them).
        return (bin, nil)
    }

    /// `data:[<mediatype>][;base64],<data>`; only base64 is allowed for buffers.
    private func dataURI(_ uri: String, index i: Int) throws(SplatError) -> (bytes: UnsafeRawBufferPointer, owner: AnyObject?) {
        let field = "buffers[\(i)].uri"
        var text = uri
        // The payload is read in place: a data URI may be tens of megabytes.
        let result = text.withUTF8 { (utf8) -> Result<(bytes: UnsafeRawBufferPointer, owner: AnyObject?), SplatError> in
            let raw = UnsafeRawBufferPointer(utf8)
            guard let comma = raw[5...].firstIndex(of: UInt8(ascii: ",")) else {
                return .failure(fields.failure(field, "is a data URI without a comma"))
            }
            let parameters = String(decoding: raw[5..<comma], as: UTF8.self).split(separator: ";", omittingEmptySubsequences: false)
            guard parameters.dropFirst().contains(where: { $0.trimmingWhitespace().lowercased() == "base64" }) else {
                return .failure(SplatError(.unsupported, "\(field) is a data URI that is not base64", file: fields.file, field: field))
            }
            let media = parameters.first.map { String($0.trimmingWhitespace().lowercased()) } ?? ""
            if media != "application/octet-stream", media != "application/gltf-buffer" {
                warnings.append("\(field): data URI media type \"\(media)\"")
            }
            let payload = UnsafeRawBufferPointer(rebasing: raw[(comma + 1)...])
            do throws(SplatError) {
                try limits.checkIntermediate(bytes: payload.count / 4 * 3, what: "\(field) (decoded data URI)", file: fields.file)
            } catch {
                return .failure(error)
            }
            guard let decoded = Base64.decode(payload) else {
                return .failure(SplatError(.corrupt, "\(field) is not valid base64", file: fields.file, field: field))
            }
            return .success(decoded)
        }
        return try result.get()
    }

    private func file(_ path: String, index i: Int, length: Int) throws(SplatError) -> (bytes: UnsafeRawBufferPointer, owner: AnyObject?) {
        let input: InputBytes
        do throws(SplatError) {
            input = try InputBytes(path: path)
        } catch {
            throw SplatError(.truncated, "buffers[\(i)] file \(path) cannot be read: \(error.message)", file: fields.file, field: "buffers[\(i)].uri")
        }
        return (input.bytes, input)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingWhitespace() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
