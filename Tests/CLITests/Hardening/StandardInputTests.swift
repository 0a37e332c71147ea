import Foundation
import Testing
import SplatCore
import TestSupport
@testable import SplatRenderCLI

/// Issue 12, item 3: standard input is sniffed from its first bytes (3 GiB of `yes` used to be
/// read whole, 20 s, before `bad_magic`), capped by `--max-input-bytes` (`too_large`, exit 75),
/// and read once into its final buffer (1 GiB piped in used to peak at 2.07 GiB).
@Suite struct HardeningStandardInputTests {
    /// `yes | splatrender - --out x.png`: refused after the first bytes while the writer still
    /// has nearly all of its gigabyte to write; the writer's next write fails with EPIPE.
    @Test func garbageIsRefusedFromItsFirstBytes() throws {
        let dir = try Hardening.folder("stdin-yes")
        let total = 1 << 30
        let pattern = [UInt8](repeating: 0, count: 1 << 16).enumerated().map { $0.offset % 2 == 0 ? UInt8(ascii: "y") : 10 }
        var feeder: StreamFeeder?
        let run = try Hardening.run(["-", "--out", dir.appendingPathComponent("x.png").path], in: dir, stdin: .pipe,
                                    timeout: .seconds(30)) { child in
            feeder = StreamFeeder(fd: child.stdinFD, total: total, chunk: { _ in pattern }, close: { child.closeInput() })
        }
        #expect(run.termination == .exited(65), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("bad_magic"))
        #expect(run.seconds < 10, "took \(run.seconds) s")
        let writer = try #require(feeder)
        #expect(writer.wait(timeout: .seconds(10)), "the writer is still writing")
        #expect(writer.failure == EPIPE, "errno \(writer.failure) after \(writer.written) bytes")
        #expect(writer.written < 64 << 20, "the reader took \(writer.written) of \(total) bytes")
    }

    /// A stream over `--max-input-bytes` is `too_large` (75) as soon as the cap is passed.
    @Test func streamOverTheCapIsTooLarge() throws {
        let dir = try Hardening.folder("stdin-cap")
        // A valid PLY (fruit, 1.2 MB) and then more than the cap of zeros.
        let ply = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Hardening.fruit)))
        let total = 64 << 20
        var feeder: StreamFeeder?
        let run = try Hardening.run(["-", "--out", dir.appendingPathComponent("x.png").path, "--max-input-bytes", "2M"], in: dir,
                                    stdin: .pipe, timeout: .seconds(30)) { child in
            feeder = StreamFeeder(fd: child.stdinFD, total: total, chunk: { offset in
                offset < ply.count ? Array(ply[offset...]) : [UInt8](repeating: 0, count: 1 << 20)
            }, close: { child.closeInput() })
        }
        #expect(run.termination == .exited(75), "\(String(describing: run.termination)): \(run.errText)")
        #expect(run.errText.contains("too_large") && run.errText.contains("--max-input-bytes"), "\(run.errText)")
        let writer = try #require(feeder)
        #expect(writer.wait(timeout: .seconds(10)))
        #expect(writer.written < 16 << 20, "the reader took \(writer.written) bytes past a 2 MiB cap")
        // Bytes a caller hands in are held to the same cap.
        let inProcess = Hardening.runInProcess(["info", "-", "--max-input-bytes", "1M"], stdin: .bytes(ply))
        #expect(inProcess.status == 75, "\(inProcess.err.text)")
    }

    /// `info -` of a ~200 MB PLY on a pipe peaks near one copy of the stream, not two.
    @Test func standardInputIsHeldOnce() throws {
        let dir = try Hardening.folder("stdin-once")
        // fruit.ply's rows 170 times behind a header with the new count: 200 MB.
        let fruit = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Hardening.fruit)))
        let marker = Array("end_header\n".utf8)
        let headerEnd = try #require(fruit.indices.first { fruit[$0...].starts(with: marker) }) + marker.count
        let copies = 170, rows = 4721
        let header = String(decoding: fruit[..<headerEnd], as: UTF8.self)
            .replacingOccurrences(of: "element vertex \(rows)\n", with: "element vertex \(rows * copies)\n")
        #expect(header.contains("element vertex \(rows * copies)\n"))
        let body = fruit[headerEnd...]
        var stream = Array(header.utf8)
        stream.reserveCapacity(stream.count + body.count * copies)
        for _ in 0..<copies { stream += body }

        var feeder: StreamFeeder?
        let run = try Hardening.run(["info", "-", "--json"], in: dir, stdin: .pipe, timeout: .seconds(60)) { child in
            feeder = StreamFeeder(fd: child.stdinFD, bytes: stream, close: { child.closeInput() })
        }
        #expect(run.termination == .exited(0), "\(String(describing: run.termination)): \(run.errText)")
        #expect(try Hardening.json(run.out)["count"] as? Int == rows * copies)
        #expect(feeder?.wait(timeout: .seconds(10)) == true)
        // VmHWM sampled while it ran (info's JSON has no peak).
        let peak = try #require(run.peakResidentBytes)
        print("stdin: info - of a \(stream.count)-byte PLY peaked at \(peak) bytes (\(Double(peak) / Double(stream.count))×)")
        #expect(Double(peak) < 1.3 * Double(stream.count), "peak \(peak) for a \(stream.count)-byte stream")
    }
}
