/// Where the single view's image goes.
public enum ImageTarget: Sendable, Equatable {
    /// Written atomically to this path.
    case file(String)
    /// Returned in `JobOutcome.imageBytes` (the command line writes it to standard output, the
    /// server into its response).
    case caller
}
