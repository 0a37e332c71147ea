import Foundation
import SplatCore
import SplatFormats
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `Regressions/` in the test target's folder (one above this one): inputs the fuzzer found
/// (each once a crash, hang or leak) and the named hostile cases, replayed by `tools/fuzz/run`
/// under libFuzzer's malloc limit. Names are `<fuzz target>--<what>.<ext>`.
private let regressionFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Regressions")

/// A 3DGS PLY header (all-float vertex, SH degree 3) declaring `count` vertices.
private func gaussianPLYHeader(count: Int, restCount: Int = 45) -> [UInt8] {
    let names = ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"] + (0..<restCount).map { "f_rest_\($0)" }
        + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
    let text = "ply\nformat binary_little_endian 1.0\nelement vertex \(count)\n" + names.map { "property float \($0)\n" }.joined() + "end_header\n"
    return Array(text.utf8)
}

private func decodeError(_ bytes: [UInt8], name: String, limits: DecodeLimits) -> SplatError? {
    if case .failure(let error) = OutcomeCheck.decode(bytes, name: name, limits: limits) { return error }
    return nil
}

/// Peak resident set of this process in bytes (getrusage). Monotonic: a decode that allocated
/// and touched more than the growth it shows cannot have happened.
private func peakResidentBytes() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_maxrss * 1024
}

@Suite("Hostile inputs", .serialized)
struct HostileInputTests {
    /// Runs `body` and returns how much the process's peak RSS grew. The sizes these cases claim
    /// (tens to hundreds of GB) cannot be allocated on a machine with tens of GB under the
    /// kernel's default overcommit heuristic, so an allocation before the check would trap; the
    /// RSS bound additionally shows nothing of the claimed size was touched.
    private func peakGrowth(_ body: () -> Void) -> Int {
        let before = peakResidentBytes()
        body()
        return peakResidentBytes() - before
    }

    @Test("the 4 KB gzip bomb is too_large under a 1 MiB ceiling, decided from its 16-byte header")
    func gzipBomb() throws {
        let bomb = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("bomb-v2-4mib.spz"))))
        #expect(bomb.count == 4102)
        let small = DecodeLimits(maxDecodedBytes: 1 << 20)
        var error: SplatError?
        let growth = peakGrowth { error = decodeError(bomb, name: "bomb.spz", limits: small) }
        // 220,000 splats × 56 bytes (degree 0) = 12,320,000 > 1,048,576: refused from the header,
        // so nothing past the first 16 inflated bytes was produced.
        #expect(error?.kind == .tooLarge)
        #expect(error?.message.contains("12320000") == true && error?.message.contains("1048576") == true, "\(String(describing: error))")
        #expect(growth < 64 << 20)
        // The same payload with a header claiming one splat passes the header check; then the
        // inflater's output cap must stop it (formats.md 2.2: at most max(1 MiB, P) past P).
        guard let payload = TestGzip.gunzip(bomb, maxBytes: mutationLimits.maxDecodedBytes) else { Issue.record("bomb does not inflate"); return }
        #expect(payload.count == 16 + 220_000 * 19)
        let lying = TestGzip.gzip(MalformedBytes.setting(payload, 8, UInt32(1)))
        let capped = decodeError(lying, name: "bomb.spz", limits: small)
        #expect(capped?.kind == .tooLarge, "\(String(describing: capped))")
        // Under the default ceiling the bomb is a valid scene of 220,000 zero splats.
        let whole = try #require(try? OutcomeCheck.decode(bomb, name: "bomb.spz", limits: DecodeLimits()).get())
        #expect(whole.scene.count == 220_000)
    }

    @Test("a v4 header claiming 2^31 splats is implausible_count; 2^31−1 in a file big enough for the ratio is too_large")
    func v4Claims() throws {
        let file = [UInt8](try Data(contentsOf: regressionFolder.appendingPathComponent("spz-v4--count-2pow31.spz")))
        #expect(MalformedBytes.u32(file, 8) == 1 << 31)
        var error: SplatError?
        var growth = peakGrowth { error = decodeError(file, name: "claim.spz", limits: DecodeLimits()) }
        #expect(error?.kind == .implausibleCount, "\(String(describing: error))")
        #expect(error?.field == "numPoints" || error?.offset == 8, "\(String(describing: error))")
        #expect(growth < 64 << 20)
        // 2³¹−1 splats pass N ≤ fileSize·1024/9 only in a file of ≥ 18,874,368 bytes. At degree 3
        // they would decode to 2147483647 × 236 = 506,806,140,692 bytes: too_large from the header.
        // The TOC is consistent (expected uncompressed sizes, streams ending at EOF), so only the
        // size can refuse it, whichever order the decoder checks the TOC and the ceiling in.
        let n = UInt64(Int32.max)
        var big = [UInt8](repeating: 0, count: 18_874_368 + 128)
        big.replaceSubrange(0..<32, with: Array(file[0..<32]))
        big = MalformedBytes.setting(big, 8, UInt32(n))
        big[12] = 3
        big[15] = 6
        let sizes: [UInt64] = [9 * n, n, 3 * n, 3 * n, 4 * n, 3 * 15 * n]
        let streamsStart = 32 + 16 * 6
        for (i, size) in sizes.enumerated() {
            let compressed = i < 5 ? UInt64(1) : UInt64(big.count - streamsStart - 5)
            big = MalformedBytes.setting(big, 32 + 16 * i, compressed)
            big = MalformedBytes.setting(big, 32 + 16 * i + 8, size)
        }
        growth = peakGrowth { error = decodeError(big, name: "claim.spz", limits: DecodeLimits()) }
        #expect(error?.kind == .tooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("506806140692") == true, "\(String(describing: error))")
        #expect(growth < 64 << 20)
    }

    @Test("a PLY claiming 10^9 SH3 vertices is too_large from its header under the default ceiling")
    func billionVertexPLY() throws {
        let file = [UInt8](try Data(contentsOf: regressionFolder.appendingPathComponent("ply--billion-vertices-sh3.ply")))
        #expect(file.starts(with: gaussianPLYHeader(count: 1_000_000_000)))
        // formats.md 8.3: 10⁹ ≤ 2³¹−1 is a valid count; at degree 3 each splat is 236 bytes, so
        // 236,000,000,000 bytes > 805,306,368: too_large, before the missing body is noticed.
        let header = try #require(try? file.withUnsafeBytes { raw in try SplatFile.readHeader(InputBytes(copying: raw, name: "claim.ply")) })
        #expect(header.count == 1_000_000_000 && header.shDegree == 3)
        let size = DecodeLimits().sizeVerdict(count: header.count, fileDegree: header.shDegree)
        #expect(size.declaredDecodedBytes == 236_000_000_000)
        #expect(!size.fitsServiceCeiling)
        var error: SplatError?
        let growth = peakGrowth { error = decodeError(file, name: "claim.ply", limits: DecodeLimits()) }
        #expect(error?.kind == .tooLarge, "\(String(describing: error))")
        #expect(error?.message.contains("236000000000") == true, "\(String(describing: error))")
        #expect(growth < 64 << 20)
        // Dropping every SH band still leaves 56,000,000,000 bytes.
        var noSH = DecodeLimits()
        noSH.maxShDegree = 0
        let degree0 = decodeError(file, name: "claim.ply", limits: noSH)
        #expect(degree0?.kind == .tooLarge && degree0?.message.contains("56000000000") == true, "\(String(describing: degree0))")
        // A claim that fits the default ceiling (3,000,000 × 236 = 708,000,000 bytes) but has no
        // body is truncated, found from count × rowSize before the scene is allocated.
        let fits = gaussianPLYHeader(count: 3_000_000) + [UInt8](repeating: 0, count: 248)
        let truncated = decodeError(fits, name: "claim.ply", limits: DecodeLimits())
        #expect(truncated?.kind == .truncated, "\(String(describing: truncated))")
    }

    // The fourth named case, a SOG whose images claim 16384 × 16384, is
    // SOGDecoderTests.hugeImagesAreRefusedBeforeAllocation; its file is replayed below and by the fuzzer.

    @Test("non-finite PLY values are dropped or kept as formats.md 8.4 says, and fail under strict")
    func nonFinitePLY() throws {
        // Four splats, SH degree 1, all finite; splat 1 gets the special value.
        let header = gaussianPLYHeader(count: 4, restCount: 9)
        let names = ["x", "y", "z", "nx", "ny", "nz", "f_dc_0", "f_dc_1", "f_dc_2"] + (0..<9).map { "f_rest_\($0)" }
            + ["opacity", "scale_0", "scale_1", "scale_2", "rot_0", "rot_1", "rot_2", "rot_3"]
        func file(_ property: String, _ value: Float) -> [UInt8] {
            var out = header
            for i in 0..<4 {
                for name in names {
                    var v: Float = name.hasPrefix("rot_0") ? 1 : name.hasPrefix("scale") ? -2 : Float(i) * 0.25
                    if i == 1, name == property { v = value }
                    out += MalformedBytes.le(v.bitPattern)
                }
            }
            return out
        }
        let cases: [(String, Float, Bool)] = [
            ("x", .nan, false), ("z", .infinity, false), ("f_dc_1", -.infinity, false), ("f_rest_8", .nan, false),
            ("rot_0", .infinity, false), ("rot_2", .nan, false), ("opacity", .nan, false),
            ("scale_0", .infinity, false), ("scale_2", .nan, false),
            ("opacity", .infinity, true), ("opacity", -.infinity, true), ("scale_1", -.infinity, true),
        ]
        for (property, value, kept) in cases {
            let bytes = file(property, value)
            let decoded = try #require(try? OutcomeCheck.decode(bytes, name: "nf.ply").get(), "\(property) = \(value)")
            #expect(OutcomeCheck.invalidValue(decoded) == nil)
            let s = decoded.scene
            if kept {
                #expect(s.count == 4, "\(property) = \(value) is kept")
                if property == "opacity" { #expect(s.alpha[1] == (value > 0 ? 1 : 0)) }
                if property == "scale_1" { #expect(s.logScaleY[1] == -.infinity && s.logScaleX[1] == -2) }
            } else {
                #expect(s.count == 3, "\(property) = \(value) is dropped")
                #expect(s.warnings.contains { $0.contains("non_finite") && $0.contains("first index 1") }, "\(s.warnings)")
                // Splats 0, 2, 3 remain in order.
                #expect(s.x[1] == 0.5 && s.x[2] == 0.75)
                var strict = mutationLimits
                strict.strict = true
                let error = decodeError(bytes, name: "nf.ply", limits: strict)
                #expect(error?.kind == .nonFinite && error?.field == "splat 1", "\(String(describing: error))")
            }
        }
    }

    @Test(".splat: σ = 0 keeps a −∞ log-scale; NaN, negative and +∞ σ and NaN positions are dropped")
    func nonFiniteDotSplat() throws {
        func record(x: Float, sigma: Float) -> [UInt8] {
            var out: [UInt8] = []
            for v in [x, 1, 2, sigma, 0.5, 0.5] { out += MalformedBytes.le(v.bitPattern) }
            return out + [200, 100, 50, 255, 255, 128, 128, 128]
        }
        let cases: [(Float, Float, Bool)] = [(.nan, 1, false), (.infinity, 1, false), (0, .nan, false), (0, -1, false),
                                             (0, .infinity, false), (0, 0, true), (0, -0.0, true), (0, 1e-45, true)]
        for (x, sigma, kept) in cases {
            let bytes = record(x: 1, sigma: 1) + record(x: x, sigma: sigma) + record(x: 3, sigma: 1)
            let decoded = try #require(try? OutcomeCheck.decode(bytes, name: "nf.splat").get(), "x \(x), σ \(sigma)")
            #expect(OutcomeCheck.invalidValue(decoded) == nil)
            #expect(decoded.scene.count == (kept ? 3 : 2), "x \(x), σ \(sigma)")
            if kept {
                #expect(decoded.scene.logScaleX[1] == log(sigma), "x \(x), σ \(sigma)")
                #expect(decoded.scene.alpha[1] == 1)
            }
        }
    }

    @Test("header-only files fail with the kind of their missing body")
    func headerOnly() throws {
        let v4 = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal-v4.spz"))))
        let legacy = try #require(TestGzip.gunzip([UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("minimal-v3.spz")))), maxBytes: mutationLimits.maxDecodedBytes))
        let compressed = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("tiny-compressed.ply"))))
        let compressedHeader = try #require(PLYLayout(compressed)).headerEnd
        let sog = try #require(MalformedBytes.zipEntries([UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.vector("tiny.sog"))))))
        let meta = try #require(sog.entries.first { $0.name == "meta.json" })
        let cases: [(String, [UInt8], SplatErrorKind)] = [
            ("v4.spz", Array(v4[0..<32]), .badTOC),  // the TOC at 32 runs past the end
            ("v4.spz", Array(v4[0..<32 + 16 * Int(v4[15])]), .truncated),  // TOC present, streams missing
            ("v3.spz", TestGzip.gzip(Array(legacy[0..<16])), .truncated),
            ("3dgs.ply", gaussianPLYHeader(count: 4), .truncated),
            ("c.ply", Array(compressed[0..<compressedHeader]), .truncated),
            ("meta-only.sog", TestZipWriter.stored([("meta.json", meta.data)]), .truncated),
            ("zero.splat", [], .empty),
        ]
        for (name, bytes, kind) in cases {
            let error = decodeError(bytes, name: name, limits: mutationLimits)
            #expect(error?.kind == kind, "\(name): \(String(describing: error))")
        }
    }

    /// Every file in Regressions/ with the error it must produce (kind and a message fragment),
    /// or, for kind nil, a scene whose warnings include the fragment.
    static let regressions: [(file: String, kind: SplatErrorKind?, message: String)] = [
        // LeakSanitizer: the per-stream error slots of a v4 decode were freed without being
        // deinitialized, leaking every failed stream's error (fixed in SPZDecoder.decodeStreams).
        ("spz-v4--failed-stream-error-leak.spz", .corrupt, "zstd error in stream rotations"),
        // 1 KB of gzip inflating to 131,071 empty extension records after one splat: each record
        // used to add a warning and a listed record (≈ 100 bytes of memory per 8 inflated bytes,
        // so a sub-megabyte file under the default ceiling could take gigabytes). Now capped.
        ("spz-legacy--131071-empty-extension-records.spz", nil, "131071 extension records; only the first 64 are listed"),
        ("spz-v4--count-2pow31.spz", .implausibleCount, "numPoints 2147483648"),
        ("ply--billion-vertices-sh3.ply", .tooLarge, "236000000000"),
        ("sog-zip--16384-square-images.sog", .tooLarge, "16384×16384"),
        // 35 KB: meta.json deflated from 30 MiB of "0," (15.7 million JSON values). Foundation's
        // parser took 944 MB and 10 s for it; now refused from a count of separators first.
        ("sog-zip--json-value-bomb.sog", .tooLarge, "JSON values; parsing them would take about"),
    ]

    @Test("each regression input ends as recorded, and the folder holds no unlisted file")
    func regressionInputs() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: regressionFolder.path).filter { !$0.hasPrefix(".") }.sorted()
        #expect(files == Self.regressions.map(\.file).sorted())
        for (file, kind, message) in Self.regressions {
            let bytes = [UInt8](try Data(contentsOf: regressionFolder.appendingPathComponent(file)))
            switch OutcomeCheck.decode(bytes, name: file, limits: DecodeLimits()) {
            case .failure(let error):
                #expect(error.kind == kind && error.message.contains(message), "\(file): \(error)")
            case .success(let decoded):
                #expect(kind == nil, "\(file) decoded")
                #expect(OutcomeCheck.invalidValue(decoded) == nil)
                let warnings = decoded.scene.warnings
                #expect(warnings.contains { $0.contains(message) } && warnings.count <= SPZExtensionsLimit.warnings, "\(file): \(warnings.count) warnings, last \(warnings.last ?? "")")
                #expect((decoded.header.details["extensions"]?.split(separator: ",").count ?? 0) <= 64)
            }
            // And under the small ceiling the fuzzer uses.
            if case .failure(let small) = OutcomeCheck.decode(bytes, name: file, limits: DecodeLimits(maxDecodedBytes: 4 << 20)) {
                #expect(documentedKinds.contains(small.kind), "\(file): \(small)")
            }
        }
    }
}

/// How many warnings an SPZ file may produce at most: 64 listed extension warnings, their
/// summary, and the few header and trailer warnings.
private enum SPZExtensionsLimit {
    static let warnings = 64 + 8
}
