import Foundation
import SplatCore
@testable import SplatFormats
import Testing
import TestSupport

extension PLYDecoderTests {
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
