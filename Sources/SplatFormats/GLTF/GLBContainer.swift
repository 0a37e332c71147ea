import SplatCore

/// The binary glTF container (`formats-gltf.md` 11.2): a 12-byte header, then chunks; the first
/// is the JSON, the first BIN chunk after it is the GLB-stored buffer. Other chunks are skipped
/// with a warning (the core lets extensions add chunk types).
struct GLBContainer {
    static let magic: UInt32 = 0x4654_6C67
    static let jsonChunk: UInt32 = 0x4E4F_534A
    static let binChunk: UInt32 = 0x004E_4942
    /// Ignored chunks named one by one in the warnings; the rest are counted.
    static let reportedChunks = 8

    /// The JSON chunk's bytes (padding included; the document strips it).
    let json: UnsafeRawBufferPointer
    /// The first BIN chunk, if any.
    let bin: UnsafeRawBufferPointer?
    var warnings: [String] = []

    /// Parses the header and the chunk table in the spec's order of checks; nothing is copied.
    init(_ bytes: UnsafeRawBufferPointer, file: String?, limits: DecodeLimits) throws(SplatError) {
        guard bytes.count >= 12 else {
            throw SplatError(.truncated, "GLB is \(bytes.count) bytes, shorter than its 12-byte header", file: file)
        }
        func u32(_ at: Int) -> UInt32 { bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian }
        guard u32(0) == Self.magic else { throw SplatError(.badMagic, "GLB magic is not \"glTF\"", file: file, offset: 0) }
        let version = u32(4)
        guard version == 2 else {
            throw SplatError(.unsupportedVersion, "GLB container version \(version) is not supported (only 2)", file: file, offset: 4, field: "version")
        }
        let length = Int(u32(8))
        guard length <= bytes.count else {
            throw SplatError(.truncated, "GLB header length \(length) is more than the file's \(bytes.count) bytes", file: file, offset: 8, field: "length")
        }
        if length < bytes.count { warnings.append("\(bytes.count - length) bytes after the GLB length ignored") }
        if length % 4 != 0 { warnings.append("GLB length \(length) is not a multiple of 4") }
        // Only the first chunk and the first BIN chunk are kept: a file of empty chunks must not
        // cost memory per chunk.
        var json: UnsafeRawBufferPointer?
        var bin: UnsafeRawBufferPointer?
        var ignored = 0
        var offset = 12
        while offset < length {
            guard length - offset >= 8 else {
                throw SplatError(.truncated, "chunk header at \(offset) runs past the GLB length \(length)", file: file, offset: offset)
            }
            let chunkLength = Int(u32(offset)), type = u32(offset + 4)
            guard chunkLength <= length - offset - 8 else {
                throw SplatError(.truncated, "chunk at \(offset) declares \(chunkLength) bytes, \(length - offset - 8) left", file: file, offset: offset, field: "chunkLength")
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<(offset + 8 + chunkLength)])
            if chunkLength % 4 != 0, ignored < Self.reportedChunks { warnings.append("chunk at \(offset) has length \(chunkLength), not a multiple of 4") }
            if json == nil {
                guard type == Self.jsonChunk else {
                    throw SplatError(.badHeader, "the first GLB chunk is not JSON (type 0x\(String(type, radix: 16)))", file: file, offset: 12)
                }
                json = body
            } else if type == Self.binChunk, bin == nil {
                bin = body
            } else {
                ignored += 1
                if ignored <= Self.reportedChunks {
                    let what = type == Self.binChunk ? "second BIN chunk" : type == Self.jsonChunk ? "second JSON chunk" : "unknown chunk type 0x\(String(type, radix: 16))"
                    warnings.append("\(what) at \(offset) ignored")
                }
            }
            offset += 8 + chunkLength
        }
        if ignored > Self.reportedChunks { warnings.append("\(ignored - Self.reportedChunks) more chunks ignored") }
        guard let json else { throw SplatError(.truncated, "GLB has no JSON chunk", file: file, offset: 12) }
        guard json.count <= limits.maxMetaJsonBytes else {
            throw SplatError(.tooLarge, "GLB JSON chunk is \(json.count) bytes; the limit is \(limits.maxMetaJsonBytes)", file: file, offset: 12)
        }
        self.json = json
        self.bin = bin
    }
}
