import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a program with `posix_spawn` and waits for it with `wait4`, timing it from spawn to exit.
///
/// Peak memory needs care: Linux carries `ru_maxrss` across `execve`, and a spawned child starts
/// as a copy of this (large) process, so `wait4`'s figure for a direct child is at least this
/// process's own peak. `measuringPeakMemory` therefore runs the program under GNU
/// `/usr/bin/time`, whose child is forked from a small process; without it the `wait4` figure is
/// kept and marked as an upper bound.
struct ChildProcess {
    struct Outcome {
        /// Exit status, or 128 + signal number when the child was killed.
        var status: Int32
        var stdout: String
        var wallMilliseconds: Double
        /// User + system time of the child and the children it waited for.
        var cpuMilliseconds: Double
        /// Peak resident set of the child, in bytes.
        var maxResidentBytes: Int
        /// Whether `maxResidentBytes` is the program's own (GNU time) or an upper bound (`wait4`).
        var peakIsExact: Bool
        var succeeded: Bool { status == 0 }
    }

    /// Runs `executable` with `arguments`. With `captureOutput` the child's standard output is
    /// returned (standard error passes through unless `quiet`); without it standard output is
    /// discarded. Throws only when the child cannot be started.
    static func run(_ executable: String, _ arguments: [String], captureOutput: Bool = false,
                    quiet: Bool = false, measuringPeakMemory: Bool = false) throws -> Outcome {
        let time = "/usr/bin/time"
        if measuringPeakMemory, FileManager.default.isExecutableFile(atPath: time) {
            let report = FileManager.default.temporaryDirectory.appendingPathComponent("splat-bench-time-\(getpid())").path
            defer { unlink(report) }
            var outcome = try spawn(time, ["-f", "%M", "-o", report, executable] + arguments,
                                    captureOutput: captureOutput, quiet: quiet)
            let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
            // The last line is the figure; a killed child adds a "Command terminated" line before it.
            guard let kib = text.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw ChildProcessError("\(time) wrote no peak memory for \(executable)")
            }
            outcome.maxResidentBytes = kib * 1024
            outcome.peakIsExact = true
            return outcome
        }
        return try spawn(executable, arguments, captureOutput: captureOutput, quiet: quiet)
    }

    private static func spawn(_ executable: String, _ arguments: [String], captureOutput: Bool,
                              quiet: Bool) throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }

        var pipeEnds: [Int32] = [-1, -1]
        if captureOutput {
            guard pipe(&pipeEnds) == 0 else { throw ChildProcessError("pipe: \(String(cString: strerror(errno)))") }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
            posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
            posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }

        let clock = ContinuousClock()
        let start = clock.now
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        if captureOutput { close(pipeEnds[1]) }
        guard spawned == 0 else {
            if captureOutput { close(pipeEnds[0]) }
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }

        var output = [UInt8]()
        if captureOutput {
            var chunk = [UInt8](repeating: 0, count: 1 << 14)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                output.append(contentsOf: chunk[0..<n])
            }
            close(pipeEnds[0])
        }

        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw ChildProcessError("wait4: \(String(cString: strerror(errno)))") }
        }
        let elapsed = clock.now - start
        // Exit code in bits 8–15 when the low 7 bits (the terminating signal) are zero.
        let signal = status & 0x7f
        let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return Outcome(status: code, stdout: String(decoding: output, as: UTF8.self),
                       wallMilliseconds: Stopwatch.milliseconds(elapsed),
                       cpuMilliseconds: Stopwatch.timevalMilliseconds(usage.ru_utime) + Stopwatch.timevalMilliseconds(usage.ru_stime),
                       maxResidentBytes: Int(usage.ru_maxrss) * 1024, peakIsExact: false)
    }

    /// This executable's own path, for running it as a child.
    static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}

struct ChildProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
