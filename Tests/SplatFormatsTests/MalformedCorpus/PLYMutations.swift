import SplatCore

/// Structure-aware damage to PLY and compressed PLY seeds.
extension MalformedInputs {
    // PLY and compressed PLY (formats.md 3, 4, 8.4).
    static func ply(_ b: [UInt8], compressed: Bool, full: Bool) -> [Mutation] {
        guard let layout = PLYLayout(b) else { return [] }
        var out: [Mutation] = []
        // Cuts inside the header: no end_header.
        for end in layout.lineEnds.dropLast() {
            out.append(Mutation(label: "header cut at \(end)", bytes: Array(b[0..<end]), expect: .failure([.badHeader, .badMagic])))
        }
        for cut in [1, 3] { out.append(Mutation(label: "cut at \(cut)", bytes: Array(b[0..<cut]), expect: .failure([.badMagic]))) }
        // Cuts in the body: at each element start, after its first row and before its last.
        let vertexIndex = layout.elements.firstIndex { $0.name == "vertex" }
        for (index, (element, start)) in zip(layout.elements, layout.elementStarts).enumerated() {
            guard let start, let row = element.rowSize, layout.binary else { continue }
            // An element after `vertex` may be ignored; one before it (or vertex itself) is needed.
            let needed = vertexIndex.map { index <= $0 } ?? true
            let ends = element.count > 0 ? [start, start + row, start + row * element.count - 1] : [start]
            for cut in ends where cut < b.count {
                out.append(Mutation(label: "cut in element \(element.name) at \(cut)", bytes: Array(b[0..<cut]),
                                    expect: needed && element.count > 0 ? .failure([.truncated]) : .anyOutcome))
            }
        }
        out.append(Mutation(label: "header only", bytes: Array(b[0..<layout.headerEnd]),
                            expect: layout.elements.allSatisfy({ $0.count == 0 }) ? .anyOutcome : .failure([.truncated])))
        // Counts set to extremes, as decimal text.
        for (index, element) in layout.elements.enumerated() {
            let texts = ["0", "1", "2", "-1", "2147483647", "4294967295", "9223372036854775808", "18446744073709551615",
                         "99999999999999999999999"]
            for text in texts where text != String(element.count) {
                var copy = Array(b[0..<element.line.lowerBound]) + Array("element \(element.name) \(text)".utf8)
                copy += b[element.line.upperBound...]
                out.append(Mutation(label: "element \(element.name) count \(text)", bytes: copy,
                                    expect: countExpectation(text, element: element.name, compressed: compressed,
                                                             afterVertex: vertexIndex.map { index > $0 } ?? false)))
            }
        }
        // Non-finite floats in the first and last vertex rows (binary little-endian floats only).
        if layout.format == "binary_little_endian", let v = vertexIndex, let start = layout.elementStarts[v],
           let row = layout.elements[v].rowSize, layout.elements[v].count > 0, !compressed {
            let element = layout.elements[v]
            for name in ["x", "opacity", "scale_0", "rot_0", "f_dc_0", "f_rest_0"] {
                guard let property = element.offsets[name], property.type == "float" || property.type == "float32" else { continue }
                for (label, value) in [("NaN", Float.nan), ("+inf", Float.infinity), ("-inf", -Float.infinity)] {
                    for rowIndex in Set([0, element.count - 1]) {
                        let at = start + rowIndex * row + property.offset
                        guard at + 4 <= b.count else { continue }
                        out.append(Mutation(label: "\(name) of row \(rowIndex) = \(label)",
                                            bytes: MalformedBytes.setting(b, at, value.bitPattern),
                                            expect: .scene(count: element.count - (nonFiniteKept(name, value) ? 0 : 1))))
                    }
                }
            }
        }
        return out
    }

    /// formats.md 8.4: ±∞ opacity and a −∞ log-scale are kept; everything else non-finite is dropped.
    static func nonFiniteKept(_ property: String, _ value: Float) -> Bool {
        if value.isNaN { return false }
        if property == "opacity" { return true }
        if property.hasPrefix("scale_") { return value < 0 }
        return false
    }

    static func countExpectation(_ text: String, element: String, compressed: Bool, afterVertex: Bool) -> Mutation.Expectation {
        switch text {
        case "0", "1", "2":
            // Fewer rows than the body holds reads as a shorter file (other elements may then
            // misparse): any documented outcome.
            return .anyOutcome
        case "2147483647":
            // Fits the count grammar; the decoded size is far over 64 MiB. A compressed PLY may
            // first see its chunk count disagree (bad_header), and an element other than vertex
            // only runs out of bytes.
            if element == "vertex" { return .failure(compressed ? [.tooLarge, .badHeader] : [.tooLarge]) }
            // Elements after vertex are never read (formats.md 3.1).
            return afterVertex ? .anyOutcome : .failure([.truncated, .badHeader, .tooLarge])
        default:
            // Negative, above 2³¹−1 or overflowing: the count grammar rejects it.
            return .failure([.badHeader])
        }
    }
}
