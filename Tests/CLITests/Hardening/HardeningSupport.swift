import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatRenderCLI
#if canImport(Glibc)
import Glibc
#endif

/// What the hardening suites (issue 12) share: the built executable run as a child process with
/// bounded waits, in-process runs with any stream, scratch folders, FIFOs and report parsing.
enum Hardening {
    static let fruit = Fixtures.sampleScenes.appendingPathComponent("fruit.ply").path
    static let biker = Fixtures.sampleScenes.appendingPathComponent("biker.spz").path
    /// Four splats, SH degree 0: a job that costs nothing.
    static let tiny = Fixtures.vector("minimal-v4.spz")

    /// `.build/debug/splatrender` under the package root (`swift build --build-tests` builds it).
    static func executable() throws -> String {
        let path = Fixtures.packageRoot.appendingPathComponent(".build/debug/splatrender").path
        try #require(FileManager.default.isExecutableFile(atPath: path), "build \(path) first: swift build --build-tests")
        return path
    }

    static func folder(_ tag: String) throws -> URL { try Fixtures.temporaryDirectory("hardening-\(tag)") }

    /// A child's run, waited for.
    struct Run {
        var termination: ChildProcess.Termination?
        var out: [UInt8]
        var err: [UInt8]
        var seconds: Double
        /// ru_maxrss of the child.
        var peakResidentBytes: Int?

        var status: Int32? { if case .exited(let code)? = termination { code } else { nil } }
        var outText: String { String(decoding: out, as: UTF8.self) }
        var errText: String { String(decoding: err, as: UTF8.self) }
    }

    /// Runs the executable (or `executable`) with `arguments` until it ends or `timeout` passes
    /// (then it is killed and the run has no status). Standard output and error go to files in
    /// `scratch` unless `stdout` says otherwise.
    static func run(_ arguments: [String], in scratch: URL, stdin: ChildProcess.Stream = .null,
                    stdout: ChildProcess.Stream? = nil, timeout: Duration = .seconds(60),
                    executable: String? = nil, started: ((ChildProcess) throws -> Void)? = nil) throws -> Run {
        let tag = UUID().uuidString.prefix(8)
        let outPath = scratch.appendingPathComponent(".stdout-\(tag)").path
        let errPath = scratch.appendingPathComponent(".stderr-\(tag)").path
        defer { FileIO.remove(outPath); FileIO.remove(errPath) }
        let start = ContinuousClock.now
        let child = try ChildProcess(try executable ?? Self.executable(), arguments, stdin: stdin,
                                     stdout: stdout ?? .file(outPath), stderr: .file(errPath))
        try started?(child)
        if !child.waitForExit(timeout: timeout) { child.kill9() }
        let seconds = seconds(since: start)
        let out = stdout == nil ? (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: outPath)))) ?? [] : []
        let err = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: errPath)))) ?? []
        return Run(termination: child.termination, out: out, err: err, seconds: seconds,
                   peakResidentBytes: child.peakResidentBytes)
    }

    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let (s, atto) = (ContinuousClock.now - start).components
        return Double(s) + Double(atto) / 1e18
    }

    /// The command line in this process, with any streams and a cancellation token.
    static func runInProcess(_ arguments: [String], stdin: InputSource = .bytes([]),
                             stdout: CapturedOutput = CapturedOutput(), stderr: CapturedOutput = CapturedOutput(),
                             cancellation: CancellationToken = CancellationToken())
        -> (status: Int32, out: CapturedOutput, err: CapturedOutput) {
        let status = CommandRunner.run(arguments, stdin: stdin, stdout: stdout, stderr: stderr, cancellation: cancellation)
        return (status, stdout, stderr)
    }

    /// A scratch folder holding `in/` with copies of `files` (name in `in/` → source path) and
    /// the paths a batch over it uses: `in`, `out`, `r.jsonl`.
    static func batchFolder(_ tag: String, _ files: [(String, String)]) throws
        -> (dir: URL, input: URL, out: URL, report: String) {
        let dir = try folder(tag)
        let input = dir.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        for (name, source) in files { try copy(source, to: input.appendingPathComponent(name)) }
        return (dir, input, dir.appendingPathComponent("out"), dir.appendingPathComponent("r.jsonl").path)
    }

    static func makeFIFO(_ path: String) throws {
        try #require(mkfifo(path, 0o644) == 0, "mkfifo \(path): \(String(cString: strerror(errno)))")
    }

    static func kind(_ path: String) -> FileStatus.Kind? {
        FileIO.status(atPath: path, followLinks: false)?.kind
    }

    /// The JSON Lines of a report file (every line must parse).
    static func reportLines(_ path: String) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try jsonLines(text)
    }

    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    static func json(_ bytes: [UInt8]) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// `status` of each report line keyed by the input's file name.
    static func statusByName(_ lines: [[String: Any]]) -> [String: String] {
        var out: [String: String] = [:]
        for line in lines {
            out[((line["input"] as? String ?? "") as NSString).lastPathComponent] = line["status"] as? String ?? "?"
        }
        return out
    }

    /// Every file under `folder` (relative paths, sorted; links not followed; empty when missing).
    static func files(under folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        var out: [String] = []
        for case let relative as String in walker where kind(folder.appendingPathComponent(relative).path) != .directory {
            out.append(relative)
        }
        return out.sorted()
    }

    /// Temporary files AtomicFileWriter leaves when it is stopped half-way (`.<name>.tmp-XXXXXX`).
    static func temporaries(under folder: URL) -> [String] {
        files(under: folder).filter { ($0 as NSString).lastPathComponent.contains(".tmp-") }
    }

    static func copy(_ source: String, to destination: URL) throws {
        try FileManager.default.copyItem(atPath: source, toPath: destination.path)
    }

    /// Ignores SIGPIPE in the test process, so a test that writes into a child's standard input
    /// after the child has gone sees EPIPE instead of dying (children get the default back).
    static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()
}

/// Writes bytes into a descriptor on a thread of its own until they are all written or a write
/// fails (EPIPE when the reader went away), then closes it.
final class StreamFeeder: @unchecked Sendable {
    // @unchecked: the counters are written by the feeding thread and read after `wait`.
    private let done = DispatchSemaphore(value: 0)
    private(set) var written = 0
    private(set) var failure: Int32 = 0

    /// Feeds `total` bytes produced by `chunk(offset)` (each call returns the next piece).
    init(fd: Int32, total: Int, chunk: @escaping @Sendable (Int) -> [UInt8], close closeFD: @escaping @Sendable () -> Void) {
        _ = Hardening.ignoreBrokenPipes
        Thread.detachNewThread { [self] in
            while written < total {
                let piece = chunk(written).prefix(total - written)
                let n = piece.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    break
                }
                // After a short write, the next piece starts where this one stopped.
                written += n
            }
            closeFD()
            done.signal()
        }
    }

    /// Feeds `bytes`, 1 MiB at a time.
    convenience init(fd: Int32, bytes: [UInt8], close closeFD: @escaping @Sendable () -> Void) {
        let shared = bytes
        self.init(fd: fd, total: bytes.count, chunk: { Array(shared[$0..<min(shared.count, $0 + (1 << 20))]) }, close: closeFD)
    }

    /// Waits up to `timeout` for the feeder to finish; false when it is still writing.
    func wait(timeout: Duration) -> Bool {
        let (s, atto) = timeout.components
        return done.wait(timeout: .now() + Double(s) + Double(atto) / 1e18) == .success
    }
}
