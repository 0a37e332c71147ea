import SplatCore

/// Recording how an entry ended: result, dead letter, acknowledgement, in that order.
extension StreamConsumer {
    func finish(_ entry: StreamEntry, _ delivery: StreamDelivery, _ outcome: StreamOutcome) {
        switch outcome {
        case .done(let fields):
            let result = merged(fields, standard(delivery, entry, status: StreamResultField.ok))
            guard durably("XADD \(configuration.results)", { () throws(SplatError) in
                try writer.add(stream: configuration.results, fields: result, maxLength: configuration.resultsMaxLength,
                               cancellation: abandonToken)
            }) else { return }
            counters.update { $0.jobsByStatus[StreamResultField.ok, default: 0] += 1 }
            acknowledge(entry)
        case .permanentFailure(let error, let fields):
            giveUp(entry, delivery, error: error, reason: error.kind.rawValue, fields: fields)
        case .transientFailure(let error, let fields):
            if delivery.cancellation.isCancelled {
                // Stopped or taken over mid-job: not this attempt's fault; whoever claims it next runs it.
                counters.update { $0.leftOnStop += 1 }
                log("entry \(entry.id) left pending (attempt \(delivery.attempt) cut short): \(error)")
            } else if delivery.isLastAttempt {
                giveUp(entry, delivery, error: error, reason: StreamResultField.maxAttemptsReason, fields: fields)
            } else {
                counters.update { $0.retriesPending += 1 }
                log("entry \(entry.id) attempt \(delivery.attempt)/\(delivery.maxAttempts) failed, retried after the lease: \(error)")
            }
        }
    }

    /// An entry delivered more times than allowed: the earlier attempts left no result (their
    /// workers died, stopped or stalled past the lease), so it goes to the dead stream unrun.
    func abandon(_ entry: StreamEntry, _ delivery: StreamDelivery) {
        let error = SplatError(.interrupted,
                               "delivered \(delivery.attempt) times (max attempts \(delivery.maxAttempts)); earlier attempts " +
                               "ended without a result (worker killed, stopped, or stalled past its lease)")
        giveUp(entry, delivery, error: error, reason: StreamResultField.maxAttemptsReason, fields: abandonedFields(entry))
    }

    /// Result with the error status, then the dead letter (the job's own fields, the result
    /// fields, `reason` and `error`), then the acknowledgement.
    private func giveUp(_ entry: StreamEntry, _ delivery: StreamDelivery, error: SplatError, reason: String,
                        fields: [StreamField]) {
        let c = configuration
        let status = error.kind.rawValue
        let result = merged(fields, standard(delivery, entry, status: status))
        let letter = merged(entry.fields + fields, standard(delivery, entry, status: status) + [
            StreamField(StreamResultField.reason, reason), StreamField(StreamResultField.error, error.description),
        ])
        guard durably("XADD \(c.results)", { () throws(SplatError) in
            try writer.add(stream: c.results, fields: result, maxLength: c.resultsMaxLength, cancellation: abandonToken)
        }) else { return }
        counters.update { $0.jobsByStatus[status, default: 0] += 1 }
        guard durably("XADD \(c.dead)", { () throws(SplatError) in
            try writer.add(stream: c.dead, fields: letter, maxLength: c.deadMaxLength, cancellation: abandonToken)
        }) else { return }
        counters.update { $0.deadByReason[reason, default: 0] += 1 }
        log("entry \(entry.id) dead (\(reason)) after attempt \(delivery.attempt): \(error)")
        acknowledge(entry)
    }

    private func acknowledge(_ entry: StreamEntry) {
        let c = configuration
        _ = durably("XACK", { () throws(SplatError) in
            try writer.acknowledge(stream: c.stream, group: c.group, ids: [entry.id], cancellation: abandonToken)
        })
    }

    private func standard(_ delivery: StreamDelivery, _ entry: StreamEntry, status: String) -> [StreamField] {
        [StreamField(StreamResultField.status, status), StreamField(StreamResultField.attempt, String(delivery.attempt)),
         StreamField(StreamResultField.worker, delivery.worker), StreamField(StreamResultField.entry, entry.id)]
    }

    /// `fields` without the names the consumer writes itself, and without repeats, then `ours`.
    private func merged(_ fields: [StreamField], _ ours: [StreamField]) -> [StreamField] {
        var seen = Set(ours.map(\.name))
        var out: [StreamField] = []
        for field in fields where !StreamResultField.reserved.contains(field.name) && !seen.contains(field.name) {
            seen.insert(field.name)
            out.append(field)
        }
        return out + ours
    }

    /// Runs `operation` until it succeeds, retrying connection trouble (the client paces the
    /// retries) until the consumer gives up on in-flight work. Any other error is fatal: the
    /// keys are misconfigured, and every later entry would fail the same way. False when the
    /// operation did not happen; the entry then stays pending and is redone elsewhere.
    private func durably(_ what: String, _ operation: () throws(SplatError) -> Void) -> Bool {
        while true {
            do {
                try operation()
                return true
            } catch where error.kind == .io && !abandonToken.isCancelled {
                counters.update { $0.redisErrors += 1 }
                log("redis trouble during \(what), retrying: \(error.message)")
            } catch {
                if !abandonToken.isCancelled { fail(error) }
                return false
            }
        }
    }
}
