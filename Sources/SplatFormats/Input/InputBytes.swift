import Foundation
import SplatCore
#if canImport(Glibc)
import Glibc
#endif

/// The bytes of an input file, memory-mapped when the input is a regular file (so a large PLY
/// is read straight from the page cache with no copy) and read into memory otherwise (pipes).
public final class InputBytes: @unchecked Sendable {
    public let bytes: UnsafeRawBufferPointer
    /// The name used in messages and for extension-based detection.
    public let name: String
    private let release: () -> Void

    /// Opens `path`; `-` reads standard input to its end.
    public init(path: String) throws(SplatError) {
        name = path
        if path == "-" {
            let data = FileHandle.standardInput.readDataToEndOfFile()
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 64)
            _ = data.copyBytes(to: copy.bindMemory(to: UInt8.self))
            bytes = UnsafeRawBufferPointer(start: copy.baseAddress, count: data.count)
            release = { copy.deallocate() }
            return
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw SplatError(.io, "cannot open: \(String(cString: strerror(errno)))", file: path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            throw SplatError(.io, "cannot stat: \(String(cString: strerror(errno)))", file: path)
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw SplatError(.io, "is a directory", file: path)
        }
        let size = Int(st.st_size)
        if (st.st_mode & S_IFMT) == S_IFREG && size > 0 {
            guard let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else {
                throw SplatError(.io, "cannot map: \(String(cString: strerror(errno)))", file: path)
            }
            bytes = UnsafeRawBufferPointer(start: map, count: size)
            release = { munmap(map, size) }
            return
        }
        // Not a regular file (a FIFO, a device): read it to the end.
        var data = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw SplatError(.io, "cannot read: \(String(cString: strerror(errno)))", file: path)
            }
            if n == 0 { break }
            data.append(contentsOf: chunk[0..<n])
        }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 64)
        data.withUnsafeBytes { copy.copyMemory(from: $0) }
        bytes = UnsafeRawBufferPointer(start: copy.baseAddress, count: data.count)
        release = { copy.deallocate() }
    }

    /// Wraps bytes already in memory (copied).
    public init(copying source: UnsafeRawBufferPointer, name: String) {
        self.name = name
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, source.count), alignment: 64)
        if source.count > 0 { copy.copyMemory(from: source) }
        bytes = UnsafeRawBufferPointer(start: copy.baseAddress, count: source.count)
        release = { copy.deallocate() }
    }

    deinit { release() }
}
