import SplatCore
import SplatService
import Testing

extension FleetTests {
    @Suite struct ShardSelectorTests {
        @Test func parsesKOverN() throws {
            #expect(try ShardSelector(parsing: "2/8") == ShardSelector(index: 2, count: 8))
            #expect(try ShardSelector(parsing: "1/1").description == "1/1")
            for bad in ["0/4", "5/4", "1/0", "-1/3", "1", "1/2/3", "a/b", "", "1/70000", " 1/2"] {
                #expect(throws: SplatError.self, "\(bad)") { try ShardSelector(parsing: bad) }
            }
        }

        /// Values computed by an independent Python implementation of FNV-1a 64 + jump hash,
        /// so a change of hash (or of its input) shows up here before it re-shards a fleet.
        @Test func knownPathsLandOnKnownShards() {
            #expect(ShardSelector.fnv1a64("a".utf8) == 0xaf63_dc4c_8601_ec8c)  // the published FNV-1a test vector
            #expect(ShardSelector.fnv1a64("scenes/garden.spz".utf8) == 0x11d0_1373_5e09_6825)
            let expected: [String: [Int]] = [
                "a.ply": [1, 1, 1, 4, 4, 13],
                "scenes/garden.spz": [1, 2, 3, 3, 3, 3],
                "scenes/bicycle/meta.json": [1, 2, 2, 2, 2, 2],
                "Ünïcode/szene.sog": [1, 1, 1, 1, 7, 7],
                ".hidden/x.splat": [1, 1, 1, 1, 8, 13],
            ]
            for (path, shards) in expected {
                #expect([1, 2, 3, 4, 8, 16].map { ShardSelector.shard(of: path, count: $0) } == shards, "\(path)")
            }
            #expect(ShardSelector.shard(of: "./scenes/garden.spz", count: 3) == 3, "a leading ./ is not part of the path")
        }

        @Test func shardsAreBalancedAndEveryPathHasExactlyOne() throws {
            let paths = (0..<12_000).map { "batch/scene-\($0).spz" }
            for count in [2, 3, 4, 7, 16] {
                let selectors = try (1...count).map { try ShardSelector(index: $0, count: count) }
                var sizes = [Int](repeating: 0, count: count)
                for path in paths {
                    let takers = selectors.filter { $0.includes(path) }
                    #expect(takers.count == 1)
                    sizes[takers[0].index - 1] += 1
                }
                let fair = Double(paths.count) / Double(count)
                #expect(sizes.allSatisfy { abs(Double($0) - fair) < fair * 0.1 }, "\(count) shards: \(sizes)")
            }
        }

        @Test func growingTheFleetMovesPathsOnlyToTheNewShard() {
            let paths = (0..<5000).map { "s/\($0).ply" }
            for count in 1..<12 {
                var moved = 0
                for path in paths {
                    let before = ShardSelector.shard(of: path, count: count)
                    let after = ShardSelector.shard(of: path, count: count + 1)
                    #expect(after == before || after == count + 1)
                    if after != before { moved += 1 }
                }
                let expected = Double(paths.count) / Double(count + 1)
                #expect(abs(Double(moved) - expected) < expected * 0.2, "\(count)→\(count + 1): \(moved) moved")
            }
        }
    }
}
