import SplatCore

/// Where a binary PLY's vertex rows come from: bytes already in memory (the first row at the
/// pointer), or an open file whose rows start at `offset` and are read a chunk at a time.
enum PLYRowSource {
    case memory(UnsafeRawPointer)
    case file(RegularFile, offset: Int)
}

/// Reads one value of a binary vertex row as Float: `source` says, once per property, where
/// and how its value is stored; `load` reads it from a row.
protocol PLYRowReader {
    associatedtype Source
    func source(_ property: Int) -> Source
    func load(_ row: UnsafeRawPointer, _ source: Source) -> Float
}

/// Little-endian rows of floats only (the common layout): a value is a load at its offset.
struct FloatRowReader: PLYRowReader {
    func source(_ property: Int) -> Int { 4 * property }

    @inline(__always)
    func load(_ row: UnsafeRawPointer, _ offset: Int) -> Float {
        row.loadUnaligned(fromByteOffset: offset, as: Float.self)
    }
}

/// Rows of any scalar types, in either byte order.
struct ScalarRowReader: PLYRowReader {
    struct Source {
        var offset: Int
        var type: PLYScalarType
    }

    let vertex: PLYElement
    let bigEndian: Bool

    func source(_ property: Int) -> Source {
        Source(offset: vertex.byteOffset(ofProperty: property), type: vertex.properties[property].type)
    }

    @inline(__always)
    func load(_ row: UnsafeRawPointer, _ source: Source) -> Float {
        Float(PLYBodyReader.scalar(row + source.offset, source.type, bigEndian: bigEndian))
    }
}
