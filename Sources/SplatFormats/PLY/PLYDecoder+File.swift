import SplatCore

extension PLYDecoder {
    /// Bytes read from the start of a file for its header: one past the header limit, so that a
    /// header that runs past the limit is told apart from one that ends with the file, exactly as
    /// when the whole file is parsed.
    static func headerWindow(_ limits: DecodeLimits) -> Int {
        limits.maxPlyHeaderBytes >= Int.max - 1 ? Int.max : max(0, limits.maxPlyHeaderBytes) + 1
    }

    /// Reads the header (plain or compressed PLY) from the first bytes of an open file; the body
    /// is never read. Equal to `readHeader(_:file:limits:)` on the whole file.
    public static func readHeader(_ input: RegularFile, limits: DecodeLimits) throws(SplatError) -> SceneHeader {
        try input.readPrefix(headerWindow(limits)).withBytes { (prefix) throws(SplatError) in
            try readHeader(prefix, file: input.path, limits: limits)
        }
    }

    /// Decodes a binary PLY straight from an open file: the header from its first bytes, then the
    /// vertex rows read by every core in chunk-sized slices into a small buffer of its own and
    /// transposed from there into the scene. The file is never held whole, which saves writing
    /// every byte of it into fresh memory once (for the 843 MB stress scene, most of the time the
    /// in-memory decode spends beyond the transpose itself).
    ///
    /// Nil when the file must be read whole instead: an ASCII body, a compressed PLY, or list
    /// rows before the vertex element (they must be read to be skipped). Otherwise the result and
    /// the errors are those of `decode(_:file:limits:)` on the same bytes, except that a file that
    /// shrinks while it is read ends in `truncated` for the rows it no longer has.
    public static func decode(_ input: RegularFile, limits: DecodeLimits) throws(SplatError) -> DecodedScene? {
        let file = input.path
        let header = try input.readPrefix(headerWindow(limits)).withBytes { (prefix) throws(SplatError) in
            try PLYHeader.parse(prefix, file: file, limits: limits)
        }
        guard !header.isCompressed, header.format != .ascii else { return nil }
        let layout = try PLYGaussianLayout(header, file: file)
        let (kept, info) = try admit(header, layout, file: file, limits: limits)
        // The header facts say whether the file can be read in slices (the memory estimate reads
        // the same answer); the offset is then known without reading the body.
        guard info.fileSliceBytes != nil,
              let offset = try PLYBodyReader.binaryElementOffset(header, target: layout.vertexIndex, byteCount: input.size,
                                                                 bytes: nil, file: file) else { return nil }
        let (scene, rows) = try decodeBinary(header, layout, kept: kept, rows: .file(input, offset: offset))
        return try finish(scene, zeros: rows.zeros, provenFinite: rows.provenFinite, layout: layout, info: info)
    }
}
