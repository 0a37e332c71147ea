import Foundation
import TestSupport

/// What a fleet test with remote inputs runs against: its own redis-server, the HTTP test server
/// and a scratch folder. `start` stops what it already started when a later part fails, and
/// `stop` stops both servers and removes the folder, so a test needs one `defer`.
struct FleetTestBed {
    let redisServer: RedisServerProcess
    let http: HTTPTestServer
    let folder: URL

    static func start(_ tag: String) throws -> FleetTestBed {
        let redisServer = try RedisServerProcess.start()
        do {
            let http = try HTTPTestServer()
            do {
                return FleetTestBed(redisServer: redisServer, http: http, folder: try Fixtures.temporaryDirectory(tag))
            } catch {
                http.stop()
                throw error
            }
        } catch {
            redisServer.stop()
            throw error
        }
    }

    func stop() {
        try? FileManager.default.removeItem(at: folder)
        http.stop()
        redisServer.stop()
    }
}
