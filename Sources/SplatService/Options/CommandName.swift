/// The commands `splatrender` knows. `render` is also what runs when the first argument is not a
/// command name (`splatrender scene.spz --out a.png`).
public enum CommandName: String, CaseIterable, Sendable {
    case render
    case turntable
    case thumbnails
    case info
    case convert
    case worker
    case help
}
