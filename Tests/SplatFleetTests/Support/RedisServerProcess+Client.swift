import SplatFleet
import TestSupport

extension RedisServerProcess {
    var url: RedisURL { RedisURL(host: "127.0.0.1", port: port) }

    func client(_ options: RedisClient.Options = .testing) -> RedisClient { RedisClient(url: url, options: options) }
}

extension RedisClient.Options {
    /// Short timeouts and backoff so tests that restart servers move quickly.
    static var testing: RedisClient.Options {
        var options = RedisClient.Options()
        options.connectTimeout = .seconds(2)
        options.commandTimeout = .seconds(5)
        options.backoffBase = .milliseconds(20)
        options.backoffCap = .milliseconds(300)
        return options
    }
}
