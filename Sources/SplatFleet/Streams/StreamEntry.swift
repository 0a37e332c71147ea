import SplatCore

/// One field of a stream entry. Values are text: every field we read or write (`job`,
/// `status`, `report`…) is UTF-8, and invalid bytes read back are replaced, not trusted.
public struct StreamField: Sendable, Equatable, CustomStringConvertible {
    public var name: String
    public var value: String

    /// The field `name` = `value`.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }

    public var description: String { "\(name)=\(value)" }
}

/// One entry of a Redis stream: its ID (`1718000000000-0`) and its fields in order.
public struct StreamEntry: Sendable, Equatable {
    /// The stream ID Redis gave it (`<milliseconds>-<sequence>`).
    public var id: String
    public var fields: [StreamField]

    /// An entry with `id` and `fields`.
    public init(id: String, fields: [StreamField]) {
        self.id = id
        self.fields = fields
    }

    /// The value of the first field called `name`.
    public subscript(name: String) -> String? {
        fields.first(where: { $0.name == name })?.value
    }

    /// Parses `[id, [field, value, …]]`; nil for an entry whose data was deleted while it was
    /// pending (Redis answers `[id, nil]`), which has nothing left to process.
    static func parse(_ reply: RedisReply) throws(SplatError) -> StreamEntry? {
        guard let pair = reply.array, pair.count == 2, let id = pair[0].string else {
            throw RedisReply.malformed("stream entry", reply)
        }
        if pair[1].isNull { return nil }
        guard let flat = pair[1].array, flat.count % 2 == 0 else { throw RedisReply.malformed("stream entry fields", reply) }
        var fields: [StreamField] = []
        fields.reserveCapacity(flat.count / 2)
        for index in stride(from: 0, to: flat.count, by: 2) {
            fields.append(StreamField(text(flat[index]), text(flat[index + 1])))
        }
        return StreamEntry(id: id, fields: fields)
    }

    private static func text(_ reply: RedisReply) -> String {
        if case .bulk(let bytes) = reply { return String(decoding: bytes, as: UTF8.self) }
        return reply.string ?? ""
    }
}

/// One entry of a group's pending-entries list, as `XPENDING … start end count` reports it.
public struct PendingEntry: Sendable, Equatable {
    public var id: String
    /// The consumer that holds it now.
    public var consumer: String
    /// Time since it was last delivered (or its lease was last extended).
    public var idleMilliseconds: Int64
    /// How many times it has been delivered: 1 after the first read, +1 per claim.
    public var deliveries: Int64
}

/// What one `XAUTOCLAIM` call returns.
public struct AutoClaimBatch: Sendable, Equatable {
    /// Where the next call should start; `0-0` when the scan went round the whole list.
    public var cursor: String
    /// Entries now held by the caller, with their data.
    public var entries: [StreamEntry]
    /// IDs that were pending but whose data is gone (trimmed or deleted); Redis 7 drops them
    /// from the pending list itself.
    public var deletedIDs: [String]
}
