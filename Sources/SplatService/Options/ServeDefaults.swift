import SplatCore

/// The documented defaults of `splatrender serve`: its option rows show them and the server's
/// configuration starts from them, so help and behaviour cannot drift apart.
public enum ServeDefaults {
    /// Where the server listens (`--listen`): loopback only, so exposing it is a deliberate choice.
    public static let listen = "127.0.0.1:8080"
    /// Jobs run at once (`--workers`): one per core, since each job's stages already use every
    /// core and more would only interleave them.
    public static var workers: Int { AdmissionController.defaultWorkers }
    /// Jobs that may wait for a worker and a reservation (`--queue`): twice the workers.
    public static func queue(workers: Int) -> Int { AdmissionController.defaultQueueLimit(workers: workers) }
    /// Bytes the running jobs' estimated peaks may add up to (`--memory-budget`): twice the
    /// 768 MiB service ceiling, so two ceiling-sized scenes can run at once.
    public static let memoryBudgetBytes = AdmissionController.defaultMemoryBudgetBytes
    /// The largest request body (`--max-body-bytes`) under `limits`: the largest input file the
    /// decode limits admit in any format (`DecodeLimits.inputByteLimit`: 4 × the ceiling, 3 GiB
    /// by default, because an ASCII PLY takes ~3.25 bytes of text per decoded byte). A body
    /// larger than the memory budget is still refused early, by its estimate.
    public static func maxBodyBytes(limits: DecodeLimits = DecodeLimits()) -> Int { limits.inputByteLimit }
    /// Every request's deadline unless it asks for less (`--request-timeout`), in seconds.
    public static let requestTimeoutSeconds = 30.0
    /// How long SIGTERM lets requests in flight and queued finish (`--grace`), in seconds.
    public static let graceSeconds = 20.0
}
