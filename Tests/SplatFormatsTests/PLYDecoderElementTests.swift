import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// What the header declares beyond the layout: required properties, model comments, special
/// values, other elements, line ends.
extension PLYDecoderTests {
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
}
