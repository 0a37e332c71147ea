import Foundation
import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// A process a test (or a benchmark) started and runs beside it — a server, a worker — stopped
/// by its own PID (never by name), with bounded waits. Spawned with posix_spawn and reaped with
/// waitpid on its PID: Foundation's `Process` did not notice a child's exit here, which turned
/// every stop into a full timeout.
public final class SpawnedProcess: @unchecked Sendable {
    // @unchecked: used from the test's thread; `exited` is only touched under `lock`.
    public let pid: pid_t
    /// Our ends of the child's standard output (read) and input (write; closing it tells
    /// children that watch standard input to exit).
    public let stdoutFD: Int32
    public let stdinFD: Int32
    private let lock = NSLock()
    private var exited = false
    private var status: Int32?
    private var buffer: [UInt8] = []
    private var inputOpen = true

    /// Starts `executable`; its standard error goes to `standardError` (a file, appended to)
    /// or nowhere.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                standardError: String? = nil) throws {
        var outPipe: [Int32] = [0, 0], inPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&inPipe) == 0 else { throw SplatError(.io, "pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, standardError ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        for fd in outPipe + inPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environ = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + environ).forEach { free($0) } }
        // The test runner's threads block or ignore some signals, and a child inherits both:
        // redis-server would then never see SIGTERM. Start it with an empty mask and defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), defaults = sigset_t()
        sigemptyset(&none)
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGCHLD, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, &attributes, argv, environ)
        close(outPipe[1]); close(inPipe[0])
        guard status == 0 else {
            close(outPipe[0]); close(inPipe[1])
            throw SplatError(.io, "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        stdoutFD = outPipe[0]
        stdinFD = inPipe[1]
        // Our stdin end must not leak into later children, or they would keep it open.
        _ = fcntl(stdinFD, F_SETFD, FD_CLOEXEC)
        _ = fcntl(stdoutFD, F_SETFD, FD_CLOEXEC)
    }

    public var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        if exited { return false }
        var raw: Int32 = 0
        let reaped = waitpid(pid, &raw, WNOHANG)
        if reaped == pid { status = raw }
        // ECHILD: someone else reaped it (a SIGCHLD handler in the test runner).
        if reaped == pid || (reaped < 0 && errno == ECHILD) { exited = true }
        return !exited
    }

    /// The exit code once it exited normally; nil while running, when killed by a signal, or
    /// when someone else reaped it.
    public var exitCode: Int32? {
        guard !isRunning else { return nil }
        lock.lock(); defer { lock.unlock() }
        guard let status, status & 0x7f == 0 else { return nil }
        return (status >> 8) & 0xff
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

    /// SIGKILL, as a crash would; waits (bounded) for the process to be reaped.
    public func kill9() {
        if isRunning { kill(pid, SIGKILL) }
        waitForExit(timeout: .seconds(10))
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
        while isRunning && ContinuousClock.now < end { Thread.sleep(forTimeInterval: 0.005) }
        return !isRunning
    }

    /// Closes the child's standard input (once; later calls do nothing).
    public func closeInput() {
        lock.lock(); defer { lock.unlock() }
        if inputOpen { close(stdinFD) }
        inputOpen = false
    }

    deinit {
        stop(timeout: .seconds(2))
        close(stdoutFD)
        closeInput()
    }
}

/// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick for port 0).
public func freeLocalPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Polls `condition` every 10 ms for up to `timeout`; true once it holds.
public func eventually(timeout: Duration = .seconds(20), _ condition: () throws -> Bool) rethrows -> Bool {
    let end = ContinuousClock.now + timeout
    while ContinuousClock.now < end {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return try condition()
}
