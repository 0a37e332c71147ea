import SplatCore

/// The stream commands the consumer engine needs, with their replies parsed. Each is one
/// round trip; none retries (see `RedisClient.commandRetrying`).
extension RedisClient {
    /// `XGROUP CREATE stream group start MKSTREAM`: creates the group (and the stream if it is
    /// missing). Returns false when the group already existed (`BUSYGROUP`), which is the
    /// normal case for every worker after the first.
    @discardableResult
    public func createGroup(stream: String, group: String, startID: String = "0",
                            cancellation: CancellationToken = .none) throws(SplatError) -> Bool {
        let reply = try command(["XGROUP", "CREATE", stream, group, startID, "MKSTREAM"], cancellation: cancellation)
        if reply.errorCode == "BUSYGROUP" { return false }
        try reply.orThrow("XGROUP CREATE")
        return true
    }

    /// `XREADGROUP GROUP group consumer COUNT count BLOCK ms STREAMS stream >`: up to `count`
    /// never-delivered entries, waiting up to `block` for the first (nil block: do not wait).
    /// Each is now pending for `consumer` with a delivery count of 1.
    public func readGroup(stream: String, group: String, consumer: String, count: Int, block: Duration?,
                          cancellation: CancellationToken = .none) throws(SplatError) -> [StreamEntry] {
        var arguments = ["XREADGROUP", "GROUP", group, consumer, "COUNT", String(max(count, 1))]
        if let block { arguments += ["BLOCK", String(max(CancellableWait.milliseconds(block), 1))] }
        arguments += ["STREAMS", stream, ">"]
        let reply = try command(arguments, cancellation: cancellation, blockingFor: block ?? .zero).orThrow("XREADGROUP")
        if reply.isNull { return [] }
        // [[stream, [entry, …]]] — one stream asked, so at most one element.
        guard let streams = reply.array else { throw RedisReply.malformed("XREADGROUP", reply) }
        var entries: [StreamEntry] = []
        for element in streams {
            guard let pair = element.array, pair.count == 2, let list = pair[1].array else {
                throw RedisReply.malformed("XREADGROUP", reply)
            }
            for item in list { if let entry = try StreamEntry.parse(item) { entries.append(entry) } }
        }
        return entries
    }

    /// `XAUTOCLAIM stream group consumer min-idle cursor COUNT count`: takes over up to `count`
    /// entries idle for at least `minIdle` (their holder stopped extending its lease), adding
    /// one to each one's delivery count.
    public func autoClaim(stream: String, group: String, consumer: String, minIdle: Duration, cursor: String = "0-0",
                          count: Int, cancellation: CancellationToken = .none) throws(SplatError) -> AutoClaimBatch {
        let reply = try command(["XAUTOCLAIM", stream, group, consumer, String(CancellableWait.milliseconds(minIdle)),
                                 cursor, "COUNT", String(max(count, 1))], cancellation: cancellation).orThrow("XAUTOCLAIM")
        // Redis 7: [cursor, entries, deleted]; Redis 6.2: [cursor, entries] with nil data for deleted ones.
        guard let parts = reply.array, parts.count >= 2, let next = parts[0].string, let list = parts[1].array else {
            throw RedisReply.malformed("XAUTOCLAIM", reply)
        }
        var entries: [StreamEntry] = []
        var deleted: [String] = parts.count > 2 ? (parts[2].array ?? []).compactMap(\.string) : []
        for item in list {
            if let entry = try StreamEntry.parse(item) {
                entries.append(entry)
            } else if let id = item.array?.first?.string {
                deleted.append(id)
            }
        }
        return AutoClaimBatch(cursor: next, entries: entries, deletedIDs: deleted)
    }

    /// `XCLAIM stream group consumer 0 id… JUSTID`: resets the idle time of `ids` to zero and
    /// makes `consumer` their holder, without counting a delivery. Returns the IDs still
    /// pending (an acknowledged one is skipped). Used to extend a lease: check the holder
    /// first (`pending(…)`), since this takes an entry from whoever holds it.
    @discardableResult
    public func claimJustIDs(stream: String, group: String, consumer: String, ids: [String],
                             cancellation: CancellationToken = .none) throws(SplatError) -> [String] {
        guard !ids.isEmpty else { return [] }
        let reply = try command(["XCLAIM", stream, group, consumer, "0"] + ids + ["JUSTID"], cancellation: cancellation).orThrow("XCLAIM")
        guard let list = reply.array else { throw RedisReply.malformed("XCLAIM", reply) }
        return list.compactMap(\.string)
    }

    /// `XPENDING stream group start end count [consumer]`: the pending entries in the ID range,
    /// with holder, idle time and delivery count. `pending(…, from: id, to: id, count: 1)` is
    /// the delivery count of one entry.
    public func pending(stream: String, group: String, from start: String = "-", to end: String = "+", count: Int,
                        consumer: String? = nil, cancellation: CancellationToken = .none) throws(SplatError) -> [PendingEntry] {
        var arguments = ["XPENDING", stream, group, start, end, String(max(count, 1))]
        if let consumer { arguments.append(consumer) }
        let reply = try command(arguments, cancellation: cancellation).orThrow("XPENDING")
        guard let list = reply.array else { throw RedisReply.malformed("XPENDING", reply) }
        var entries: [PendingEntry] = []
        for item in list {
            guard let row = item.array, row.count == 4, let id = row[0].string, let holder = row[1].string,
                  let idle = row[2].integer, let deliveries = row[3].integer else {
                throw RedisReply.malformed("XPENDING", item)
            }
            entries.append(PendingEntry(id: id, consumer: holder, idleMilliseconds: idle, deliveries: deliveries))
        }
        return entries
    }

    /// `XRANGE stream start end COUNT count`: entries in ID order, for reading results and
    /// dead letters. Page with `start` = `(` + the last ID seen.
    public func range(stream: String, from start: String = "-", to end: String = "+", count: Int,
                      cancellation: CancellationToken = .none) throws(SplatError) -> [StreamEntry] {
        let reply = try command(["XRANGE", stream, start, end, "COUNT", String(max(count, 1))], cancellation: cancellation)
            .orThrow("XRANGE")
        guard let list = reply.array else { throw RedisReply.malformed("XRANGE", reply) }
        var entries: [StreamEntry] = []
        for item in list { if let entry = try StreamEntry.parse(item) { entries.append(entry) } }
        return entries
    }

    /// `XADD stream [MAXLEN ~ n] * field value …`: appends an entry and returns its ID.
    /// `maxLength` trims the stream approximately (whole macro-nodes), which is cheap.
    @discardableResult
    public func add(stream: String, fields: [StreamField], maxLength: Int? = nil,
                    cancellation: CancellationToken = .none) throws(SplatError) -> String {
        guard !fields.isEmpty else { throw SplatError(.invalidArgument, "XADD needs at least one field", field: "redis") }
        var arguments = ["XADD", stream]
        if let maxLength { arguments += ["MAXLEN", "~", String(max(maxLength, 1))] }
        arguments.append("*")
        for field in fields { arguments += [field.name, field.value] }
        let reply = try command(arguments, cancellation: cancellation).orThrow("XADD")
        guard let id = reply.string else { throw RedisReply.malformed("XADD", reply) }
        return id
    }

    /// `XACK stream group id…`: removes entries from the pending list; returns how many were
    /// still pending (0 for one already acknowledged, which is harmless).
    @discardableResult
    public func acknowledge(stream: String, group: String, ids: [String],
                            cancellation: CancellationToken = .none) throws(SplatError) -> Int {
        guard !ids.isEmpty else { return 0 }
        let reply = try command(["XACK", stream, group] + ids, cancellation: cancellation).orThrow("XACK")
        guard let count = reply.integer else { throw RedisReply.malformed("XACK", reply) }
        return Int(count)
    }
}
