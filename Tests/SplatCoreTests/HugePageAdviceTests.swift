import Foundation
import SplatCore
import Testing

/// Large buffers are advised to use transparent huge pages unless `SPLATRENDER_HUGE_PAGES` turns
/// the advice off.
@Suite struct HugePageAdviceTests {
    @Test func theVariableTurnsTheAdviceOffAndNothingElseDoes() {
        for value in ["off", "OFF", "0", "never", "false", "no"] {
            #expect(!HugePageAdvice.enabled(byEnvironment: value), "\(value)")
        }
        for value: String? in [nil, "on", "1", "always", ""] {
            #expect(HugePageAdvice.enabled(byEnvironment: value), "\(String(describing: value))")
        }
    }

    /// Where the kernel offers huge pages on advice, an advised and touched 64 MiB buffer is
    /// backed by them (`AnonHugePages` of its mapping in /proc/self/smaps).
    @Test func anAdvisedBufferGetsHugePages() throws {
        let setting = (try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8)) ?? ""
        guard HugePageAdvice.isEnabled, setting.contains("[madvise]") || setting.contains("[always]") else { return }
        let size = 64 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 2 << 20)
        defer { buffer.deallocate() }
        HugePageAdvice.advise(buffer, byteCount: size)
        buffer.initializeMemory(as: UInt8.self, repeating: 1, count: size)
        // procfs files report size 0, which whole-file readers take at its word: read to the end.
        let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let address = UInt(bitPattern: buffer)
        var inside = false, hugeKB = 0
        for line in smaps.split(separator: "\n") {
            if let dash = line.firstIndex(of: "-"), line.first?.isHexDigit == true, let space = line.firstIndex(of: " "),
               let low = UInt(line[..<dash], radix: 16), let high = UInt(line[line.index(after: dash)..<space], radix: 16) {
                inside = low <= address && address < high
            } else if inside, line.hasPrefix("AnonHugePages:") {
                hugeKB = Int(line.split(separator: " ")[1]) ?? 0
            }
        }
        #expect(hugeKB > 0, "no huge pages in the advised buffer's mapping")
    }
}
