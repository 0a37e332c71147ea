#if canImport(Glibc)
import Glibc
#endif

/// What `stat` says about a path or descriptor, in the terms the I/O rules need.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case regular, directory, fifo, characterDevice = "character device", blockDevice = "block device"
        case socket, symbolicLink = "symbolic link", other
    }

    public var kind: Kind
    /// Bytes, for regular files.
    public var size: Int
    public var device: UInt64
    public var inode: UInt64
    /// Last modification, seconds since the epoch.
    public var modified: Double

    init(_ st: stat) {
        switch st.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFIFO: kind = .fifo
        case S_IFCHR: kind = .characterDevice
        case S_IFBLK: kind = .blockDevice
        case S_IFSOCK: kind = .socket
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int(st.st_size)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
    }

    /// Whether two statuses name the same file (same device and inode).
    public func isSameFile(as other: FileStatus) -> Bool {
        device == other.device && inode == other.inode
    }
}
