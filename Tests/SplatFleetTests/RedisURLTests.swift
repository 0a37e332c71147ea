import SplatCore
import SplatFleet
import Testing

extension FleetTests {
    @Suite struct RedisURLTests {
        @Test func parsesEveryPart() throws {
            #expect(try RedisURL(parsing: "redis://cache.internal:6380") == RedisURL(host: "cache.internal", port: 6380))
            #expect(try RedisURL(parsing: "redis://localhost") == RedisURL(host: "localhost", port: 6379))
            #expect(try RedisURL(parsing: "redis://:pw@10.0.0.5:7000/2") == RedisURL(host: "10.0.0.5", port: 7000, password: "pw", database: 2))
            #expect(try RedisURL(parsing: "redis://worker:p%40ss@h:1/") == RedisURL(host: "h", port: 1, user: "worker", password: "p@ss"))
            #expect(try RedisURL(parsing: "redis://secret@h") == RedisURL(host: "h", password: "secret"))
            #expect(try RedisURL(parsing: "REDIS://[::1]:6390/1") == RedisURL(host: "::1", port: 6390, database: 1))
        }

        @Test func refusesMalformedURLsWithoutEchoingThePassword() {
            let bad = ["http://h:1", "rediss://h:1", "redis://", "redis://h:0", "redis://h:65536", "redis://h:x",
                       "redis://h/-1", "redis://h/db", "redis://[::1", "redis://h h:1", "redis://h:1?x=1",
                       "redis://:p%zz@h:1", "redis://::1:6379"]
            for text in bad {
                do {
                    _ = try RedisURL(parsing: text)
                    Issue.record("\(text) parsed")
                } catch {
                    #expect(error.kind == .invalidArgument, "\(text)")
                }
            }
            do {
                _ = try RedisURL(parsing: "redis://:hunter2@h:99999")
            } catch {
                #expect(!error.message.contains("hunter2"))
            }
            #expect(RedisURL(host: "h", password: "hunter2").description == "redis://:***@h:6379")
        }
    }
}
