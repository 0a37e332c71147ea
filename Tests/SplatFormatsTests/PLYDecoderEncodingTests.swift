import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

/// Types, encodings and layout: every scalar type and encoding reads alike, properties by name.
extension PLYDecoderTests {
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
}
