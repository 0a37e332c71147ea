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
    /// One accessor to read: its lanes and where its first dense element is (nil: no view, the
    /// core's zeros before any sparse substitution).
    struct Job: @unchecked Sendable {
        var accessor: GLTFAccessor
        var lanes: [FloatLane?]
        var start: UnsafeRawPointer?
    }

    /// Elements per parallel chunk: all of a primitive's accessors are read chunk by chunk, so
    /// the chunk's splats (SH included: 4096 × 180 bytes at degree 3) stay in cache while every
    /// attribute is written into them. Fixed, so results do not depend on the thread count.
    static let chunkSize = 4096

    /// Resolves the accessor's buffer (loading it on first use); a nil lane skips a component.
    static func job(_ accessor: GLTFAccessor, into lanes: [FloatLane?], buffers: GLTFBuffers) throws(SplatError) -> Job {
        precondition(lanes.count == accessor.components, "one lane per component")
        guard let view = accessor.view else { return Job(accessor: accessor, lanes: lanes, start: nil) }
        let buffer = try buffers.bytes(view.buffer)
        return Job(accessor: accessor, lanes: lanes, start: UnsafeRawPointer(buffer.baseAddress! + view.offset + accessor.byteOffset))
    }

    /// Reads elements `range` of every job, then each job's sparse substitutions (after all
    /// dense data, as the core orders them). Sparse indices that are not strictly increasing
    /// below `count` are `bad_meta`.
    static func read(_ jobs: [Job], count: Int, buffers: GLTFBuffers, fields: GLTFFields, threads: Int?) throws(SplatError) {
        Parallel.forEachChunk(count: count, chunkSize: chunkSize, threads: threads) { _, range in
            for job in jobs {
                if let start = job.start {
                    gather(job.accessor, from: start, range: range, into: job.lanes)
                } else {
                    for lane in job.lanes.compactMap({ $0 }) { for i in range { lane.base[i * lane.stride] = 0 } }
                }
            }
        }
        for job in jobs { try substitute(job, buffers: buffers, fields: fields) }
    }

    private static func substitute(_ job: Job, buffers: GLTFBuffers, fields: GLTFFields) throws(SplatError) {
        let accessor = job.accessor, n = accessor.count
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
            for (c, lane) in job.lanes.enumerated() {
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
    /// load-convert-store; the offsets were bounds-checked when the accessor was validated, so the
    /// loops step pointers instead of multiplying checked indices.
    private static func gather(_ accessor: GLTFAccessor, from start: UnsafeRawPointer, range: Range<Int>, into lanes: [FloatLane?]) {
        let stride = accessor.stride, size = accessor.componentType.size
        for (c, lane) in lanes.enumerated() {
            guard let lane else { continue }
            let src = start + range.lowerBound &* stride + c * size
            let dst = lane.base + range.lowerBound &* lane.stride
            let norm = accessor.normalized, n = range.count, step = lane.stride
            switch accessor.componentType {
            case .float: loop(UInt32.self, src, stride, n, dst, step) { Float(bitPattern: $0) }
            case .byte: loop(UInt8.self, src, stride, n, dst, step) { convert(Int8(bitPattern: $0), normalized: norm) }
            case .unsignedByte: loop(UInt8.self, src, stride, n, dst, step) { convert($0, normalized: norm) }
            case .short: loop(UInt16.self, src, stride, n, dst, step) { convert(Int16(bitPattern: $0), normalized: norm) }
            case .unsignedShort: loop(UInt16.self, src, stride, n, dst, step) { convert($0, normalized: norm) }
            case .unsignedInt: loop(UInt32.self, src, stride, n, dst, step) { Float($0) }
            }
        }
    }

    @inline(__always)
    private static func loop<T: FixedWidthInteger>(_: T.Type, _ src: UnsafeRawPointer, _ stride: Int, _ count: Int,
                                                   _ dst: UnsafeMutablePointer<Float>, _ step: Int, _ value: (T) -> Float) {
        var s = src, d = dst
        for _ in 0..<count {
            d.pointee = value(T(littleEndian: s.loadUnaligned(as: T.self)))
            s += stride
            d += step
        }
    }
}
