import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport

/// `.ksplat` cases the vectors do not cover (formats-gltf.md 17): SH degree 3 read channel-major
/// at levels 0 and 2, empty partial buckets, the SH ceiling, storage past the end of the file.
@Suite struct KSplatDecoderTests {
    /// A one-section file: `records` are the splat records (already laid out for `level`),
    /// `buckets` the bucket table (partial lengths, then centres).
    static func file(level: Int, degree: Int, count: Int, bucket: (size: Int, full: Int, partial: [UInt32], centers: [Float]),
                     records: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: 4096 + 1024)
        func put32(_ v: UInt32, _ at: Int) { withUnsafeBytes(of: v.littleEndian) { for (i, b) in $0.enumerated() { header[at + i] = b } } }
        func put16(_ v: UInt16, _ at: Int) { withUnsafeBytes(of: v.littleEndian) { for (i, b) in $0.enumerated() { header[at + i] = b } } }
        header[1] = 1
        put32(1, 4); put32(1, 8); put32(UInt32(count), 12); put32(UInt32(count), 16); put16(UInt16(level), 20)
        let s = 4096
        let buckets = bucket.full + bucket.partial.count
        put32(UInt32(count), s); put32(UInt32(count), s + 4); put32(UInt32(bucket.size), s + 8); put32(UInt32(buckets), s + 12)
        put32(Float(5).bitPattern, s + 16); put16(buckets > 0 ? 12 : 0, s + 20); put32(UInt32(bucket.full), s + 32)
        put32(UInt32(bucket.partial.count), s + 36); put16(UInt16(degree), s + 40)
        var table: [UInt8] = []
        for length in bucket.partial { withUnsafeBytes(of: length.littleEndian) { table += $0 } }
        for c in bucket.centers { withUnsafeBytes(of: c.bitPattern.littleEndian) { table += $0 } }
        return header + table + records
    }

    static func f32(_ v: Float) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) }
    static func f16(_ v: Float16) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) }

    static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        let input = bytes.withUnsafeBytes { InputBytes(copying: $0, name: "test.ksplat") }
        return try SplatFile.decode(input, limits: limits)
    }

    /// Slot j of band l holds coefficient l² − 1 + (j mod (2l+1)) of channel ⌊j / (2l+1)⌋.
    static func expectChannelMajor(_ scene: SplatScene, value: (Int) -> Float) {
        var slot = 0
        for l in 1...3 {
            for j in 0..<(3 * (2 * l + 1)) {
                let k = l * l - 1 + j % (2 * l + 1), c = j / (2 * l + 1)
                #expect(scene.shCoefficient(0, k)[c] == value(slot), "band \(l) slot \(j)")
                slot += 1
            }
        }
    }

    @Test func degreeThreeAtLevelZero() throws {
        let values: [Float] = [1.5, -2, 3, 0.5, 0.25, 1, 0, 0, 1, 0]
        var record: [UInt8] = values.flatMap { Self.f32($0) } + [128, 128, 128, 255]
        record += (0..<45).flatMap { Self.f32(Float($0) / 8) }
        let decoded = try Self.decode(Self.file(level: 0, degree: 3, count: 1, bucket: (0, 0, [], []), records: record))
        let s = decoded.scene
        #expect(s.shDegree == 3 && s.position(0) == SIMD3(1.5, -2, 3))
        #expect(abs(s.logScaleX[0] - logf(0.5)) < 1e-7 && s.logScaleZ[0] == 0)
        // Stored (w, x, y, z) = (0, 0, 1, 0): 180° about Y.
        #expect(s.rotation(0) == SIMD4(0, 0, 1, 0))
        #expect(decoded.header.warnings.contains { $0.contains("SH degree 3") })
        Self.expectChannelMajor(s) { Float($0) / 8 }
        // A lower SH ceiling drops band 3 before allocating.
        let capped = try Self.decode(Self.file(level: 0, degree: 3, count: 1, bucket: (0, 0, [], []), records: record),
                                     limits: DecodeLimits(maxShDegree: 1))
        #expect(capped.scene.shDegree == 1 && capped.header.shDegree == 3 && capped.scene.shCoefficient(0, 1) == SIMD3(1, 4, 7) / 8)
    }

    @Test func degreeThreeAtLevelTwoWithEmptyPartialBuckets() throws {
        // Two splats in the second partial bucket (the first is empty), centre (10, 20, 30).
        func record(_ u: [UInt16]) -> [UInt8] {
            var r: [UInt8] = u.flatMap { v in withUnsafeBytes(of: v.littleEndian, Array.init) }
            let halves: [Float16] = [1, 1, 1, 1, 0, 0, 0]
            r += halves.flatMap { Self.f16($0) }
            r += [200, 100, 50, 128]
            return r + (0..<45).map { UInt8($0 * 5) }
        }
        let records = record([32767, 32767, 32767]) + record([32767 + 6553, 32767, 0])
        let bytes = Self.file(level: 2, degree: 3, count: 2, bucket: (256, 0, [0, 2], [0, 0, 0, 10, 20, 30]), records: records)
        let s = try Self.decode(bytes).scene
        #expect(s.position(0) == SIMD3(10, 20, 30))
        // (u − sr) · block / 2 / sr + centre, with sr 32767 and block 5.
        #expect(abs(s.x[1] - Float(10 + 6553 * 2.5 / 32767)) < 1e-5 && abs(s.z[1] - Float(30 - 2.5)) < 1e-5)
        #expect(abs(s.alpha[0] - 128 / 255) < 1e-7 && abs(s.dcR[0] - (200 / 255 - 0.5) / 0.28209479) < 1e-5)
        // u8 SH over the default range [−1.5, 1.5].
        Self.expectChannelMajor(s) { Float(-1.5 + Double($0 * 5) / 255 * 3) }
    }

    @Test func storagePastTheFileIsTruncated() throws {
        let record = [UInt8](repeating: 0, count: 44)
        var bytes = Self.file(level: 0, degree: 0, count: 1, bucket: (0, 0, [], []), records: record)
        bytes.removeLast()
        #expect(throws: SplatError.self) { try Self.decode(bytes) }
        do throws(SplatError) { _ = try Self.decode(bytes) } catch { #expect(error.kind == .truncated) }
    }
}
