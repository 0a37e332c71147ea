/// Builds zip archives byte by byte for the reader's edge cases, SOG bundles made from the test
/// vectors' images and damaged bundles. Independent of `ZipArchive`: it follows the PKWARE
/// layout directly, so a reader bug cannot hide behind a writer that shares its code.
public enum TestZipWriter {
    public struct Item {
        public var name: String
        public var data: [UInt8]
        /// 0 stored, 8 deflate (compressed here with libdeflate).
        public var method: UInt16
        /// Zero CRC and sizes in the local header, real values in a data descriptor (flag bit 3),
        /// as splat-transform writes.
        public var dataDescriptor: Bool
        /// Written to the central directory instead of the real CRC.
        public var crcOverride: UInt32?
        /// A ZIP64 extended-information extra field in the central entry.
        public var zip64Extra: Bool

        public init(name: String, data: [UInt8], method: UInt16 = 0, dataDescriptor: Bool = false,
                    crcOverride: UInt32? = nil, zip64Extra: Bool = false) {
            self.name = name
            self.data = data
            self.method = method
            self.dataDescriptor = dataDescriptor
            self.crcOverride = crcOverride
            self.zip64Extra = zip64Extra
        }
    }

    /// Offsets of what the last `build` wrote, for tests that then corrupt them.
    public struct Layout {
        public var localHeaderOffsets: [Int] = []
        public var centralEntryOffsets: [Int] = []
        public var endRecordOffset = 0

        public init() {}
    }

    public static func build(_ items: [Item], layout: inout Layout) -> [UInt8] {
        var out: [UInt8] = []
        var central: [UInt8] = []
        func u16(_ v: UInt16, _ to: inout [UInt8]) { to += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32, _ to: inout [UInt8]) { for s in stride(from: 0, to: 32, by: 8) { to.append(UInt8((v >> UInt32(s)) & 0xFF)) } }
        layout = Layout()
        for item in items {
            let payload = item.method == 8 ? TestGzip.deflate(item.data) : item.data
            let crc = TestGzip.crc32(item.data)
            let name = Array(item.name.utf8)
            let flags: UInt16 = item.dataDescriptor ? 0x0808 : 0x0800
            let offset = out.count
            layout.localHeaderOffsets.append(offset)
            u32(0x0403_4B50, &out); u16(20, &out); u16(flags, &out); u16(item.method, &out); u16(0, &out); u16(0x21, &out)
            u32(item.dataDescriptor ? 0 : crc, &out)
            u32(item.dataDescriptor ? 0 : UInt32(payload.count), &out)
            u32(item.dataDescriptor ? 0 : UInt32(item.data.count), &out)
            u16(UInt16(name.count), &out); u16(0, &out)
            out += name
            out += payload
            if item.dataDescriptor {
                u32(0x0807_4B50, &out); u32(crc, &out); u32(UInt32(payload.count), &out); u32(UInt32(item.data.count), &out)
            }
            var extra: [UInt8] = []
            if item.zip64Extra {
                u16(0x0001, &extra); u16(8, &extra); u32(UInt32(item.data.count), &extra); u32(0, &extra)
            }
            layout.centralEntryOffsets.append(central.count)
            u32(0x0201_4B50, &central); u16(20, &central); u16(20, &central); u16(flags, &central); u16(item.method, &central)
            u16(0, &central); u16(0x21, &central)
            u32(item.crcOverride ?? crc, &central); u32(UInt32(payload.count), &central); u32(UInt32(item.data.count), &central)
            u16(UInt16(name.count), &central); u16(UInt16(extra.count), &central); u16(0, &central); u16(0, &central); u16(0, &central)
            u32(0, &central); u32(UInt32(offset), &central)
            central += name
            central += extra
        }
        let centralOffset = out.count
        layout.centralEntryOffsets = layout.centralEntryOffsets.map { $0 + centralOffset }
        out += central
        layout.endRecordOffset = out.count
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out)
        u16(UInt16(items.count), &out); u16(UInt16(items.count), &out)
        u32(UInt32(central.count), &out); u32(UInt32(centralOffset), &out); u16(0, &out)
        return out
    }

    public static func build(_ items: [Item]) -> [UInt8] {
        var layout = Layout()
        return build(items, layout: &layout)
    }

    /// Stored entries with correct CRCs and no data descriptors: the plainest bundle.
    public static func stored(_ entries: [(String, [UInt8])]) -> [UInt8] {
        build(entries.map { Item(name: $0.0, data: $0.1) })
    }

    /// Overwrites a little-endian u32 at `offset`.
    public static func patch32(_ bytes: inout [UInt8], at offset: Int, _ value: UInt32) {
        for i in 0..<4 { bytes[offset + i] = UInt8((value >> UInt32(8 * i)) & 0xFF) }
    }

    /// Overwrites a little-endian u16 at `offset`.
    public static func patch16(_ bytes: inout [UInt8], at offset: Int, _ value: UInt16) {
        bytes[offset] = UInt8(value & 0xFF)
        bytes[offset + 1] = UInt8(value >> 8)
    }
}
