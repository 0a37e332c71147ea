import SplatCore
import SplatService

/// What every job request is held to, whatever its parameters say: the server's decode limits
/// (a request may lower `max-decoded-bytes` and `max-sh-degree`, or add `strict`, never relax
/// them), the memory budget a single job's estimate must fit, and the body cap.
public struct SceneServiceSettings: Sendable {
    public var limits: DecodeLimits
    /// The most one job's estimated peak may be (the admission controller's whole budget).
    public var memoryBudgetBytes: Int
    /// The largest body buffered for a job.
    public var maxBodyBytes: Int

    public init(limits: DecodeLimits = DecodeLimits(), memoryBudgetBytes: Int = ServeDefaults.memoryBudgetBytes,
                maxBodyBytes: Int? = nil) {
        self.limits = limits
        self.memoryBudgetBytes = memoryBudgetBytes
        self.maxBodyBytes = maxBodyBytes ?? ServeDefaults.maxBodyBytes(limits: limits)
    }
}
