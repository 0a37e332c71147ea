import Foundation
import Testing
@testable import SplatService

@Suite struct OpenFileLimitTests {
    @Test func theConnectionCapacityLeavesTheServersOwnAndEachJobsDescriptors() {
        // 1,024 descriptors, 6 job places: 1024 − 64 − 48.
        #expect(OpenFileLimit.connectionCapacity(configured: 1024, softLimit: 1024, jobPlaces: 6) == 912)
        // Plenty of descriptors: the configured limit holds.
        #expect(OpenFileLimit.connectionCapacity(configured: 1024, softLimit: 65536, jobPlaces: 6) == 1024)
        #expect(OpenFileLimit.connectionCapacity(configured: 1024, softLimit: Int.max, jobPlaces: 6) == 1024)
        // Fewer than the reserve: still a few connections, never zero or negative.
        #expect(OpenFileLimit.connectionCapacity(configured: 1024, softLimit: 100, jobPlaces: 6) == 8)
        #expect(OpenFileLimit.connectionCapacity(configured: 4, softLimit: 100, jobPlaces: 6) == 4)
    }

    @Test func theLimitsReadBackAndRaisingReachesTheHardLimit() throws {
        let now = try #require(OpenFileLimit.current)
        #expect(now.soft <= now.hard)
        let raised = try #require(OpenFileLimit.raiseSoftToHard())
        #expect(raised.before == now)
        #expect(raised.after.hard == now.hard)
        // The hard limit, or the kernel's ceiling when the hard limit is unlimited.
        if now.hard != Int.max { #expect(raised.after.soft == now.hard) } else { #expect(raised.after.soft >= now.soft) }
        #expect(OpenFileLimit.current == raised.after)
    }

    @Test func openCountCountsTheDescriptorsHeld() throws {
        let held = (0..<40).map { _ in open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { for fd in held where fd >= 0 { close(fd) } }
        try #require(held.allSatisfy { $0 >= 0 })
        // Other suites open and close files in parallel, so only a lower bound is certain: the
        // 40 held here and the standard streams. (Few: the suites share one descriptor table.)
        let count = try #require(OpenFileLimit.openCount())
        #expect(count >= 43)
        #expect(count < OpenFileLimit.current?.soft ?? Int.max)
    }
}
