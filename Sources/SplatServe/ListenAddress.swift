/// A `HOST:PORT` to listen on, as `--listen` and `SPLATRENDER_LISTEN` spell it: `127.0.0.1:8080`,
/// `0.0.0.0:80`, `[::1]:8080`, `localhost:0` or `:8080` (all IPv4 interfaces). Port 0 asks the
/// system for a free port; `HTTPServer.port` tells which it gave.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    /// The default, loopback only: exposing the server is a deliberate choice.
    public static let defaultValue = ListenAddress(host: "127.0.0.1", port: 8080)

    /// A numeric IPv4 or IPv6 address (`localhost` is stored as `127.0.0.1`).
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT`; nil when it is not of that form or the port is not 0…65535.
    public init?(parsing text: String) {
        var host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            if host.contains(":") { return nil }
        }
        guard let port = Int(portText), (0...65535).contains(port) else { return nil }
        if host.isEmpty { host = "0.0.0.0" }
        if host == "localhost" { host = "127.0.0.1" }
        self.host = String(host)
        self.port = port
    }

    /// Whether the host is an IPv6 literal.
    public var isIPv6: Bool { host.contains(":") }

    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
