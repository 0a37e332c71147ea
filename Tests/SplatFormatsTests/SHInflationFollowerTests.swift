import Foundation
import SplatCore
@testable import SplatFormats
import Synchronization
import Testing
import TestSupport

/// A v4 file's SH codes are converted to floats in place while the stream still inflates
/// (`SHInflationFollower`), and `shInPlace` converts what the follower left. Whatever the split,
/// every float must be (code − 128)/128 and no code may be overwritten before it is read.
@Suite struct SHInflationFollowerTests {
    static func codes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    static func expected(_ codes: [UInt8]) -> [Float] { codes.map { (Float($0) - 128) / 128 } }

    /// A region of `codes.count` floats with the codes in its last quarter, and the first
    /// `converted` floats already converted.
    static func region(_ codes: [UInt8], converted: Int) -> UnsafeMutableRawPointer {
        let count = codes.count
        let region = UnsafeMutableRawPointer.allocate(byteCount: 4 * count, alignment: 64)
        region.initializeMemory(as: UInt8.self, repeating: 0xEE, count: 4 * count)
        codes.withUnsafeBytes { (region + 3 * count).copyMemory(from: $0.baseAddress!, byteCount: count) }
        let floats = region.assumingMemoryBound(to: Float.self)
        for j in 0..<converted { floats[j] = (Float(codes[j]) - 128) / 128 }
        return region
    }

    static func floats(_ region: UnsafeMutableRawPointer, count: Int) -> [Float] {
        Array(UnsafeBufferPointer(start: region.assumingMemoryBound(to: Float.self), count: count))
    }

    @Test(arguments: [0, 1, 4_097, 74_999, 75_000])
    func shInPlaceSkipsWhatIsConvertedAndConvertsTheRest(_ converted: Int) {
        let codes = Self.codes(100_000, seed: 3)
        let region = Self.region(codes, converted: converted)
        defer { region.deallocate() }
        // Small chunks, so the conversion takes several rounds after the skipped part.
        SPZDequantizer.shInPlace(region, count: codes.count, chunk: 1 << 10, converted: converted)
        #expect(Self.floats(region, count: codes.count) == Self.expected(codes))
    }

    @Test func theFollowerConvertsWhileTheStreamInflatesAndNeverPastIt() throws {
        let count = 3 << 20
        let codes = Self.codes(count, seed: 11)
        let region = Self.region(codes, converted: 0)
        defer { region.deallocate() }
        // The codes are "inflated" from a copy, piece by piece, as a stream would be.
        nonisolated(unsafe) let target = region + 3 * count
        target.initializeMemory(as: UInt8.self, repeating: 0x55, count: count)
        let follower = SHInflationFollower(region: region, count: count)
        let sawConversion = Flag()
        let inflater = Thread {
            try? follower.inflate { progress in
                codes.withUnsafeBytes { src in
                    let piece = 1 << 16
                    var made = 0
                    while made < count {
                        let n = min(piece, count - made)
                        (target + made).copyMemory(from: src.baseAddress! + made, byteCount: n)
                        made += n
                        progress(made)
                        // Halfway, hold the stream until the follower has converted something
                        // (bounded: a starved follower fails the expectation below instead).
                        if made >= count / 2, !sawConversion.value.load(ordering: .relaxed) {
                            let deadline = Date().addingTimeInterval(20)
                            while follower.converted == 0, Date() < deadline { usleep(200) }
                            sawConversion.value.store(follower.converted > 0, ordering: .relaxed)
                        }
                    }
                }
            }
        }
        inflater.start()
        // Until the stream has started, the follower would return at once.
        let started = Date().addingTimeInterval(20)
        while follower.converted == 0, Date() < started {
            follower.follow(cancellation: nil)
            if follower.converted == 0 { usleep(100) }
        }
        let stopped = Date().addingTimeInterval(20)
        while !inflater.isFinished, Date() < stopped { usleep(1_000) }
        #expect(inflater.isFinished)
        let saw = sawConversion.value.load(ordering: .relaxed)
        #expect(saw, "the follower converted nothing while the stream was held")
        #expect(follower.converted > 0 && follower.converted <= follower.convertibleWhileInflating)
        SPZDequantizer.shInPlace(region, count: count, converted: follower.converted)
        #expect(Self.floats(region, count: count) == Self.expected(codes))
    }

    /// With the small streams' packed bytes just below the codes, the follower converts up to
    /// them and no further until they are dequantized, then goes on; the bytes stay untouched
    /// until then and every float comes out right.
    @Test func theFollowerStopsBelowReservedBytesUntilTheyAreFree() throws {
        let count = 3 << 20
        let reserved = 5 << 20
        let codes = Self.codes(count, seed: 17)
        let region = Self.region(codes, converted: 0)
        defer { region.deallocate() }
        nonisolated(unsafe) let packed = region + 3 * count - reserved
        packed.initializeMemory(as: UInt8.self, repeating: 0xAB, count: reserved)
        let follower = SHInflationFollower(region: region, count: count, reservedBelowCodes: reserved)
        let ceiling = (3 * count - reserved) / 4
        #expect(ceiling < follower.convertibleWhileInflating)
        var untouchedBefore = false, convertedBefore = 0, convertedAfter = 0
        let worker = Thread { follower.follow(cancellation: nil) }
        try follower.inflate { progress in
            progress(count)
            worker.start()
            // The follower works in steps of `step` codes; wait until it has come within one of the ceiling.
            var deadline = Date().addingTimeInterval(20)
            while follower.converted < ceiling - SHInflationFollower.step, Date() < deadline { usleep(500) }
            usleep(20_000)
            convertedBefore = follower.converted
            untouchedBefore = UnsafeRawBufferPointer(start: packed, count: reserved).allSatisfy { $0 == 0xAB }
            follower.geometryDequantized()
            deadline = Date().addingTimeInterval(20)
            while follower.converted <= ceiling, Date() < deadline { usleep(500) }
            convertedAfter = follower.converted
            // Leaving the closure ends the stream; the follower then returns.
        }
        #expect(convertedBefore >= ceiling - SHInflationFollower.step && convertedBefore <= ceiling)
        #expect(untouchedBefore, "the follower wrote into the reserved bytes before they were free")
        #expect(convertedAfter > ceiling && convertedAfter <= follower.convertibleWhileInflating)
        // The stream has ended: the follower returns after at most the run it is in.
        let stopped = Date().addingTimeInterval(20)
        while !worker.isFinished, Date() < stopped { usleep(1_000) }
        try #require(worker.isFinished)
        SPZDequantizer.shInPlace(region, count: count, converted: follower.converted)
        #expect(Self.floats(region, count: count) == Self.expected(codes))
    }

    final class Flag: Sendable {
        let value = Atomic<Bool>(false)
    }

    @Test func aFollowerLeavesEverythingWhenTheStreamIsNotInflating() {
        let codes = Self.codes(4 << 20, seed: 5)
        let region = Self.region(codes, converted: 0)
        defer { region.deallocate() }
        let follower = SHInflationFollower(region: region, count: codes.count)
        follower.follow(cancellation: nil)
        #expect(follower.converted == 0)
        try? follower.inflate { progress in progress(codes.count) }
        follower.follow(cancellation: nil)
        #expect(follower.converted == 0)
        SPZDequantizer.shInPlace(region, count: codes.count, converted: follower.converted)
        #expect(Self.floats(region, count: codes.count) == Self.expected(codes))
    }
}
