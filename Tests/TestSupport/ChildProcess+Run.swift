import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ChildProcess {
    /// What a program run to its end wrote, and how it ended.
    public struct Completed: Sendable {
        /// nil when someone else reaped it.
        public var termination: Termination?
        public var stdout: [UInt8]
        public var stderr: [UInt8]

        public var succeeded: Bool { termination == .exited(0) }
        /// The exit code when it exited normally.
        public var exitCode: Int32? {
            guard case .exited(let code)? = termination else { return nil }
            return code
        }
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        public var stderrText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// Runs `executable` (a path) with `arguments` to its end, standard input from /dev/null,
    /// and returns its standard output and error (read as they come, so neither pipe fills and
    /// blocks it). Throws when it cannot start, or when it has not finished after `timeout`
    /// (it is then stopped).
    public static func run(_ executable: String, _ arguments: [String],
                           timeout: Duration = .seconds(600)) throws -> Completed {
        let child = try ChildProcess(executable, arguments, stdin: .null, stdout: .pipe, stderr: .pipe)
        let end = ContinuousClock.now + timeout
        var output: [Int32: [UInt8]] = [child.stdoutFD: [], child.stderrFD: []]
        var open = [child.stdoutFD, child.stderrFD]
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while !open.isEmpty && ContinuousClock.now < end {
            var pollers = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            guard poll(&pollers, nfds_t(pollers.count), 50) > 0 else { continue }
            for poller in pollers where poller.revents != 0 {
                let n = read(poller.fd, &chunk, chunk.count)
                if n > 0 {
                    output[poller.fd]! += chunk[0..<n]
                } else if n == 0 || errno != EINTR {
                    open.removeAll { $0 == poller.fd }
                }
            }
        }
        guard open.isEmpty, child.waitForExit(timeout: max(end - ContinuousClock.now, .seconds(10))) else {
            child.stop()
            throw ChildProcessError("\(executable) did not finish within \(timeout)")
        }
        return Completed(termination: child.termination, stdout: output[child.stdoutFD]!, stderr: output[child.stderrFD]!)
    }
}
