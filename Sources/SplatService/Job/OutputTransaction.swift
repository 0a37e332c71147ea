import Foundation
import SplatCore

/// The files and folder one job has written, so a failed job can take them all back: an input
/// ends with all of its outputs or none. Each file is written atomically on its own. A holding
/// transaction keeps the bytes instead (`SceneJob.holdsOutputs`).
final class OutputTransaction {
    private(set) var written: [String] = []
    private(set) var held: [HeldOutput] = []
    private var createdDirectory: String?
    let holds: Bool

    init(holds: Bool = false) {
        self.holds = holds
    }

    /// Writes `bytes` to `path` atomically (or keeps them under that name) and remembers it.
    func write(_ bytes: [UInt8], to path: String) throws(SplatError) {
        if holds {
            held.append(HeldOutput(path: path, bytes: bytes))
            return
        }
        try AtomicFileWriter.write(bytes, to: path)
        written.append(path)
    }

    /// Makes the folder (and its parents) unless it exists; an existing non-folder is an error.
    func createDirectory(_ path: String) throws(SplatError) {
        if let status = FileIO.status(atPath: path) {
            guard status.kind == .directory else { throw SplatError(.io, "exists and is not a folder", file: path) }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw SplatError(.io, "cannot create the folder: \(error.localizedDescription)", file: path)
        }
        createdDirectory = path
    }

    /// Removes every file written and the folder made (if it is empty then).
    func rollBack() {
        for path in written { FileIO.remove(path) }
        written = []
        held = []
        if let createdDirectory { rmdir(createdDirectory) }
        createdDirectory = nil
    }
}
