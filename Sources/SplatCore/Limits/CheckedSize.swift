/// Overflow-checked arithmetic for size computations on untrusted numbers.
public enum CheckedSize {
    /// a × b, or nil on overflow or a negative operand.
    @inlinable public static func mul(_ a: Int, _ b: Int) -> Int? {
        guard a >= 0, b >= 0 else { return nil }
        let (r, o) = a.multipliedReportingOverflow(by: b)
        return o ? nil : r
    }

    /// a + b, or nil on overflow or a negative operand.
    @inlinable public static func add(_ a: Int, _ b: Int) -> Int? {
        guard a >= 0, b >= 0 else { return nil }
        let (r, o) = a.addingReportingOverflow(b)
        return o ? nil : r
    }

    /// A u64 from a file as Int, or nil when it does not fit (values ≥ 2^63).
    @inlinable public static func int(_ v: UInt64) -> Int? {
        v <= UInt64(Int.max) ? Int(v) : nil
    }
}
