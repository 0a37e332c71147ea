import SplatCore

/// The documented defaults of `splatrender worker`: its option rows show them and the fleet
/// engine's configuration starts from them, so help and behaviour cannot drift apart.
public enum WorkerDefaults {
    /// The stream jobs are read from (`--stream`).
    public static let stream = "splatrender:jobs"
    /// The consumer group every worker of a fleet joins (`--group`).
    public static let group = "splatrender"
    /// Where one entry per finished job goes (`--results`).
    public static let results = "splatrender:results"
    /// Where given-up jobs go (`--dead`).
    public static let dead = "splatrender:dead"
    /// How long an entry may sit idle in a worker's hands before another claims it (`--lease`).
    public static let leaseSeconds = 60.0
    /// Deliveries a job gets before a transient failure sends it to the dead stream.
    public static let maxAttempts = 3
    /// How long SIGTERM lets running jobs finish before cancelling them (they stay pending).
    public static let graceSeconds = 30.0
    /// Jobs run at once (`--concurrency`): one per core, since each job's stages already use
    /// every core and more would only interleave them.
    public static var concurrency: Int { Parallel.processorCount }
    /// Bytes the running jobs' estimated peaks may add up to (`--memory-budget`), as for `serve`.
    public static let memoryBudgetBytes = AdmissionController.defaultMemoryBudgetBytes
}
