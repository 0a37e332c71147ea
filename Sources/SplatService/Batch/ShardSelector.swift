import SplatCore

/// `--shard K/N`: splits one batch across N machines without coordination. Machine K
/// (1-based, 1…N) takes the inputs whose relative path falls in bucket K-1 of N.
///
/// The bucket is Jump Consistent Hash (Lamping & Veach, 2014) over the 64-bit FNV-1a hash of
/// the path's UTF-8 bytes. Both are fixed arithmetic — no seeds, no platform or Swift `Hasher`
/// (which is randomised per process) — so every run on every machine agrees. Jump hashing
/// also means going from N to N+1 shards moves only about 1/(N+1) of the inputs.
///
/// The path is the input's path relative to the batch root as `/`-separated text, taken
/// byte for byte (no case folding or Unicode normalisation), with a leading `./` dropped.
public struct ShardSelector: Sendable, Equatable, CustomStringConvertible {
    /// 1-based shard number.
    public let index: Int
    /// How many shards the batch is split into (N).
    public let count: Int

    /// Shard `index` (1…count) of `count` (1…65536).
    public init(index: Int, count: Int) throws(SplatError) {
        guard (1...65536).contains(count) else {
            throw SplatError(.invalidArgument, "--shard: N must be 1…65536, got \(count)", field: "shard")
        }
        guard (1...count).contains(index) else {
            throw SplatError(.invalidArgument, "--shard: K must be 1…\(count), got \(index)", field: "shard")
        }
        self.index = index
        self.count = count
    }

    /// Parses `K/N`.
    public init(parsing text: String) throws(SplatError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else {
            throw SplatError(.invalidArgument, "--shard: expected K/N such as 2/8, got \"\(text)\"", field: "shard")
        }
        try self.init(index: k, count: n)
    }

    public var description: String { "\(index)/\(count)" }

    /// Whether this shard takes the input at `relativePath`.
    public func includes(_ relativePath: String) -> Bool {
        Self.shard(of: relativePath, count: count) == index
    }

    /// The 1-based shard of `relativePath` among `count`.
    public static func shard(of relativePath: String, count: Int) -> Int {
        var path = Substring(relativePath)
        while path.hasPrefix("./") { path = path.dropFirst(2) }
        return jumpHash(fnv1a64(path.utf8), buckets: count) + 1
    }

    /// FNV-1a, 64-bit (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
    public static func fnv1a64(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Jump Consistent Hash: the bucket in 0..<buckets for `key`.
    static func jumpHash(_ key: UInt64, buckets: Int) -> Int {
        var key = key
        var bucket: Int64 = -1
        var next: Int64 = 0
        while next < Int64(buckets) {
            bucket = next
            key = key &* 2_862_933_555_777_941_757 &+ 1
            next = Int64(Double(bucket + 1) * (Double(Int64(1) << 31) / Double((key >> 33) + 1)))
        }
        return Int(bucket)
    }
}
