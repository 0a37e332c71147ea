import SplatCore

/// The zlib stream of a PNG's IDAT chunks, made in bands of rows: each band is filtered,
/// checksummed and compressed on its own (`ZlibBandStream`), so the bands run on all cores and
/// a cancellation is seen between bands. Band boundaries depend only on the image's row size,
/// never on the thread count, so the bytes are the same with any number of threads.
struct PNGImageData {
    /// One band's share of the stream, ready to be stored as an IDAT chunk.
    struct Band {
        var deflate: [UInt8]
        var crc: UInt32
        var adler: UInt32
        var filteredCount: Int
    }

    /// Filtered bytes per band: big enough that libdeflate's block headers and the empty window
    /// at each band start cost well under 1 % (measured on corpus renders), small enough that a
    /// band takes a few milliseconds, so a 512² thumbnail still has four bands for two cores and
    /// a cancellation check comes every few milliseconds even for a 1 GiB image.
    static let bandTargetBytes = 256 << 10

    let header: [UInt8]
    let bands: [Band]
    let trailer: [UInt8]

    /// Filters and compresses every row of `image` at libdeflate `level`, in bands of about
    /// `bandTargetBytes` filtered bytes (whole rows, at least one).
    init(image: ImageBuffer, level: Int, threads: Int?, bandTargetBytes: Int = Self.bandTargetBytes,
         cancellation: CancellationToken) throws(SplatError) {
        let rowBytes = image.width * image.channels
        let height = image.height
        let rowsPerBand = Self.rowsPerBand(rowBytes: rowBytes, height: height, bandTargetBytes: bandTargetBytes)
        let bandCount = (height + rowsPerBand - 1) / rowsPerBand
        let zeroRow = [UInt8](repeating: 0, count: rowBytes)
        let bytesPerPixel = image.channels
        bands = try image.pixels.withUnsafeBufferPointer { (pixels) throws(SplatError) -> [Band] in
            try zeroRow.withUnsafeBufferPointer { (zeros) throws(SplatError) -> [Band] in
                let base = pixels.baseAddress!, zero = zeros.baseAddress!
                return try Parallel.map(bandCount, threads: threads) { (band) throws(SplatError) -> Band in
                    try cancellation.check("while encoding the PNG")
                    let rows = band * rowsPerBand..<min(height, (band + 1) * rowsPerBand)
                    let filteredCount = rows.count * (rowBytes + 1)
                    let filtered = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: filteredCount)
                    let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: PNGRowFilter.scratchBytes(rowBytes: rowBytes))
                    defer {
                        filtered.deallocate()
                        scratch.deallocate()
                    }
                    for (k, y) in rows.enumerated() {
                        let row = base + y * rowBytes
                        PNGRowFilter.filter(row: row, above: y == 0 ? zero : row - rowBytes, rowBytes: rowBytes,
                                            bytesPerPixel: bytesPerPixel, scratch: scratch,
                                            into: filtered.baseAddress! + k * (rowBytes + 1))
                    }
                    let input = UnsafeRawBufferPointer(filtered)
                    let compressor = try DeflateCompressor(level: level)
                    let deflate = try ZlibBandStream.compressBand(input, isLast: band == bandCount - 1, compressor: compressor)
                    let crc = deflate.withUnsafeBytes { PNGChunkWriter.crc(type: "IDAT", data: $0) }
                    return Band(deflate: deflate, crc: crc, adler: ZlibBandStream.adler32(input), filteredCount: filteredCount)
                }
            }
        }
        header = ZlibBandStream.header(level: level)
        var adler = bands[0].adler
        for band in bands.dropFirst() {
            adler = ZlibBandStream.combine(adler: adler, with: band.adler, secondLength: band.filteredCount)
        }
        trailer = ZlibBandStream.trailer(adler: adler)
    }

    /// Whole rows per band: the image split into the whole number of bands nearest to its
    /// filtered size over `bandTargetBytes`, as evenly as rows allow — so a 256² RGBA image is one
    /// band (not one and a row) and 512² is four, which two cores share evenly.
    static func rowsPerBand(rowBytes: Int, height: Int, bandTargetBytes: Int = Self.bandTargetBytes) -> Int {
        let filtered = Double(rowBytes + 1) * Double(height)
        let bands = min(height, max(1, Int((filtered / Double(max(1, bandTargetBytes))).rounded())))
        return (height + bands - 1) / bands
    }

    /// Bytes of the compressed stream in all.
    var byteCount: Int { header.count + bands.reduce(0) { $0 + $1.deflate.count } + trailer.count }
}
