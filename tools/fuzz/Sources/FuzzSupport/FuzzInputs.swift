/// How each fuzz entry turns the fuzzer's bytes into a file. Modes that wrap a plain payload in
/// a correct container are chosen by the first bytes, so seeds of both kinds live in one corpus.
public enum FuzzInputs {
    /// Legacy SPZ: a gzip file as it is; anything else is an inflated payload, gzip-wrapped.
    public static func spzLegacy(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        if data.count >= 2, data[0] == 0x1F, data[1] == 0x8B { return Array(data) }
        return ContainerWrapping.gzipStored(Array(data))
    }

    /// SPZ v4: a file starting "NGSP" as it is. A file starting "NGSQ" is the plain form: header,
    /// extension bytes and a TOC whose compressedSize fields give the plain length of each stream,
    /// then the plain streams; each becomes a raw-block zstd frame and the TOC is rewritten to the
    /// frames' sizes (the uncompressedSize fields are kept, so they can still lie).
    public static func spzV4(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        var bytes = Array(data)
        guard bytes.count >= 32, bytes[0] == 0x4E, bytes[1] == 0x47, bytes[2] == 0x53, bytes[3] == 0x51 else { return bytes }
        bytes[3] = 0x50
        let streams = Int(bytes[15])
        guard let toc32 = data.readLE(UInt32.self, at: 16) else { return bytes }
        let toc = Int(toc32)
        let tocEnd = toc + 16 * streams
        guard toc >= 32, tocEnd <= bytes.count else { return bytes }
        var out = Array(bytes[0..<toc])
        var frames: [UInt8] = []
        var cursor = tocEnd
        for i in 0..<streams {
            let plain = data.readLE(UInt64.self, at: toc + 16 * i) ?? 0
            let n = Int(min(plain, UInt64(bytes.count - cursor)))
            let frame = ContainerWrapping.zstdRawFrame(bytes[cursor..<cursor + n])
            cursor += n
            out.appendLE(UInt64(frame.count))
            out.appendLE(data.readLE(UInt64.self, at: toc + 16 * i + 8) ?? 0)
            frames.append(contentsOf: frame)
        }
        out.append(contentsOf: frames)
        out.append(contentsOf: bytes[cursor...])  // leftovers stay as trailing bytes
        return out
    }

    /// The entry names a SOG meta.json normally uses, in the order `sogParts` assigns them.
    public static let sogImageNames = ["means_l.webp", "means_u.webp", "quats.webp", "scales.webp", "sh0.webp",
                                       "shN_centroids.webp", "shN_labels.webp"]

    /// SOG without the zip layer: `meta.json` bytes, one 0x00, then the images back to back
    /// (each starting at a "RIFF"), named in the order of `sogImageNames`. Returned as a stored
    /// zip so the decoder reads it through its ordinary bundle path.
    public static func sogParts(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        let bytes = Array(data)
        let split = bytes.firstIndex(of: 0) ?? bytes.count
        var entries: [(name: String, data: [UInt8])] = [("meta.json", Array(bytes[0..<split]))]
        if split < bytes.count {
            let rest = bytes[(split + 1)...]
            var starts: [Int] = []
            var i = rest.startIndex
            while i + 4 <= rest.endIndex {
                if rest[i] == 0x52, rest[i + 1] == 0x49, rest[i + 2] == 0x46, rest[i + 3] == 0x46 { starts.append(i) }
                i += 1
            }
            for (k, start) in starts.prefix(sogImageNames.count).enumerated() {
                let end = k + 1 < starts.count ? starts[k + 1] : rest.endIndex
                entries.append((sogImageNames[k], Array(rest[start..<end])))
            }
        }
        return ContainerWrapping.storedZip(entries)
    }

    /// The name the `gltf` entry gives a file: "glTF" magic is a `.glb`, a first byte 0 (the
    /// `.ksplat` version's major number) a `.ksplat`, anything else `.gltf` JSON.
    public static func gltfName(_ data: UnsafeRawBufferPointer) -> String {
        if data.count >= 4, data[0] == 0x67, data[1] == 0x6C, data[2] == 0x54, data[3] == 0x46 { return "fuzz.glb" }
        if data.first == 0 { return "fuzz.ksplat" }
        return "fuzz.gltf"
    }

    /// Names the `detect` entry picks from its first byte: every detection rule of formats.md §1.
    public static let detectNames = ["fuzz.spz", "fuzz.ply", "fuzz.splat", "meta.json", "fuzz.sog", "lod-meta.json",
                                     "fuzz", "fuzz.ksplat"]
}
