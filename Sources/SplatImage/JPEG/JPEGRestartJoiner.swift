import SplatCore

/// Joins baseline JPEGs of consecutive horizontal strips into one JPEG with restart markers
/// (ITU T.81 B.2.4.4, E.1.4): every strip but the last is a whole number of MCU rows and the
/// same number of MCUs, which becomes the restart interval; at each RSTm marker a decoder
/// resets its DC predictions and its bit reader, exactly the state each strip's encoder
/// started from. Strips encoded with the same quality, subsampling and (standard) Huffman
/// tables therefore decode to the same pixels as one encode of the whole image.
enum JPEGRestartJoiner {
    /// Where the parts of one strip's JPEG are.
    struct Strip {
        let bytes: [UInt8]
        /// SOI up to (not including) the SOS marker: tables and the frame header.
        let tables: Range<Int>
        /// The SOS marker segment.
        let scanHeader: Range<Int>
        /// The entropy-coded data, up to the EOI marker.
        let scan: Range<Int>
        /// Offset of the frame header's 16-bit height (the only part of `tables` that may differ).
        let heightOffset: Int

        /// Splits a JPEG as TurboJPEG writes it. Anything it could not join safely — progressive or
        /// arithmetic coding, restart markers of its own (TurboJPEG's TJ_RESTART environment
        /// variable), more than one scan — is refused.
        init(_ bytes: [UInt8]) throws(SplatError) {
            self.bytes = bytes
            let n = bytes.count
            guard n >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8, bytes[n - 2] == 0xFF, bytes[n - 1] == 0xD9 else {
                throw SplatError(.io, "TurboJPEG returned a JPEG without SOI and EOI markers")
            }
            var p = 2
            var height: Int?
            while p + 4 <= n {
                guard bytes[p] == 0xFF else { throw SplatError(.io, "TurboJPEG output has no marker at byte \(p)") }
                let marker = bytes[p + 1]
                let length = Int(bytes[p + 2]) << 8 | Int(bytes[p + 3])
                guard length >= 2, p + 2 + length <= n else { throw SplatError(.io, "TurboJPEG marker segment at \(p) overruns") }
                switch marker {
                case 0xDA:
                    guard let height else { throw SplatError(.io, "TurboJPEG output has no frame header before its scan") }
                    tables = 0..<p
                    scanHeader = p..<p + 2 + length
                    scan = p + 2 + length..<n - 2
                    heightOffset = height
                    return
                case 0xC0:
                    height = p + 5
                case 0xC1...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC, 0xDD:
                    throw SplatError(.io, "TurboJPEG wrote marker 0xFF\(String(marker, radix: 16, uppercase: true)), which cannot be joined (TJ_* environment settings?)")
                default:
                    break
                }
                p += 2 + length
            }
            throw SplatError(.io, "TurboJPEG output has no scan")
        }

        /// The tables with the frame height zeroed: equal for strips that can be joined.
        var tablesIgnoringHeight: [UInt8] {
            var tables = Array(bytes[self.tables])
            tables[heightOffset] = 0
            tables[heightOffset + 1] = 0
            return tables
        }
    }

    /// One JPEG of height `height` from `strips` in order, each but the last `interval` MCUs long.
    static func join(_ strips: [Strip], height: Int, interval: Int, cancellation: CancellationToken) throws(SplatError) -> [UInt8] {
        guard let first = strips.first else { throw SplatError(.invalidArgument, "no JPEG strips to join") }
        guard (1...0xFFFF).contains(interval), (1...0xFFFF).contains(height) else {
            throw SplatError(.invalidArgument, "restart interval \(interval) or height \(height) does not fit 16 bits")
        }
        let reference = first.tablesIgnoringHeight
        for (index, strip) in strips.enumerated().dropFirst() {
            guard strip.tablesIgnoringHeight == reference, strip.bytes[strip.scanHeader] == first.bytes[first.scanHeader] else {
                throw SplatError(.io, "JPEG strip \(index) has other tables than strip 0 (TurboJPEG optimised Huffman tables?)")
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(first.tables.count + 6 + first.scanHeader.count + strips.reduce(0) { $0 + $1.scan.count + 2 })
        out += first.bytes[first.tables]
        out[first.heightOffset] = UInt8(height >> 8)
        out[first.heightOffset + 1] = UInt8(height & 0xFF)
        out += [0xFF, 0xDD, 0x00, 0x04, UInt8(interval >> 8), UInt8(interval & 0xFF)]
        out += first.bytes[first.scanHeader]
        for (index, strip) in strips.enumerated() {
            try cancellation.check("while writing the JPEG")
            out += strip.bytes[strip.scan]
            if index < strips.count - 1 { out += [0xFF, 0xD0 + UInt8(index % 8)] }
        }
        out += [0xFF, 0xD9]
        return out
    }
}
