#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit (`RLIMIT_NOFILE`) and what a long-running process does with it.
///
/// A distribution's soft default is often 1,024 while the hard limit is far higher. `serve`
/// accepts up to 1,024 connections by default, and a process out of descriptors does not fail
/// one request: libmicrohttpd stops accepting until some connection closes, so new clients
/// wait unanswered in the kernel's backlog, and jobs that open files fail. So `serve` and
/// `worker` raise the soft limit to the hard one when they start, as nginx's
/// `worker_rlimit_nofile` and Go's runtime do, and the server sizes its connection limit to the
/// descriptors it has (`connectionCapacity`).
public enum OpenFileLimit {
    /// Soft and hard limits; `Int.max` stands for unlimited.
    public struct Limits: Sendable, Equatable {
        public var soft: Int
        public var hard: Int

        public init(soft: Int, hard: Int) {
            self.soft = soft
            self.hard = hard
        }
    }

    /// Descriptors a server keeps for itself whatever its connections: standard streams, the
    /// listening socket, an epoll set per I/O thread, `/proc` reads for the metrics, the logs.
    public static let baseReserve = 64
    /// Descriptors kept per job place (running or queued): a scene file, an output and its
    /// temporary, a transfer's socket, with room to spare.
    public static let reservePerJob = 8
    /// Connections accepted however few descriptors the reserves leave: a server that accepts
    /// none is no server.
    public static let minimumConnections = 8

    /// The limits now, or nil where they cannot be read.
    public static var current: Limits? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return Limits(soft: count(limit.rlim_cur), hard: count(limit.rlim_max))
    }

    /// Raises the soft limit to the hard one (or, when the hard one is unlimited, to the
    /// kernel's per-process ceiling `fs.nr_open`). Returns the limits before and after; `after`
    /// equals `before` when there was nothing to raise or the kernel refused.
    @discardableResult
    public static func raiseSoftToHard() -> (before: Limits, after: Limits)? {
        guard let before = current else { return nil }
        let target = before.hard == Int.max ? kernelCeiling() : before.hard
        guard target > before.soft else { return (before, before) }
        var limit = rlimit()
        limit.rlim_cur = rlim_t(target)
        limit.rlim_max = before.hard == Int.max ? unlimited : rlim_t(before.hard)
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, let after = current else { return (before, before) }
        return (before, after)
    }

    /// The connections a server with `jobPlaces` job places can hold within `softLimit`
    /// descriptors, at most `configured`.
    public static func connectionCapacity(configured: Int, softLimit: Int, jobPlaces: Int) -> Int {
        guard softLimit != Int.max else { return configured }
        let reserve = baseReserve + reservePerJob * max(0, jobPlaces)
        let available = softLimit > reserve ? softLimit - reserve : 0
        return min(configured, max(minimumConnections, available))
    }

    /// Descriptors open now: the entries of `/proc/self/fd` (one of them is the directory read).
    public static func openCount() -> Int? {
        guard let directory = opendir("/proc/self/fd") else { return nil }
        defer { closedir(directory) }
        var entries = 0
        while let entry = readdir(directory) {
            // Skips "." and ".."; descriptor names are digits.
            if entry.pointee.d_name.0 != 0x2E { entries += 1 }
        }
        return max(0, entries - 1)
    }

    /// glibc's `RLIM_INFINITY` (all bits set), which Swift imports as an overflowing literal.
    private static let unlimited = rlim_t.max

    private static func count(_ value: rlim_t) -> Int {
        value == unlimited || value > rlim_t(Int.max) ? Int.max : Int(value)
    }

    /// `/proc/sys/fs/nr_open`, Linux's default 1,048,576 when it cannot be read.
    private static func kernelCeiling() -> Int {
        let fallback = 1 << 20
        let fd = open("/proc/sys/fs/nr_open", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return fallback }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, let value = Int(String(decoding: buffer[0..<n].filter { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self)),
              value > 0 else { return fallback }
        return value
    }
}
