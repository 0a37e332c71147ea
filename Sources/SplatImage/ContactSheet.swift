import SplatCore

/// Tiles equal-size images into one grid image, left to right then top to bottom, optionally
/// shrinking each tile first (`ImageBuffer.downscaled(by:)` defines the filter).
public enum ContactSheet {
    /// Where the tiles go. Tile `i` is at column `i % columns`, row `i / columns`; tiles are
    /// separated by `gap` pixels and there is no outer margin.
    public struct Layout: Sendable, Equatable {
        public var columns: Int
        public var rows: Int
        public var tileWidth: Int
        public var tileHeight: Int
        public var gap: Int

        public var width: Int { columns * tileWidth + (columns - 1) * gap }
        public var height: Int { rows * tileHeight + (rows - 1) * gap }

        /// Top-left corner of tile `index`.
        public func origin(ofTile index: Int) -> (x: Int, y: Int) {
            ((index % columns) * (tileWidth + gap), (index / columns) * (tileHeight + gap))
        }
    }

    /// The layout `compose` uses: `columns` is capped at the image count (a single row never has
    /// empty columns), rows = ⌈count / columns⌉, tiles are ⌈w/downscale⌉ × ⌈h/downscale⌉.
    /// Checks sizes in overflow-checked arithmetic against `maxPixels`.
    public static func layout(count: Int, tileWidth: Int, tileHeight: Int, columns: Int, downscale: Int = 1, gap: Int = 0,
                              maxPixels: Int = ImageLimits.maxPixels) throws(SplatError) -> Layout {
        guard count >= 1 else { throw SplatError(.invalidArgument, "a contact sheet needs at least one image") }
        guard columns >= 1 else { throw SplatError(.invalidArgument, "columns \(columns) must be at least 1", field: "columns") }
        guard downscale >= 1 else { throw SplatError(.invalidArgument, "downscale \(downscale) must be at least 1", field: "downscale") }
        guard gap >= 0 else { throw SplatError(.invalidArgument, "gap \(gap) must not be negative", field: "gap") }
        guard tileWidth >= 1, tileHeight >= 1 else {
            throw SplatError(.invalidArgument, "images are \(tileWidth)×\(tileHeight); both sides must be at least 1")
        }
        let cols = min(columns, count)
        let rows = (count + cols - 1) / cols
        let tw = (tileWidth + downscale - 1) / downscale, th = (tileHeight + downscale - 1) / downscale
        guard let w0 = CheckedSize.mul(cols, tw), let g0 = CheckedSize.mul(cols - 1, gap), let width = CheckedSize.add(w0, g0),
              let h0 = CheckedSize.mul(rows, th), let g1 = CheckedSize.mul(rows - 1, gap), let height = CheckedSize.add(h0, g1),
              let pixels = CheckedSize.mul(width, height), pixels <= maxPixels else {
            throw SplatError(.tooLarge, "a \(cols)×\(rows) sheet of \(tw)×\(th) tiles with gap \(gap) exceeds \(maxPixels) pixels")
        }
        return Layout(columns: cols, rows: rows, tileWidth: tw, tileHeight: th, gap: gap)
    }

    /// One image holding all `images` (same width, height and channel count) in a grid.
    ///
    /// - Parameters:
    ///   - columns: tiles per row (capped at `images.count`).
    ///   - downscale: integer shrink factor per tile (1 = none).
    ///   - gap: pixels between tiles.
    ///   - background: fills gaps and unused cells: 3 values (RGB; opaque when the images are RGBA)
    ///     or 4 (RGBA images only). nil = zeros (black, or transparent for RGBA).
    public static func compose(_ images: [ImageBuffer], columns: Int, downscale: Int = 1, gap: Int = 0,
                               background: [UInt8]? = nil, maxPixels: Int = ImageLimits.maxPixels) throws(SplatError) -> ImageBuffer {
        guard let first = images.first else { throw SplatError(.invalidArgument, "a contact sheet needs at least one image") }
        for (index, image) in images.enumerated()
        where image.width != first.width || image.height != first.height || image.channels != first.channels {
            throw SplatError(.invalidArgument, "image \(index) is \(image.width)×\(image.height)×\(image.channels), expected \(first.width)×\(first.height)×\(first.channels) like image 0")
        }
        let c = first.channels
        let fill = try backgroundPixel(background, channels: c)
        let layout = try layout(count: images.count, tileWidth: first.width, tileHeight: first.height, columns: columns,
                                downscale: downscale, gap: gap, maxPixels: maxPixels)
        let width = layout.width, height = layout.height

        var sheet = [UInt8](repeating: 0, count: width * height * c)
        if fill.contains(where: { $0 != 0 }) {
            sheet.withUnsafeMutableBufferPointer { dst in
                for p in stride(from: 0, to: dst.count, by: c) { for k in 0..<c { dst[p + k] = fill[k] } }
            }
        }
        let rowBytes = layout.tileWidth * c
        for (index, image) in images.enumerated() {
            let tile = try image.downscaled(by: downscale)
            let (ox, oy) = layout.origin(ofTile: index)
            tile.pixels.withUnsafeBufferPointer { src in
                sheet.withUnsafeMutableBufferPointer { dst in
                    for y in 0..<layout.tileHeight {
                        let from = src.baseAddress! + y * rowBytes
                        let to = dst.baseAddress! + ((oy + y) * width + ox) * c
                        to.update(from: from, count: rowBytes)
                    }
                }
            }
        }
        return ImageBuffer(width: width, height: height, channels: c, pixels: sheet)
    }

    static func backgroundPixel(_ background: [UInt8]?, channels: Int) throws(SplatError) -> [UInt8] {
        guard let background else { return [UInt8](repeating: 0, count: channels) }
        switch (background.count, channels) {
        case (3, 3), (4, 4): return background
        case (3, 4): return background + [255]
        default:
            throw SplatError(.invalidArgument, "background has \(background.count) values; \(channels == 3 ? "RGB images take 3" : "RGBA images take 3 or 4")", field: "background")
        }
    }
}
