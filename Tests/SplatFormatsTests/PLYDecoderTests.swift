import Foundation
import Testing
import SplatCore
@testable import SplatFormats
import TestSupport

/// Decodes bytes with a decoder entry point, turning the closure-based buffer access into a
/// typed throw.
func withTestBytes<T>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) throws(SplatError) -> T) throws(SplatError) -> T {
    let result: Result<T, SplatError> = bytes.withUnsafeBytes { raw in Result { () throws(SplatError) in try body(raw) } }
    return try result.get()
}

/// The kind of error `body` throws, or nil when it succeeds.
func thrownKind<T>(_ body: () throws(SplatError) -> T) -> SplatErrorKind? {
    do { _ = try body(); return nil } catch { return error.kind }
}

func readFixtureBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

@Suite("PLYDecoder")
struct PLYDecoderTests {
    static func decode(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> DecodedScene {
        try withTestBytes(bytes) { raw throws(SplatError) in try PLYDecoder.decode(raw, file: "test.ply", limits: limits) }
    }

    static func header(_ bytes: [UInt8], limits: DecodeLimits = DecodeLimits()) throws(SplatError) -> SceneHeader {
        try withTestBytes(bytes) { raw throws(SplatError) in try PLYDecoder.readHeader(raw, file: "test.ply", limits: limits) }
    }

    // MARK: - Test vectors

    @Test("tiny 3DGS vectors match expected.json", arguments: ["tiny-3dgs-le.ply", "tiny-3dgs-ascii.ply", "tiny-3dgs-be.ply"])
    func vectors(name: String) throws {
        let expected = try #require(try Fixtures.expectedVectors()[name])
        let bytes = try readFixtureBytes(Fixtures.vector(name))
        let decoded = try Self.decode(bytes)
        #expect(ExpectedSplats.mismatches(decoded.scene, expected: expected).isEmpty,
                "\(ExpectedSplats.mismatches(decoded.scene, expected: expected))")
        #expect(decoded.header.details["ply_format"] == expected["ply_format"] as? String)
        #expect(decoded.scene.conventionalFrame == .rdf)
        // formats.md 3.2: sh[0] comes from f_rest_0, f_rest_3, f_rest_6.
        #expect(decoded.scene.shCoefficient(0, 0) == SIMD3<Float>(0.125, -0.125, 0.0625))

        let header = try Self.header(bytes)
        #expect(header.count == expected["num_points"] as? Int)
        #expect(header.shDegree == expected["sh_degree"] as? Int)
        #expect(header.model.rawValue == expected["model"] as? String)
        #expect(header.format == .ply)
    }

    @Test("the same vectors through SplatFile")
    func vectorsThroughSplatFile() throws {
        let vectors = try Fixtures.expectedVectors()
        for name in ["tiny-3dgs-le.ply", "tiny-3dgs-be.ply"] {
            let decoded = try SplatFile.decode(path: Fixtures.vector(name))
            #expect(ExpectedSplats.mismatches(decoded.scene, expected: vectors[name]!).isEmpty)
        }
    }

    @Test("bad PLY vectors fail with their expected kind")
    func badVectors() throws {
        let vectors = try Fixtures.expectedVectors()
        let bad = vectors.keys.filter { $0.hasPrefix("bad-ply-") }.sorted()
        #expect(bad.count >= 3)
        for name in bad {
            let want = try #require(vectors[name]?["error"] as? String)
            let bytes = try readFixtureBytes(Fixtures.vector(name))
            do {
                _ = try Self.decode(bytes)
                Issue.record("\(name) decoded; expected \(want)")
            } catch {
                #expect(error.kind.rawValue == want, "\(name): \(error)")
                if name == "bad-ply-truncated.ply" {
                    #expect(error.message == "element vertex needs 208 bytes, 201 left")
                }
            }
        }
    }

    // MARK: - Corpus

    static let corpusFiles: [(file: String, count: Int, degree: Int)] = {
        guard let manifest = try? Fixtures.manifest(), let files = manifest["files"] as? [[String: Any]] else { return [] }
        return files.compactMap { f in
            guard let file = f["file"] as? String, file.hasPrefix("ply/"),
                  let n = f["splat_count"] as? Int, let d = f["sh_degree"] as? Int else { return nil }
            return (file, n, d)
        }
    }()

    @Test("corpus PLYs decode with the manifest's count and degree")
    func corpusCounts() throws {
        // Every PLY in the corpus folder has a manifest entry (so a new file cannot go untested).
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Fixtures.corpusFile("ply"))
            .filter { $0.hasSuffix(".ply") }.map { "ply/" + $0 }.sorted()
        #expect(Self.corpusFiles.map(\.file).sorted() == onDisk)
        #expect(Self.corpusFiles.count >= 6)
        for entry in Self.corpusFiles {
            let bytes = try readFixtureBytes(Fixtures.corpusFile(entry.file))
            let header = try Self.header(bytes)
            #expect(header.count == entry.count, "\(entry.file)")
            #expect(header.shDegree == entry.degree, "\(entry.file)")
            let decoded = try Self.decode(bytes)
            #expect(decoded.scene.count == entry.count, "\(entry.file)")
            #expect(decoded.scene.shDegree == entry.degree, "\(entry.file)")
            #expect(decoded.scene.model == .default)
        }
    }

    @Test("corpus PLYs match splat_ref.py on a sample of splats", .enabled(if: SplatRefSampler.available))
    func corpusAgainstReference() throws {
        for entry in Self.corpusFiles {
            let path = Fixtures.corpusFile(entry.file)
            let sample = try SplatRefSampler.sample(path)
            #expect(sample.indices.count >= min(entry.count, 40))
            let decoded = try Self.decode(try readFixtureBytes(path))
            let problems = SplatRefSampler.mismatches(decoded.scene, sample)
            #expect(problems.isEmpty, "\(entry.file): \(problems.prefix(5))")
        }
    }

    // MARK: - Types, encodings, layout

    static let typeSpellings: [(String, String)] = [
        ("char", "int8"), ("uchar", "uint8"), ("short", "int16"), ("ushort", "uint16"),
        ("int", "int32"), ("uint", "uint32"), ("float", "float32"), ("double", "float64"),
    ]

    @Test("all eight scalar types under both spellings, in all three encodings")
    func scalarTypes() throws {
        for encoding in [PLYTestFile.Encoding.ascii, .littleEndian, .bigEndian] {
            for (classic, sized) in Self.typeSpellings {
                for spelling in [classic, sized] {
                    let signed = !classic.hasPrefix("u")
                    let xValue: Double = signed ? -5 : 200
                    var vertex = PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 2)
                    vertex.properties[0].type = spelling  // x
                    vertex.properties[4].type = spelling  // ny, ignored
                    for r in 0..<2 { vertex.rows[r][0] = .scalar(xValue + Double(r)) }
                    let file = PLYTestFile(encoding: encoding, elements: [vertex])
                    let scene = try Self.decode(file.bytes).scene
                    #expect(scene.x[0] == Float(xValue), "\(encoding) \(spelling)")
                    #expect(scene.x[1] == Float(xValue + 1), "\(encoding) \(spelling)")
                    #expect(scene.y[1] == -3.25, "\(encoding) \(spelling)")
                    #expect(scene.logScaleY[1] == -2, "\(encoding) \(spelling)")
                }
            }
        }
    }

    @Test("fast path and generic paths agree", arguments: [0, 1, 2, 3, 4])
    func pathsAgree(degree: Int) throws {
        let dim = SplatScene.shCoefficientCount(degree: degree)
        let names = PLYTestFile.gaussianNames(dim: dim)
        let n = 37
        let le = PLYTestFile(encoding: .littleEndian, elements: [PLYTestFile.gaussianVertex(names: names, count: n)])
        let be = PLYTestFile(encoding: .bigEndian, elements: [PLYTestFile.gaussianVertex(names: names, count: n)])
        let ascii = PLYTestFile(encoding: .ascii, elements: [PLYTestFile.gaussianVertex(names: names, count: n)])
        var doubles = PLYTestFile(encoding: .littleEndian, elements: [PLYTestFile.gaussianVertex(names: names, count: n, type: "double")])
        doubles.comments = ["mixed"]
        let reference = try Self.decode(le.bytes).scene
        #expect(reference.shDegree == degree)
        for other in [be, ascii, doubles] {
            let scene = try Self.decode(other.bytes).scene
            #expect(Self.differences(reference, scene).isEmpty, "\(other.encoding): \(Self.differences(reference, scene).prefix(3))")
        }
        // Values: the channel-major f_rest_{c·dim+k} = 0.25·(c·dim+k) + i lands at sh[i][k][c].
        for i in [0, 5, n - 1] {
            #expect(reference.x[i] == Float(1.5 + Double(i)))
            for k in 0..<dim {
                for c in 0..<3 {
                    #expect(reference.shCoefficient(i, k)[c] == Float(Double(c * dim + k) * 0.25 + Double(i)))
                }
            }
        }
        // Quaternions: (0.5, 0.5, −0.5, 0.5) for even rows, (2, 0, 0, 0) → identity for odd rows.
        #expect(reference.rotation(0) == SIMD4<Float>(0.5, 0.5, -0.5, 0.5))
        #expect(reference.rotation(1) == SIMD4<Float>(1, 0, 0, 0))
        // alpha = sigmoid(2 − i) in Double.
        for i in 0..<n {
            #expect(reference.alpha[i] == Float(1 / (1 + exp(-(2 - Double(i))))))
        }
    }

    static func differences(_ a: SplatScene, _ b: SplatScene) -> [String] {
        var out: [String] = []
        guard a.count == b.count, a.shDegree == b.shDegree else { return ["shape \(a.count)/\(a.shDegree) vs \(b.count)/\(b.shDegree)"] }
        for c in SplatScene.Column.allCases {
            for i in 0..<a.count where a.columnBase(c)[i] != b.columnBase(c)[i] {
                out.append("\(c)[\(i)] \(a.columnBase(c)[i]) vs \(b.columnBase(c)[i])")
            }
        }
        for j in 0..<a.sh.count where a.sh[j] != b.sh[j] { out.append("sh[\(j)] \(a.sh[j]) vs \(b.sh[j])") }
        return out
    }

    @Test("properties are found by name, whatever their order")
    func propertiesByName() throws {
        let names = PLYTestFile.gaussianNames(dim: 3)
        var shuffled = names
        var generator = SplitMix64(seed: 7)
        shuffled.shuffle(using: &generator)
        let ordered = try Self.decode(PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: names, count: 9)]).bytes).scene
        let mixed = try Self.decode(PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: shuffled + ["extra"], count: 9)]).bytes).scene
        #expect(Self.differences(ordered, mixed).isEmpty)
    }

    @Test("maxShDegree keeps the first coefficients of each channel")
    func maxShDegree() throws {
        let file = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 15), count: 3)])
        for cap in 0...3 {
            let scene = try Self.decode(file.bytes, limits: DecodeLimits(maxShDegree: cap)).scene
            #expect(scene.shDegree == cap)
            let dim = SplatScene.shCoefficientCount(degree: cap)
            for i in 0..<3 {
                for k in 0..<dim {
                    for c in 0..<3 { #expect(scene.shCoefficient(i, k)[c] == Float(Double(c * 15 + k) * 0.25 + Double(i))) }
                }
            }
        }
        let header = try Self.header(file.bytes, limits: DecodeLimits(maxShDegree: 1))
        #expect(header.shDegree == 3)  // The file's degree; the cap applies when decoding.
    }

    @Test("2DGS: scale_2 absent gives model 2dgs and a −∞ third log-scale")
    func twoDGS() throws {
        for encoding in [PLYTestFile.Encoding.littleEndian, .bigEndian, .ascii] {
            let names = PLYTestFile.gaussianNames(dim: 0).filter { $0 != "scale_2" }
            let file = PLYTestFile(encoding: encoding, elements: [PLYTestFile.gaussianVertex(names: names, count: 3)])
            let decoded = try Self.decode(file.bytes)
            #expect(decoded.scene.model == .twoDGS)
            #expect(decoded.header.model == .twoDGS)
            #expect(decoded.scene.logScaleZ.allSatisfy { $0 == -.infinity })
            #expect(decoded.scene.logScaleY[2] == -1.5)
            #expect(try Self.header(file.bytes).model == .twoDGS)
        }
    }

    @Test("a coloured point cloud is not_gaussian")
    func pointCloud() throws {
        let props = ["x", "y", "z"].map { PLYTestFile.Property($0) } + ["red", "green", "blue"].map { PLYTestFile.Property($0, "uchar") }
        let file = PLYTestFile(elements: [.init(name: "vertex", properties: props,
                                                rows: [[.scalar(1), .scalar(2), .scalar(3), .scalar(255), .scalar(0), .scalar(9)]])])
        #expect(thrownKind { () throws(SplatError) in try Self.decode(file.bytes) } == .notGaussian)
        #expect(thrownKind { () throws(SplatError) in try Self.header(file.bytes) } == .notGaussian)
        // Missing one required property (rot_3) is the same error.
        let partial = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0).filter { $0 != "rot_3" }, count: 1)])
        do {
            _ = try Self.decode(partial.bytes)
            Issue.record("decoded without rot_3")
        } catch {
            #expect(error.kind == .notGaussian)
            #expect(error.field == "rot_3")
        }
        // No vertex element at all.
        let faces = PLYTestFile(elements: [.init(name: "face", properties: [.init("i", "int")], rows: [[.scalar(1)]])])
        #expect(thrownKind { () throws(SplatError) in try Self.decode(faces.bytes) } == .notGaussian)
    }

    @Test("model comments: SplatRenderMode and antialiased, case-insensitive, last wins")
    func modelComments() throws {
        let cases: [([String], SplatModel)] = [
            ([], .default),
            (["SplatRenderMode: mip"], .antialiased),
            (["splatrendermode: MIP"], .antialiased),
            (["SplatRenderMode: 2dgs"], .twoDGS),
            (["SplatRenderMode: mip", "SplatRenderMode: default"], .default),
            (["antialiased 1"], .antialiased),
            (["Antialiased 1", "antialiased 0"], .default),
            (["SplatRenderMode: mip", "antialiased 0"], .default),
            (["antialiased 0", "SPLATRENDERMODE:   mip  "], .antialiased),
            (["Vertical Axis: z"], .default),
            (["antialiasedness 1"], .default),
        ]
        for (comments, model) in cases {
            var file = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 1)])
            file.comments = comments
            #expect(try Self.decode(file.bytes).scene.model == model, "\(comments)")
            #expect(try Self.header(file.bytes).model == model, "\(comments)")
        }
    }

    @Test("opacity logit → alpha, including ±∞")
    func opacity() throws {
        var vertex = PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 5)
        let logits: [Double] = [0, -.infinity, .infinity, -800, 13.8155]
        let column = vertex.properties.firstIndex { $0.name == "opacity" }!
        for (i, v) in logits.enumerated() { vertex.rows[i][column] = .scalar(v) }
        let scene = try Self.decode(PLYTestFile(elements: [vertex]).bytes).scene
        #expect(scene.alpha[0] == 0.5)
        #expect(scene.alpha[1] == 0)
        #expect(scene.alpha[2] == 1)
        #expect(scene.alpha[3] == 0)
        #expect(scene.alpha[4] == Float(1 / (1 + exp(-Double(Float(13.8155))))))
    }

    @Test("a zero-length quaternion becomes identity with a warning")
    func zeroQuaternion() throws {
        var vertex = PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 3)
        for name in ["rot_0", "rot_1", "rot_2", "rot_3"] {
            vertex.rows[1][vertex.properties.firstIndex { $0.name == name }!] = .scalar(0)
        }
        let decoded = try Self.decode(PLYTestFile(elements: [vertex]).bytes)
        #expect(decoded.scene.rotation(1) == SIMD4<Float>(1, 0, 0, 0))
        #expect(decoded.scene.rotation(0) == SIMD4<Float>(0.5, 0.5, -0.5, 0.5))
        #expect(decoded.scene.warnings.contains { $0.contains("zero-length quaternion") && $0.contains("first index 1") })
    }

    @Test("a list in the vertex element is unsupported")
    func listInVertex() throws {
        var vertex = PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 1)
        vertex.properties.append(.init("indices", "int", listCount: "uchar"))
        vertex.rows[0].append(.list([1, 2]))
        for encoding in [PLYTestFile.Encoding.littleEndian, .ascii] {
            let file = PLYTestFile(encoding: encoding, elements: [vertex])
            #expect(thrownKind { () throws(SplatError) in try Self.decode(file.bytes) } == .unsupported)
        }
    }

    @Test("elements before vertex are skipped row by row (lists too); elements after it are ignored")
    func otherElements() throws {
        let before = PLYTestFile.Element(
            name: "camera",
            properties: [.init("id", "ushort"), .init("path", "uchar", listCount: "uint"), .init("f", "double")],
            rows: [[.scalar(1), .list([1, 2, 3]), .scalar(0.5)], [.scalar(2), .list([]), .scalar(1)], [.scalar(3), .list([9]), .scalar(2)]])
        let fixed = PLYTestFile.Element(name: "meta", properties: [.init("a", "int"), .init("b", "float")],
                                        rows: [[.scalar(1), .scalar(2)]])
        var after = PLYTestFile.Element(name: "face", properties: [.init("vertex_indices", "int", listCount: "uchar")],
                                        rows: [[.list([0, 1, 2])]])
        after.declaredCount = 1000  // Incomplete, and never read.
        let vertex = PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 3), count: 4)
        let plain = try Self.decode(PLYTestFile(elements: [vertex]).bytes).scene
        for encoding in [PLYTestFile.Encoding.littleEndian, .bigEndian, .ascii] {
            let file = PLYTestFile(encoding: encoding, elements: [before, fixed, vertex, after])
            let decoded = try Self.decode(file.bytes)
            #expect(Self.differences(plain, decoded.scene).isEmpty, "\(encoding)")
            #expect(decoded.header.details["elements"] == "camera 3, meta 1, vertex 4, face 1000")
        }
    }

    @Test("CRLF header lines and padded tokens")
    func crlf() throws {
        var file = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 3), count: 2)])
        file.lineEnd = "\r\n"
        file.comments = ["SplatRenderMode: mip"]
        let decoded = try Self.decode(file.bytes)
        let plain = try Self.decode(PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 3), count: 2)]).bytes)
        #expect(Self.differences(plain.scene, decoded.scene).isEmpty)
        #expect(decoded.scene.model == .antialiased)

        let small = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 2)])
        let body = small.bytes.dropFirst(small.header.utf8.count)
        let text = small.header.replacingOccurrences(of: "element vertex 2", with: "element \t vertex    2  ")
            .replacingOccurrences(of: "property float x", with: "property  float\tx")
        let padded = try Self.decode(Array(text.utf8) + body)
        #expect(padded.scene.x[1] == 2.5)
    }

    // MARK: - Errors

    static func validHeaderLines(count: Int = 1) -> [String] {
        ["ply", "format binary_little_endian 1.0", "element vertex \(count)"]
            + PLYTestFile.gaussianNames(dim: 0).map { "property float \($0)" }
    }

    static func headerOnly(_ lines: [String]) -> [UInt8] { Array(lines.joined(separator: "\n").utf8) + [0x0A] }

    @Test("malformed headers fail with bad_header (or bad_magic)")
    func malformedHeaders() throws {
        var base = Self.validHeaderLines()
        base.append("end_header")
        let body = [UInt8](repeating: 0, count: 17 * 4)
        func kind(_ lines: [String], limits: DecodeLimits = DecodeLimits()) -> SplatErrorKind? {
            thrownKind { () throws(SplatError) in try Self.header(Self.headerOnly(lines) + body, limits: limits) }
        }
        #expect(kind(base) == nil)
        var lines = base; lines.insert("frobnicate 3", at: 2)
        #expect(kind(lines) == .badHeader, "unknown keyword")
        lines = base; lines[3] = "property float16 x"
        #expect(kind(lines) == .badHeader, "bad type")
        lines = base; lines.insert("property float y", at: 5)
        #expect(kind(lines) == .badHeader, "duplicate property")
        lines = base; lines.append(contentsOf: ["element vertex 1", "property float q"]); lines.removeAll { $0 == "end_header" }; lines.append("end_header")
        #expect(kind(lines) == .badHeader, "duplicate element")
        lines = base; lines[2] = "element vertex 2147483648"
        #expect(kind(lines) == .badHeader, "count over 2^31−1")
        lines = base; lines[2] = "element vertex 99999999999999999999999"
        #expect(kind(lines) == .badHeader, "overflowing count")
        lines = base; lines[2] = "element vertex -1"
        #expect(kind(lines) == .badHeader, "negative count")
        lines = base; lines[2] = "element vertex 1e3"
        #expect(kind(lines) == .badHeader, "malformed count")
        lines = base; lines[1] = "format binary_middle_endian 1.0"
        #expect(kind(lines) == .badHeader, "unknown format")
        lines = base; lines.remove(at: 1)
        #expect(kind(lines) == .badHeader, "no format")
        lines = base; lines.insert("property list uchar int idx", at: 3); lines[3] = "property list float int idx"
        #expect(kind(lines) == .badHeader, "float list count")
        lines = base; lines.removeLast()
        #expect(kind(lines) == .badHeader, "no end_header")
        #expect(kind(base, limits: { var l = DecodeLimits(); l.maxPlyHeaderBytes = 100; return l }()) == .badHeader,
                "end_header past the header limit")
        lines = base; lines[0] = "PLY"
        #expect(kind(lines) == .badMagic, "no ply line")
        #expect(thrownKind { () throws(SplatError) in try Self.header([]) } == .badMagic)
        #expect(thrownKind { () throws(SplatError) in try Self.header(Array("solid cube\n".utf8)) } == .badMagic)

        // f_rest: gaps or counts other than 0/9/24/45/72.
        for restNames in [(0..<9).map { $0 == 5 ? "f_rest_9" : "f_rest_\($0)" }, (0..<10).map { "f_rest_\($0)" },
                          (0..<3).map { "f_rest_\($0)" }, ["f_rest_01"] + (1..<9).map { "f_rest_\($0)" }] {
            lines = Self.validHeaderLines() + restNames.map { "property float \($0)" } + ["end_header"]
            #expect(kind(lines) == .badHeader, "\(restNames)")
        }
        lines = Self.validHeaderLines() + (0..<72).map { "property float f_rest_\($0)" } + ["end_header"]
        #expect(try Self.header(Self.headerOnly(lines)).shDegree == 4)
        // A version other than 1.0 is read with a warning.
        lines = base; lines[1] = "format binary_little_endian 1.1"
        #expect(try Self.header(Self.headerOnly(lines) + body).warnings.contains { $0.contains("1.1") })
    }

    @Test("the 1 MiB header limit: a long comment section still parses below it")
    func headerLimit() throws {
        let comment = "comment " + String(repeating: "z", count: 1000)
        var lines = Array(Self.validHeaderLines().prefix(2)) + Array(repeating: comment, count: 1000)
        lines += Array(Self.validHeaderLines().dropFirst(2)) + ["end_header"]
        let bytes = Self.headerOnly(lines) + [UInt8](repeating: 0, count: 68)
        #expect(bytes.count > 1_000_000 && bytes.count < 1 << 20)
        #expect(try Self.header(bytes).count == 1)
        lines.insert(contentsOf: Array(repeating: comment, count: 50), at: 2)
        #expect(thrownKind { () throws(SplatError) in try Self.header(Self.headerOnly(lines)) } == .badHeader)
    }

    @Test("readHeader never reads the body")
    func headerOnlyRead() throws {
        var lines = Self.validHeaderLines(count: 123_456)
        lines.insert("comment SplatRenderMode: mip", at: 2)
        lines.insert(contentsOf: (0..<24).map { "property float f_rest_\($0)" }, at: 6)
        lines.append("end_header")
        let header = try Self.header(Self.headerOnly(lines))  // No body at all.
        #expect(header.count == 123_456)
        #expect(header.shDegree == 2)
        #expect(header.model == .antialiased)
        #expect(header.details["ply_format"] == "binary_little_endian")
        #expect(thrownKind { () throws(SplatError) in try Self.decode(Self.headerOnly(lines)) } == .truncated)
    }

    @Test("huge declared counts are refused from the header before allocating")
    func hugeCounts() throws {
        let billion = Self.headerOnly(Self.validHeaderLines(count: 1_000_000_000) + ["end_header"]) + [UInt8](repeating: 0, count: 68)
        #expect(thrownKind { () throws(SplatError) in try Self.decode(billion) } == .tooLarge)
        // With a tiny ceiling, a small count whose body is absent is too_large, not truncated:
        // the size check comes from the header, before the body is looked at.
        let small = Self.headerOnly(Self.validHeaderLines(count: 1000) + ["end_header"])
        #expect(thrownKind { () throws(SplatError) in try Self.decode(small) } == .truncated)
        #expect(thrownKind { () throws(SplatError) in try Self.decode(small, limits: DecodeLimits(maxDecodedBytes: 1000)) } == .tooLarge)
        // ASCII: an impossible count is truncated before allocating.
        var ascii = Self.validHeaderLines(count: 10_000_000) + ["end_header"]
        ascii[1] = "format ascii 1.0"
        #expect(thrownKind { () throws(SplatError) in try Self.decode(Self.headerOnly(ascii) + Array("1 2 3\n".utf8)) } == .truncated)
        // The maxSplats limit.
        var limits = DecodeLimits()
        limits.maxSplats = 10
        let eleven = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 11)])
        #expect(thrownKind { () throws(SplatError) in try Self.decode(eleven.bytes, limits: limits) } == .implausibleCount)
    }

    @Test("truncated bodies and empty files")
    func truncated() throws {
        let file = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 3), count: 3)])
        let full = file.bytes
        do {
            _ = try Self.decode(Array(full.dropLast(5)))
            Issue.record("decoded a truncated body")
        } catch {
            #expect(error.kind == .truncated)
            #expect(error.message == "element vertex needs \(3 * 26 * 4) bytes, \(3 * 26 * 4 - 5) left")
        }
        var ascii = file
        ascii.encoding = .ascii
        let text = ascii.bytes
        #expect(thrownKind { () throws(SplatError) in try Self.decode(Array(text.dropLast(12))) } == .truncated)
        var garbage = text
        garbage[garbage.count - 3] = UInt8(ascii: "q")
        #expect(thrownKind { () throws(SplatError) in try Self.decode(garbage) } == .corrupt)

        // A list element before the vertex that runs past the end.
        let lists = PLYTestFile.Element(name: "strip", properties: [.init("i", "int", listCount: "uint")], rows: [[.list([1, 2])]])
        var withList = PLYTestFile(elements: [lists, PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 1)])
        withList.elements[0].declaredCount = 5
        #expect(thrownKind { () throws(SplatError) in try Self.decode(withList.bytes) } == .truncated)

        let empty = PLYTestFile(elements: [PLYTestFile.gaussianVertex(names: PLYTestFile.gaussianNames(dim: 0), count: 0)])
        #expect(thrownKind { () throws(SplatError) in try Self.decode(empty.bytes) } == .empty)
    }
}
