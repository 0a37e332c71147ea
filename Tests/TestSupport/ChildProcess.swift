import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A process a test started, stopped by its own PID (never by name), with bounded waits.
/// Spawned with posix_spawn and reaped with waitpid on its PID: Foundation's `Process` did not
/// notice a child's exit here, which turned every stop into a full timeout.
///
/// The child starts with an empty signal mask and default dispositions for the signals tests
/// send or rely on: the test runner's threads block or ignore some signals, and a child would
/// inherit both (redis-server would never see SIGTERM; splatrender would never die of SIGPIPE
/// nor see SIGINT).
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: used from the test's thread; the exit state is only touched under `lock`.

    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// A pipe whose other end the test holds (`stdinFD`, `stdoutFD`, `stderrFD`).
        case pipe
        /// /dev/null.
        case null
        /// A file: read for standard input; created or truncated for output (a device such as
        /// /dev/full is opened as it is).
        case file(String)
        /// A file output is appended to (a log several runs share).
        case appended(String)
    }

    /// How the child ended.
    public enum Termination: Equatable, Sendable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        public var description: String {
            switch self {
            case .exited(let code): "exit \(code)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    public let pid: pid_t
    /// Our ends of the pipes: the child's standard output and error (read) and input (write;
    /// closing it tells children that read standard input that it ended). -1 when not a pipe.
    public let stdoutFD: Int32
    public let stderrFD: Int32
    public let stdinFD: Int32
    private let lock = NSLock()
    private var exited = false
    private var status: Int32?
    private var sampledPeak: Int?
    private var cpu: Double?
    private var buffer: [UInt8] = []
    private var inputOpen: Bool
    private var outputOpen: Bool

    /// Starts `executable` with standard input and output as pipes and standard error appended
    /// to the file `standardError` (or discarded): how servers and workers are started.
    public convenience init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                            standardError: String?) throws {
        try self.init(executable, arguments, environment: environment,
                      stderr: standardError.map { .appended($0) } ?? .null)
    }

    /// Starts `executable` (a path) with `arguments`. The defaults suit servers the tests talk
    /// to: standard input and output are pipes, standard error goes to /dev/null.
    /// `pipeBufferBytes` sets the size of the standard-output pipe (F_SETPIPE_SZ; the kernel
    /// rounds it up to a page), for tests that need a writer to block early.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                stdin: Stream = .pipe, stdout: Stream = .pipe, stderr: Stream = .null,
                pipeBufferBytes: Int? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var ours: [Int32] = [], theirs: [Int32] = []
        func redirect(_ stream: Stream, to target: Int32) throws -> Int32 {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
                return -1
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, target == 0 ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                return -1
            case .appended(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
                return -1
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw ChildProcessError("pipe failed: \(String(cString: strerror(errno)))") }
                let (mine, child) = target == 0 ? (ends[1], ends[0]) : (ends[0], ends[1])
                posix_spawn_file_actions_adddup2(&actions, child, target)
                ours.append(mine)
                theirs.append(child)
                // Our end must not leak into later children, or they would keep the pipe open.
                _ = fcntl(mine, F_SETFD, FD_CLOEXEC)
                return mine
            }
        }
        let inFD = try redirect(stdin, to: 0)
        let outFD = try redirect(stdout, to: 1)
        let errFD = try redirect(stderr, to: 2)
        if let pipeBufferBytes, outFD >= 0 { _ = fcntl(outFD, 1031 /* F_SETPIPE_SZ */, Int32(pipeBufferBytes)) }
        for fd in ours + theirs { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environ = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + environ).forEach { free($0) } }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGCHLD, SIGPIPE, SIGHUP, SIGXFSZ] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        for fd in theirs { close(fd) }
        guard spawned == 0 else {
            for fd in ours { close(fd) }
            throw ChildProcessError("cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        stdinFD = inFD
        stdoutFD = outFD
        stderrFD = errFD
        inputOpen = inFD >= 0
        outputOpen = outFD >= 0
    }

    public var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        if exited { return false }
        var raw: Int32 = 0
        var usage = rusage()
        let reaped = wait4(pid, &raw, WNOHANG, &usage)
        if reaped == pid {
            status = raw
            cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        // ECHILD: someone else reaped it (a SIGCHLD handler in the test runner).
        if reaped == pid || (reaped < 0 && errno == ECHILD) { exited = true }
        return !exited
    }

    /// The exit code once it exited normally; nil while running, when killed by a signal, or
    /// when someone else reaped it.
    public var exitCode: Int32? {
        guard case .exited(let code)? = termination else { return nil }
        return code
    }

    /// User + system CPU seconds the process used, once it exited and this object reaped it.
    public var cpuSeconds: Double? {
        guard !isRunning else { return nil }
        lock.lock(); defer { lock.unlock() }
        return cpu
    }

    /// How it ended; nil while running or when someone else reaped it.
    public var termination: Termination? {
        guard !isRunning else { return nil }
        lock.lock(); defer { lock.unlock() }
        guard let status else { return nil }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    /// The child's peak resident set size in bytes as last seen while it ran: `VmHWM` of
    /// /proc/PID/status, sampled by `waitForExit` every few milliseconds (and by `sampleMemory`).
    /// Not `ru_maxrss`: a posix_spawn child runs on the parent's memory until exec, and the
    /// kernel folds that high-water mark into the child's, so every child of a big test runner
    /// would seem as big as the runner.
    public var peakResidentBytes: Int? {
        lock.lock(); defer { lock.unlock() }
        return sampledPeak
    }

    /// Reads the child's `VmHWM` now (nothing once it has exited).
    public func sampleMemory() {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Int(line.dropFirst("VmHWM:".count).filter(\.isNumber)) else { return }
        lock.lock(); defer { lock.unlock() }
        sampledPeak = max(sampledPeak ?? 0, kib * 1024)
    }

    /// Reads standard output until a line satisfying `match` appears, for up to `timeout`.
    public func waitForLine(timeout: Duration, _ match: (String) -> Bool) -> String? {
        let end = ContinuousClock.now + timeout
        while true {
            while let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                if match(line) { return line }
            }
            guard ContinuousClock.now < end else { return nil }
            var poller = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(stdoutFD, &chunk, chunk.count)
            if n <= 0 { return nil }
            buffer += chunk[0..<n]
        }
    }

    /// Reads up to `count` bytes of standard output, waiting at most `timeout` (fewer at its end).
    public func readOutput(_ count: Int, timeout: Duration) -> [UInt8] {
        let end = ContinuousClock.now + timeout
        var out: [UInt8] = []
        while out.count < count && ContinuousClock.now < end {
            var poller = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 50) > 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: count - out.count)
            let n = read(stdoutFD, &chunk, chunk.count)
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    /// SIGKILL, as a crash would; waits (bounded) for the process to be reaped.
    public func kill9() {
        if isRunning { kill(pid, SIGKILL) }
        waitForExit(timeout: .seconds(10))
    }

    /// Sends `signal` to the child while it runs.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// SIGTERM, then SIGKILL if it is still running after `timeout`.
    public func stop(timeout: Duration = .seconds(10)) {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        if !waitForExit(timeout: timeout) {
            kill(pid, SIGKILL)
            waitForExit(timeout: .seconds(5))
        }
    }

    @discardableResult
    public func waitForExit(timeout: Duration) -> Bool {
        let end = ContinuousClock.now + timeout
        while isRunning && ContinuousClock.now < end {
            sampleMemory()
            Thread.sleep(forTimeInterval: 0.002)
        }
        return !isRunning
    }

    /// Closes the child's standard input (once; later calls do nothing).
    public func closeInput() {
        lock.lock(); defer { lock.unlock() }
        if inputOpen { close(stdinFD) }
        inputOpen = false
    }

    /// Closes our end of the child's standard output (once), as a reader that went away does:
    /// the child's next write to it fails with EPIPE.
    public func closeOutput() {
        lock.lock(); defer { lock.unlock() }
        if outputOpen { close(stdoutFD) }
        outputOpen = false
    }

    deinit {
        stop(timeout: .seconds(2))
        closeOutput()
        if stderrFD >= 0 { close(stderrFD) }
        closeInput()
    }
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
