import Foundation
import Testing
@testable import SplatCore

@Suite struct CancellationTokenTests {
    @Test func aDeadlineFromAWiderScopeIsNamedInTheError() throws {
        // A server request's deadline around a job that has none of its own.
        let request = CancellationToken(budget: .milliseconds(20))
        let job = CancellationToken(budget: nil, parent: request)
        Thread.sleep(forTimeInterval: 0.05)
        #expect(job.reason == .deadline)
        let error = job.error(for: .deadline, at: "while rendering")
        #expect(error.kind == .timeout)
        #expect(error.message == "deadline of 0.02 s expired while rendering")
        // The job's own deadline, when it is the one that passed, is named instead.
        let own = CancellationToken(budget: .milliseconds(10), parent: CancellationToken(budget: .seconds(60)))
        Thread.sleep(forTimeInterval: 0.03)
        #expect(own.error(for: .deadline, at: "now").message == "deadline of 0.01 s expired now")
    }
}
