/// Minimal writers for the containers around the payloads the fuzzer mutates. They use stored
/// (uncompressed) encodings so a mutated payload byte is a payload byte, not a broken
/// compressed stream; the raw-file fuzz modes cover the compressed paths.
public enum ContainerWrapping {
    /// One gzip member holding `payload` in stored deflate blocks, with a correct CRC-32 and ISIZE.
    public static func gzipStored(_ payload: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF]
        var start = 0
        repeat {
            let n = min(65535, payload.count - start)
            let last: UInt8 = start + n == payload.count ? 1 : 0
            out.append(last)  // BFINAL, BTYPE 00 (stored)
            out.appendLE(UInt16(n))
            out.appendLE(~UInt16(n))
            out.append(contentsOf: payload[start..<start + n])
            start += n
        } while start < payload.count
        out.appendLE(CRC32.checksum(payload))
        out.appendLE(UInt32(truncatingIfNeeded: payload.count))
        return out
    }

    /// One zstd frame (RFC 8878) of raw blocks declaring its content size.
    public static func zstdRawFrame(_ content: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        out.append(0xE0)  // 8-byte content size, single segment, no checksum, no dictionary
        out.appendLE(UInt64(content.count))
        var start = content.startIndex
        repeat {
            let n = min(128 << 10, content.endIndex - start)
            let last: UInt32 = start + n == content.endIndex ? 1 : 0
            let header = UInt32(n) << 3 | last  // block type 0 (raw)
            out.append(UInt8(header & 0xFF)); out.append(UInt8(header >> 8 & 0xFF)); out.append(UInt8(header >> 16 & 0xFF))
            out.append(contentsOf: content[start..<start + n])
            start += n
        } while start < content.endIndex
        return out
    }

    /// A zip archive of stored entries (no data descriptors), central directory and end record.
    public static func storedZip(_ entries: [(name: String, data: [UInt8])]) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        for entry in entries {
            let name = Array(entry.name.utf8)
            let crc = CRC32.checksum(entry.data)
            let offset = UInt32(truncatingIfNeeded: out.count)
            out.appendLE(UInt32(0x0403_4B50))
            out.appendLE(UInt16(20)); out.appendLE(UInt16(0)); out.appendLE(UInt16(0))  // version, flags, method
            out.appendLE(UInt32(0))  // time, date
            out.appendLE(crc)
            out.appendLE(UInt32(truncatingIfNeeded: entry.data.count)); out.appendLE(UInt32(truncatingIfNeeded: entry.data.count))
            out.appendLE(UInt16(name.count)); out.appendLE(UInt16(0))
            out.append(contentsOf: name)
            out.append(contentsOf: entry.data)

            central.appendLE(UInt32(0x0201_4B50))
            central.appendLE(UInt16(20)); central.appendLE(UInt16(20)); central.appendLE(UInt16(0)); central.appendLE(UInt16(0))
            central.appendLE(UInt32(0))
            central.appendLE(crc)
            central.appendLE(UInt32(truncatingIfNeeded: entry.data.count)); central.appendLE(UInt32(truncatingIfNeeded: entry.data.count))
            central.appendLE(UInt16(name.count)); central.appendLE(UInt16(0)); central.appendLE(UInt16(0))
            central.appendLE(UInt16(0)); central.appendLE(UInt16(0)); central.appendLE(UInt32(0))
            central.appendLE(offset)
            central.append(contentsOf: name)
        }
        let centralOffset = UInt32(truncatingIfNeeded: out.count)
        out.append(contentsOf: central)
        out.appendLE(UInt32(0x0605_4B50))
        out.appendLE(UInt16(0)); out.appendLE(UInt16(0))
        out.appendLE(UInt16(entries.count)); out.appendLE(UInt16(entries.count))
        out.appendLE(UInt32(truncatingIfNeeded: central.count)); out.appendLE(centralOffset)
        out.appendLE(UInt16(0))
        return out
    }
}
