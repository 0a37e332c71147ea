import SplatCore

/// Placeholder until SplatRender lands.
enum RenderCommand {
    static func run(_ context: CommandContext) -> Int32 {
        context.fail(SplatError(.unsupported, "rendering is not available yet"), .internalError)
    }
}
