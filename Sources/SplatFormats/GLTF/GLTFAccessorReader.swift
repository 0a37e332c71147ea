import SplatCore

/// Where component c of accessor element i goes: `base[i · stride]` (a scene column has stride
/// 1; an SH coefficient inside the per-splat SH block has the block's stride).
struct FloatLane: @unchecked Sendable {
    var base: UnsafeMutablePointer<Float>
    var stride: Int
}

/// Reads a validated accessor into Float lanes (`formats-gltf.md` 11.5): dense elements from the
/// view (any stride, unaligned allowed), then the sparse substitutions, then the normalization
/// of the core ("Animations": `max(c / 127, −1)`, `c / 255`, `max(c / 32767, −1)`, `c / 65535`;
/// integers that are not normalized are read as their value). Little-endian throughout.
enum GLTFAccessorReader {
    /// Elements per parallel chunk; fixed, so results do not depend on the thread count.
    static let chunkSize = 1 << 16

    /// Reads every element of `accessor`; a nil lane skips that component. Sparse indices that
    /// are not strictly increasing below `count` are `bad_meta`.
    static func read(_ accessor: GLTFAccessor, into lanes: [FloatLane?], buffers: GLTFBuffers,
                     fields: GLTFFields, threads: Int? = nil) throws(SplatError) {
        precondition(lanes.count == accessor.components, "one lane per component")
        let n = accessor.count
        if let view = accessor.view {
            let buffer = try buffers.bytes(view.buffer)
            let start = buffer.baseAddress! + view.offset + accessor.byteOffset
            Parallel.forEachChunk(count: n, chunkSize: chunkSize, threads: threads) { _, range in
                gather(accessor, from: start, range: range, into: lanes)
            }
        } else {
            for lane in lanes.compactMap({ $0 }) {
                for i in 0..<n { lane.base[i * lane.stride] = 0 }
            }
        }
        guard let sparse = accessor.sparse else { return }
        let indexBuffer = try buffers.bytes(sparse.indices.buffer)
        let valueBuffer = try buffers.bytes(sparse.values.buffer)
        let indices = indexBuffer.baseAddress! + sparse.indices.offset + sparse.indicesOffset
        let values = valueBuffer.baseAddress! + sparse.values.offset + sparse.valuesOffset
        var previous = -1
        for j in 0..<sparse.count {
            let target: Int
            switch sparse.indexType {
            case .unsignedByte: target = Int(indices.load(fromByteOffset: j, as: UInt8.self))
            case .unsignedShort: target = Int(UInt16(littleEndian: indices.loadUnaligned(fromByteOffset: 2 * j, as: UInt16.self)))
            default: target = Int(UInt32(littleEndian: indices.loadUnaligned(fromByteOffset: 4 * j, as: UInt32.self)))
            }
            guard target > previous, target < n else {
                throw fields.failure("accessors[\(accessor.index)].sparse.indices", "are not strictly increasing below count \(n)")
            }
            previous = target
            let element = values + j * accessor.elementSize
            for (c, lane) in lanes.enumerated() {
                guard let lane else { continue }
                lane.base[target * lane.stride] = component(accessor, element + c * accessor.componentType.size)
            }
        }
    }

    /// One component at `p`, converted.
    @inline(__always)
    static func component(_ accessor: GLTFAccessor, _ p: UnsafeRawPointer) -> Float {
        let norm = accessor.normalized
        switch accessor.componentType {
        case .float: return Float(bitPattern: UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
        case .byte: return convert(Int8(bitPattern: p.load(as: UInt8.self)), normalized: norm)
        case .unsignedByte: return convert(p.load(as: UInt8.self), normalized: norm)
        case .short: return convert(Int16(littleEndian: p.loadUnaligned(as: Int16.self)), normalized: norm)
        case .unsignedShort: return convert(UInt16(littleEndian: p.loadUnaligned(as: UInt16.self)), normalized: norm)
        case .unsignedInt: return Float(UInt32(littleEndian: p.loadUnaligned(as: UInt32.self)))
        }
    }

    @inline(__always)
    private static func convert<T: FixedWidthInteger>(_ v: T, normalized: Bool) -> Float {
        guard normalized else { return Float(v) }
        let scaled = Float(v) / Float(T.max)
        return T.isSigned ? max(scaled, -1) : scaled
    }

    /// Dense elements `range`, one component at a time so each inner loop is a plain strided
    /// load-convert-store the compiler can unroll.
    private static func gather(_ accessor: GLTFAccessor, from start: UnsafeRawPointer, range: Range<Int>, into lanes: [FloatLane?]) {
        let stride = accessor.stride, size = accessor.componentType.size
        for (c, lane) in lanes.enumerated() {
            guard let lane else { continue }
            let src = start + c * size
            let dst = lane.base, step = lane.stride
            switch accessor.componentType {
            case .float:
                for i in range { dst[i * step] = Float(bitPattern: UInt32(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: UInt32.self))) }
            case .byte: loop(Int8.self, src, stride, range, dst, step, accessor.normalized)
            case .unsignedByte: loop(UInt8.self, src, stride, range, dst, step, accessor.normalized)
            case .short: loop(Int16.self, src, stride, range, dst, step, accessor.normalized)
            case .unsignedShort: loop(UInt16.self, src, stride, range, dst, step, accessor.normalized)
            case .unsignedInt:
                for i in range { dst[i * step] = Float(UInt32(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: UInt32.self))) }
            }
        }
    }

    @inline(__always)
    private static func loop<T: FixedWidthInteger>(_: T.Type, _ src: UnsafeRawPointer, _ stride: Int, _ range: Range<Int>,
                                                   _ dst: UnsafeMutablePointer<Float>, _ step: Int, _ normalized: Bool) {
        if normalized {
            for i in range { dst[i * step] = convert(T(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: T.self)), normalized: true) }
        } else {
            for i in range { dst[i * step] = Float(T(littleEndian: src.loadUnaligned(fromByteOffset: i * stride, as: T.self))) }
        }
    }
}
