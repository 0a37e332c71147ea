import Foundation
import SplatCore
import SplatFleet
import TestSupport
import Testing

extension FleetTests {
    @Suite struct RedisClientTests {
        @Test func repliesOfEveryShape() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            #expect(try redis.command(["PING"]) == .status("PONG"))
            // Binary-safe both ways: NUL and non-UTF-8 bytes survive.
            let value: [UInt8] = [0, 1, 2, 0xff, 0, 0x41]
            #expect(try redis.command(bytes: [Array("SET".utf8), Array("k\0ey".utf8), value]) == .status("OK"))
            #expect(try redis.command(bytes: [Array("GET".utf8), Array("k\0ey".utf8)]) == .bulk(value))
            #expect(try redis.command(["GET", "missing"]) == .null)
            #expect(try redis.command(["INCRBY", "n", "41"]) == .integer(41))
            #expect(try redis.command(["RPUSH", "list", "a", "", "c"]) == .integer(3))
            #expect(try redis.command(["LRANGE", "list", "0", "-1"]) == .array([.bulk(Array("a".utf8)), .bulk([]), .bulk(Array("c".utf8))]))
            let error = try redis.command(["NOSUCHCOMMAND"])
            #expect(error.errorCode == "ERR")
            #expect(throws: SplatError.self) { try error.orThrow("NOSUCHCOMMAND") }
            do {
                try error.orThrow("NOSUCHCOMMAND")
            } catch {
                #expect(error.kind == .invalidArgument)
            }
            #expect(redis.stats.connects == 1)
        }

        @Test func streamCommandsAndDeliveryCounts() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            #expect(try redis.createGroup(stream: "s", group: "g"))
            #expect(try !redis.createGroup(stream: "s", group: "g"), "BUSYGROUP is tolerated")
            let first = try redis.add(stream: "s", fields: [StreamField("job", "{\"id\":\"a\"}")])
            let second = try redis.add(stream: "s", fields: [StreamField("job", "b"), StreamField("extra", "x")])
            #expect(try redis.readGroup(stream: "s", group: "g", consumer: "alice", count: 1, block: nil)
                    == [StreamEntry(id: first, fields: [StreamField("job", "{\"id\":\"a\"}")])])
            let rest = try redis.readGroup(stream: "s", group: "g", consumer: "alice", count: 10, block: .milliseconds(10))
            #expect(rest.map(\.id) == [second])
            #expect(rest.first?["extra"] == "x")
            // Nothing new: a blocking read times out into an empty list.
            #expect(try redis.readGroup(stream: "s", group: "g", consumer: "alice", count: 10, block: .milliseconds(50)).isEmpty)

            let pending = try redis.pending(stream: "s", group: "g", count: 10)
            #expect(pending.map(\.id) == [first, second])
            #expect(pending.allSatisfy { $0.consumer == "alice" && $0.deliveries == 1 })

            // A lease extension keeps the holder and the count, and resets the idle time.
            Thread.sleep(forTimeInterval: 0.05)
            #expect(try redis.claimJustIDs(stream: "s", group: "g", consumer: "alice", ids: [first]) == [first])
            let extended = try redis.pending(stream: "s", group: "g", from: first, to: first, count: 1)
            #expect(extended.first?.deliveries == 1)
            #expect((extended.first?.idleMilliseconds ?? 999) < 50)

            // A claim of entries idle past min-idle moves them and counts a delivery.
            let none = try redis.autoClaim(stream: "s", group: "g", consumer: "bob", minIdle: .seconds(60), count: 10)
            #expect(none.entries.isEmpty)
            Thread.sleep(forTimeInterval: 0.06)
            let claimed = try redis.autoClaim(stream: "s", group: "g", consumer: "bob", minIdle: .milliseconds(50), count: 10)
            #expect(claimed.entries.map(\.id).contains(second))
            #expect(claimed.cursor == "0-0")
            let moved = try redis.pending(stream: "s", group: "g", from: second, to: second, count: 1)
            #expect(moved.first?.consumer == "bob")
            #expect(moved.first?.deliveries == 2)

            #expect(try redis.acknowledge(stream: "s", group: "g", ids: [first, second]) == 2)
            #expect(try redis.acknowledge(stream: "s", group: "g", ids: [first]) == 0)
            #expect(try redis.pending(stream: "s", group: "g", count: 10).isEmpty)

            // A pending entry whose data was deleted is reported, not returned.
            let doomed = try redis.add(stream: "s", fields: [StreamField("job", "gone")])
            _ = try redis.readGroup(stream: "s", group: "g", consumer: "alice", count: 1, block: nil)
            _ = try redis.command(["XDEL", "s", doomed])
            let sweep = try redis.autoClaim(stream: "s", group: "g", consumer: "bob", minIdle: .zero, count: 10)
            #expect(sweep.entries.isEmpty)
            #expect(sweep.deletedIDs == [doomed])

            let trimmed = try redis.add(stream: "r", fields: [StreamField("a", "1")], maxLength: 1)
            #expect(!trimmed.isEmpty)
        }

        @Test func reconnectsAfterARestartOnTheSamePort() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            #expect(try redis.command(["SET", "kept", "1"]) == .status("OK"))
            server.shutdownSaving()
            // The first command after the drop fails fast with a transient error…
            var sawIO = false
            do { _ = try redis.command(["GET", "kept"]) } catch { sawIO = error.kind == .io }
            #expect(sawIO)
            try server.launch()
            // …and once the server is back the next one reconnects, keeping the saved data.
            let back = ContinuousClock.now
            let reply = try redis.commandRetrying(["GET", "kept"], limit: .seconds(10))
            print("reconnect: first reply \(ContinuousClock.now - back) after the restarted server answered PING")
            #expect(reply == .bulk(Array("1".utf8)))
            #expect(redis.stats.connects >= 2)
        }

        @Test func rideOutAnOutageWithinALimit() throws {
            let server = try RedisServerProcess.start()
            defer { server.stop() }
            let redis = server.client()
            _ = try redis.command(["SET", "k", "v"])
            server.shutdownSaving()
            let restarter = Thread { try? server.launch() }
            let began = ContinuousClock.now
            restarter.start()
            let reply = try redis.commandRetrying(["GET", "k"], limit: .seconds(15))
            #expect(reply == .bulk(Array("v".utf8)))
            #expect(ContinuousClock.now - began < .seconds(15))
            #expect(eventually(timeout: .seconds(10)) { server.child?.isRunning == true })
        }

        @Test func unreachableServerIsTransientAndCancellable() throws {
            // A port nobody listens on (freshly released by the kernel).
            let redis = RedisClient(url: RedisURL(host: "127.0.0.1", port: freeLocalPort()), options: .testing)
            var kinds: [SplatErrorKind] = []
            do { try redis.connect() } catch { kinds.append(error.kind) }
            for _ in 0..<3 {
                do { _ = try redis.command(["PING"]) } catch { kinds.append(error.kind) }
            }
            #expect(kinds == [.io, .io, .io, .io])
            #expect(redis.stats.failedConnects == 4)
            // A cancelled token ends the backoff wait at once with the token's kind.
            let token = CancellationToken()
            token.cancel(.interrupted)
            do {
                _ = try redis.command(["PING"], cancellation: token)
                Issue.record("expected an error")
            } catch {
                #expect(error.kind == .interrupted)
            }
            #expect(throws: SplatError.self) { try redis.commandRetrying(["PING"], limit: .milliseconds(200)) }
        }

        @Test func passwordAndDatabase() throws {
            let server = try RedisServerProcess.start(["--requirepass", "s3cr@t:x"])
            defer { server.stop() }
            let url = try RedisURL(parsing: "redis://:s3cr%40t%3Ax@127.0.0.1:\(server.port)/3")
            let redis = RedisClient(url: url, options: .testing)
            #expect(try redis.command(["SET", "where", "db3"]) == .status("OK"))
            let other = RedisClient(url: try RedisURL(parsing: "redis://:s3cr%40t%3Ax@127.0.0.1:\(server.port)"), options: .testing)
            #expect(try other.command(["GET", "where"]) == .null)
            #expect(try other.command(["SELECT", "3"]) == .status("OK"))
            #expect(try other.command(["GET", "where"]) == .bulk(Array("db3".utf8)))

            let wrong = RedisClient(url: try RedisURL(parsing: "redis://:nope@127.0.0.1:\(server.port)"), options: .testing)
            do {
                _ = try wrong.command(["PING"])
                Issue.record("expected a refused login")
            } catch {
                #expect(error.kind == .invalidArgument, "a wrong password is permanent: \(error)")
                #expect(!error.message.contains("nope"))
            }
        }
    }
}
