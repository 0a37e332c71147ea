import SplatCore

/// SPZ extension records (`formats.md` 2.4): between the v4 header and its TOC, or after the
/// attribute blocks of a legacy payload. Parsing never fails: a record that does not fit stops
/// parsing with a warning (the splats still decode), unknown types are skipped by length.
struct SPZExtensions: Sendable, Equatable {
    /// `SPZ_ADOBE_safe_orbit_camera`: f32 elevationMin, f32 elevationMax, f32 radiusMin.
    static let safeOrbitCameraType: UInt32 = 0xADBE_0002
    /// `SPZ_ADOBE_coordinate_system`: u32 coordinate-system value (table in `formats.md` 7.1).
    static let coordinateSystemType: UInt32 = 0xADBE_0003

    /// One record as found in the file.
    struct Record: Sendable, Equatable {
        var type: UInt32
        /// Payload length in bytes.
        var length: Int
        /// Whether the record was understood (a known type with a usable payload).
        var understood: Bool
    }

    /// The first `maxListed` records; a block of millions of 8-byte records (which a small gzip
    /// file can inflate to) must not cost memory in proportion.
    var records: [Record] = []
    var declaredFrame: CoordinateSystem?
    var cameraHints: CameraHints?
    /// At most `maxListed` per-record warnings, then one summary.
    var warnings: [String] = []
    static let maxListed = 64
    private var unlistedRecords = 0
    private var suppressedWarnings = 0

    /// Parses a whole extension block.
    static func parse(_ block: UnsafeRawBufferPointer) -> SPZExtensions {
        var result = SPZExtensions()
        var offset = 0
        while block.count - offset >= 8 {
            let type = block.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian
            let length = Int(block.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self).littleEndian)
            offset += 8
            guard length <= block.count - offset else {
                result.warnings.append("extension \(hex(type)) claims \(length) bytes but only \(block.count - offset) remain; stopped reading extensions")
                offset = block.count
                break
            }
            let payload = UnsafeRawBufferPointer(rebasing: block[offset..<offset + length])
            offset += length
            let record = Record(type: type, length: length, understood: result.apply(type: type, payload: payload))
            if result.records.count < maxListed { result.records.append(record) } else { result.unlistedRecords += 1 }
        }
        if offset < block.count {
            result.warnings.append("\(block.count - offset) trailing byte(s) after the extension records ignored")
        }
        if result.unlistedRecords > 0 || result.suppressedWarnings > 0 {
            result.warnings.append("\(result.records.count + result.unlistedRecords) extension records; only the first \(maxListed) are listed (\(result.suppressedWarnings) more warning(s) not shown)")
        }
        return result
    }

    private mutating func warn(_ message: @autoclosure () -> String) {
        if warnings.count < Self.maxListed { warnings.append(message()) } else { suppressedWarnings += 1 }
    }

    /// Interprets one record; returns whether it was understood.
    private mutating func apply(type: UInt32, payload: UnsafeRawBufferPointer) -> Bool {
        switch type {
        case Self.coordinateSystemType:
            guard payload.count >= 4 else {
                warn("coordinate-system extension payload is \(payload.count) bytes, expected 4; ignored")
                return false
            }
            let value = payload.loadUnaligned(as: UInt32.self).littleEndian
            if value == 0 {
                warn("coordinate-system extension says UNSPECIFIED; treated as absent")
                return false
            }
            guard value <= 16, let frame = CoordinateSystem(rawValue: Int(value)) else {
                warn("coordinate-system extension value \(value) is unknown; ignored")
                return false
            }
            if let earlier = declaredFrame, earlier != frame {
                warn("second coordinate-system extension (\(frame.name)) ignored; keeping \(earlier.name)")
                return false
            }
            declaredFrame = frame
            return true
        case Self.safeOrbitCameraType:
            guard payload.count >= 12 else {
                warn("safe-orbit-camera extension payload is \(payload.count) bytes, expected 12; ignored")
                return false
            }
            func f32(_ at: Int) -> Float {
                Float(bitPattern: payload.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian)
            }
            if cameraHints != nil {
                warn("second safe-orbit-camera extension ignored")
                return false
            }
            cameraHints = CameraHints(elevationMin: f32(0), elevationMax: f32(4), radiusMin: f32(8))
            return true
        default:
            warn("unknown extension \(Self.hex(type)) (\(payload.count) bytes) skipped")
            return false
        }
    }

    /// The records a writer emits for these facts, in type order (safe orbit, coordinate system).
    static func serialize(declaredFrame: CoordinateSystem?, cameraHints: CameraHints?) -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { out.append(contentsOf: $0) } }
        if let hints = cameraHints {
            u32(safeOrbitCameraType)
            u32(12)
            u32(hints.elevationMin.bitPattern)
            u32(hints.elevationMax.bitPattern)
            u32(hints.radiusMin.bitPattern)
        }
        if let frame = declaredFrame {
            u32(coordinateSystemType)
            u32(4)
            u32(UInt32(frame.rawValue))
        }
        return out
    }

    static func hex(_ type: UInt32) -> String {
        let digits = String(type, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }
}
