/// The program's name and version, as `--version`, help and the server's `Server` header say.
public enum ProgramInfo {
    public static let name = "splatrender"
    public static let version = "0.2.0"
}
