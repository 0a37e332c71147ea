/// Hands out output bases whose output names do not collide with each other or with reserved
/// names (the batch report inside the output folder).
struct StemAllocator {
    private var taken: Set<String> = []

    /// `reserved`: paths relative to the output folder that no output may take.
    init(reserved: [String] = []) {
        taken = Set(reserved.map { $0.lowercased() })
    }

    mutating func allocate(_ base: String) -> String {
        var candidate = base
        var n = 1
        while Self.outputNames(candidate).contains(where: taken.contains) {
            n += 1
            candidate = "\(base)-\(n)"
        }
        taken.formUnion(Self.outputNames(candidate))
        return candidate
    }

    static func outputNames(_ stem: String) -> [String] {
        [stem, stem + ".png", stem + ".sheet.png", stem + ".webp", stem + ".jpg", stem + ".jpeg"].map { $0.lowercased() }
    }
}
