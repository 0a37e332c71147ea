import SplatCore

/// Leases: how a live worker keeps its entries and how stale ones change hands.
extension StreamConsumer {
    /// Resets the idle time of every entry this worker still holds, so `XAUTOCLAIM`
    /// elsewhere (min-idle = lease) leaves them alone. `XCLAIM` takes an entry from whoever
    /// holds it, so each entry's holder is checked first (`XPENDING` on its ID): one another
    /// worker already claimed is not taken back, and its job here is cancelled, since the
    /// other worker runs it now. A claim landing between the check and the `XCLAIM` is
    /// possible only for an entry already idle past its lease; it costs a duplicate run.
    func extendLeases(cancellation: CancellationToken) throws(SplatError) {
        let c = configuration
        let held = state.withLock { state in state.held.filter { !$0.value.lost }.map { ($0.key, $0.value.cancellation) } }
        guard !held.isEmpty else { return }
        var mine: [String] = []
        for (id, token) in held {
            let rows = try reader.pending(stream: c.stream, group: c.group, from: id, to: id, count: 1, cancellation: cancellation)
            // Not pending any more: acknowledged in the meantime.
            guard let row = rows.first, row.id == id else { continue }
            if row.consumer == c.consumer {
                mine.append(id)
            } else {
                state.withLock { $0.held[id]?.lost = true }
                token.cancel(.cancelled)
                log("entry \(id) was claimed by \(row.consumer); cancelling it here")
            }
        }
        let extended = try reader.claimJustIDs(stream: c.stream, group: c.group, consumer: c.consumer, ids: mine,
                                               cancellation: cancellation)
        counters.update { $0.leaseExtensions += extended.count }
    }

    /// Claims up to `count` entries idle past the lease and starts them with their delivery
    /// count as the attempt. Returns whether the scan has more of the pending list to cover.
    func claimStale(count: Int) throws(SplatError) -> Bool {
        let c = configuration
        let cursor = state.withLock { $0.claimCursor }
        let batch = try reader.autoClaim(stream: c.stream, group: c.group, consumer: c.consumer, minIdle: c.lease,
                                         cursor: cursor, count: count, cancellation: stopToken)
        state.withLock { $0.claimCursor = batch.cursor }
        for id in batch.deletedIDs {
            log("pending entry \(id) was deleted from \(c.stream) before it finished; dropped from the group")
        }
        for entry in batch.entries {
            if state.withLock({ $0.held[entry.id] != nil }) { continue }
            // XAUTOCLAIM does not report delivery counts; XPENDING on the ID does.
            let rows = try reader.pending(stream: c.stream, group: c.group, from: entry.id, to: entry.id, count: 1,
                                          cancellation: stopToken)
            guard let row = rows.first, row.id == entry.id, row.consumer == c.consumer else { continue }
            counters.update { $0.claimed += 1 }
            log("claimed entry \(entry.id) (delivery \(row.deliveries), idle past the lease)")
            start(entry, attempt: Int(clamping: row.deliveries), claimed: true)
        }
        return batch.cursor != "0-0"
    }
}
