import SplatCore

/// Placeholder.
enum ConvertCommand {
    static func run(_ context: CommandContext) -> Int32 {
        context.fail(SplatError(.unsupported, "convert is not available yet"), .internalError)
    }
}
