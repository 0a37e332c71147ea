import Foundation
import Testing
import SplatCore
import Synchronization
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 12, item 2: an input that shrinks while it is read is that input's `truncated` (or
/// `io`), never SIGBUS for the process (inputs are read with `pread`, whole or in slices). Memory-mapped inputs died with SIGBUS (135) in 2 of 4
/// tries when another process truncated the file during the decode.
@Suite struct HardeningTruncationTests {
    /// An 8.4 MB PLY whose vertex rows the decoder must read from first to last (binary rows are
    /// read from the file in slices; nothing is skipped): 149,000 splats too faint to render
    /// (opacity logit −20, culled before binning, so an input read whole costs little to render)
    /// and then 1,000 visible ones at the very end, so every decode reads the last pages —
    /// exactly the pages a truncation takes away.
    static func racePLY(at path: String) throws -> (fd: Int32, bytes: [UInt8]) {
        let faint = 149_000, visible = 1_000
        let properties = ["x", "y", "z", "f_dc_0", "f_dc_1", "f_dc_2", "opacity", "scale_0", "scale_1", "scale_2",
                          "rot_0", "rot_1", "rot_2", "rot_3"]
        let header = "ply\nformat binary_little_endian 1.0\nelement vertex \(faint + visible)\n"
            + properties.map { "property float \($0)\n" }.joined() + "end_header\n"
        var random = SplitMix64(seed: 12)
        var values: [Float] = []
        values.reserveCapacity((faint + visible) * properties.count)
        for i in 0..<(faint + visible) {
            let position = (0..<3).map { _ in Float.random(in: -1...1, using: &random) }
            values += position + [0.5, 0.2, -0.3, i < faint ? -20 : 2, -3, -3, -3, 1, 0, 0, 0]
        }
        let bytes = Array(header.utf8) + values.withUnsafeBytes { Array($0) }
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return (fd, bytes)
    }

    @Test func truncatingInputsDuringABatchNeverKillsIt() throws {
        let dir = try Hardening.folder("truncate")
        let path = dir.appendingPathComponent("t.ply").path
        let file = try Self.racePLY(at: path)
        defer { close(file.fd) }
        // Another thread cuts the file to 1 MB and grows it back, again and again. The rows are
        // read in slices all through the decode, so a cut of a few milliseconds meets a read.
        let stop = Atomic<Bool>(false), cycles = Atomic<Int>(0)
        let truncator = Thread {
            var random = SplitMix64(seed: 7)
            let cut = 1_000_000
            while !stop.load(ordering: .relaxed) {
                _ = ftruncate(file.fd, off_t(cut))
                usleep(5_000)
                // Written back past the cut (pwrite extends the file): a reader sees the old
                // bytes or the end of the file, never rows of zeros.
                _ = file.bytes.withUnsafeBytes { pwrite(file.fd, $0.baseAddress! + cut, $0.count - cut, off_t(cut)) }
                // Whole for a while, so that some reads get through.
                usleep(UInt32(50_000 + random.next() % 250_000))
                cycles.add(1, ordering: .relaxed)
            }
        }
        truncator.start()
        defer { stop.store(true, ordering: .relaxed) }

        var seen: [String: Int] = [:]
        for attempt in 0..<3 {
            let out = dir.appendingPathComponent("out\(attempt)"), report = dir.appendingPathComponent("r\(attempt).jsonl").path
            // The same file four times: four inputs (t, t-2, t-3, t-4), two at a time.
            let run = try Hardening.run(["thumbnails", path, path, path, path, "--out-dir", out.path, "--report", report,
                                         "--jobs", "2", "--resolution", "16x16"], in: dir, timeout: .seconds(60))
            // Exit 0 (all read whole) or 2 (some cut short); never 128 + a signal.
            let termination = try #require(run.termination, "no exit within the bound")
            #expect(termination == .exited(0) || termination == .exited(2), "attempt \(attempt): \(termination): \(run.errText)")
            let lines = try Hardening.reportLines(report)
            #expect(lines.count == 4, "attempt \(attempt)")
            for line in lines {
                let status = line["status"] as? String ?? "?"
                #expect(["ok", "truncated", "io"].contains(status), "attempt \(attempt): \(status): \(line["message"] ?? "")")
                seen[status, default: 0] += 1
            }
        }
        stop.store(true, ordering: .relaxed)
        print("truncation race: \(seen) over 12 inputs, \(cycles.load(ordering: .relaxed)) truncate/regrow cycles")
        // The race was really run: some reads met the short file.
        #expect(seen["truncated", default: 0] + seen["io", default: 0] > 0, "\(seen)")
    }
}
