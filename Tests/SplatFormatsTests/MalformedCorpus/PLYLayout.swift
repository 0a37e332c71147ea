

/// Just enough of a PLY header to find elements, rows and float properties in a seed.
struct PLYLayout {
    struct Element {
        var name: String
        var count: Int
        /// Byte offsets of each property inside a binary row; nil when a row has a list.
        var offsets: [String: (offset: Int, type: String)]
        var rowSize: Int?
        /// Byte range of the `element <name> <count>` line in the header.
        var line: Range<Int>
    }

    var format: String
    var headerEnd: Int
    var lineEnds: [Int]
    var elements: [Element]

    static let sizes = ["char": 1, "int8": 1, "uchar": 1, "uint8": 1, "short": 2, "int16": 2, "ushort": 2, "uint16": 2,
                        "int": 4, "int32": 4, "uint": 4, "uint32": 4, "float": 4, "float32": 4, "double": 8, "float64": 8]

    init?(_ bytes: [UInt8]) {
        guard let marker = MalformedBytes.find(Array("end_header".utf8), in: bytes),
              let newline = MalformedBytes.find([0x0A], in: bytes, from: marker) else { return nil }
        headerEnd = newline + 1
        format = ""
        lineEnds = []
        elements = []
        var start = 0
        for i in 0..<headerEnd where bytes[i] == 0x0A {
            lineEnds.append(i + 1)
            let words = String(decoding: bytes[start..<i], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if words.first == "format", words.count > 1 { format = words[1] }
            if words.first == "element", words.count == 3, let count = Int(words[2]) {
                elements.append(Element(name: words[1], count: count, offsets: [:], rowSize: 0, line: start..<i))
            }
            if words.first == "property", var element = elements.popLast() {
                if words.count == 3, let size = Self.sizes[words[1]], let row = element.rowSize {
                    element.offsets[words[2]] = (row, words[1])
                    element.rowSize = row + size
                } else {
                    element.rowSize = nil
                }
                elements.append(element)
            }
            start = i + 1
        }
    }

    var binary: Bool { format.hasPrefix("binary") }

    /// Where each element's rows start in a binary body (nil after an element with lists).
    var elementStarts: [Int?] {
        var at: Int? = headerEnd
        return elements.map { element in
            defer { at = at.flatMap { a in element.rowSize.map { a + $0 * element.count } } }
            return at
        }
    }
}
