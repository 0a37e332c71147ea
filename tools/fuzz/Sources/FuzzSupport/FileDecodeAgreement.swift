import Foundation
import SplatCore
import SplatFormats

/// The CLI and the server decode from a path, and there SPZ v4 streams and binary PLY rows are
/// read from the file in slices instead of from bytes in memory, and the CLI's thumbnails keep
/// SPZ SH as codes. Those are separate code paths over the same hostile bytes: each must give
/// exactly what the in-memory Float32 decode gives — the same scene to the bit (the codes forms
/// the same codes), or an error of the same kind. A disagreement aborts.
public enum FileDecodeAgreement {
    /// One folder per process: lanes of the same target run as separate processes.
    static let folder: String = {
        let path = NSTemporaryDirectory() + "splat-fuzz-\(getpid())"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }()

    /// Writes `file` as `name` and compares the decodes (see the type). `storages`: the SH forms
    /// to try from the file (and, for `.quantized`, from memory too).
    public static func run(_ file: [UInt8], name: String, format: SplatFormat?, storages: [SHStorage]) {
        let path = folder + "/" + name
        guard FileManager.default.createFile(atPath: path, contents: Data(file)) else {
            DecodeInvariants.fail("cannot write \(path)")
        }
        defer { unlink(path) }
        let input = file.withUnsafeBytes { InputBytes(copying: $0, name: path) }
        let limits = DecodeInvariants.limits
        let reference = Result { () throws(SplatError) in try SplatFile.decode(input, format: format, limits: limits) }
        for storage in storages {
            let fromPath = Result { () throws(SplatError) in
                try SplatFile.decode(path: path, format: format, limits: limits, sh: storage)
            }
            compare(reference, fromPath, what: "decode(path:, sh: \(storage))")
            if storage != .float32 {
                let fromMemory = Result { () throws(SplatError) in
                    try SplatFile.decode(input, format: format, limits: limits, sh: storage)
                }
                compare(fromMemory, fromPath, what: "decode(bytes, sh: \(storage)) against decode(path:)")
            }
        }
    }

    static func compare(_ a: Result<DecodedScene, SplatError>, _ b: Result<DecodedScene, SplatError>, what: String) {
        switch (a, b) {
        case (.failure(let x), .failure(let y)):
            guard x.kind == y.kind else { DecodeInvariants.fail("\(what): error \(x) from bytes, \(y) here") }
        case (.success(let x), .success(let y)):
            if let difference = difference(x.scene, y.scene) { DecodeInvariants.fail("\(what): \(difference)") }
        case (.success, .failure(let y)):
            DecodeInvariants.fail("\(what): the bytes decode, this path fails: \(y)")
        case (.failure(let x), .success):
            DecodeInvariants.fail("\(what): the bytes fail (\(x)), this path decodes")
        }
    }

    /// What differs between two scenes, nil when nothing does. A scene in the codes form has
    /// degree 0 and its SH degree on the codes (`SPZDecoder.makeScene`); its coefficients must be
    /// the other scene's floats, or its codes the other's codes.
    static func difference(_ a: SplatScene, _ b: SplatScene) -> String? {
        let degreeA = a.quantizedSH?.degree ?? a.shDegree, degreeB = b.quantizedSH?.degree ?? b.shDegree
        guard a.count == b.count, degreeA == degreeB else {
            return "\(a.count) splats at degree \(degreeA) against \(b.count) at \(degreeB)"
        }
        guard a.declaredFrame == b.declaredFrame, a.model == b.model else { return "frame or model" }
        for column in SplatScene.Column.allCases where memcmp(a.columnBase(column), b.columnBase(column), 4 * a.count) != 0 {
            return "column \(column)"
        }
        switch (a.quantizedSH, b.quantizedSH) {
        case (nil, nil):
            guard a.sh.count == b.sh.count else { return "SH of \(a.sh.count) against \(b.sh.count) floats" }
            if let x = a.sh.baseAddress, let y = b.sh.baseAddress, memcmp(x, y, 4 * a.sh.count) != 0 { return "SH values" }
        case (let x?, let y?):
            guard x.stride == y.stride, memcmp(x.codes, y.codes, x.stride * a.count) == 0 else { return "SH codes" }
        case (nil, let codes?):
            return coefficientsDiffer(floats: a, codes: codes)
        case (let codes?, nil):
            return coefficientsDiffer(floats: b, codes: codes)
        }
        return nil
    }

    static func coefficientsDiffer(floats: SplatScene, codes: QuantizedSH) -> String? {
        for i in 0..<floats.count {
            for k in 0..<floats.shCoefficientsPerChannel where codes.coefficient(i, k) != floats.shCoefficient(i, k) {
                return "splat \(i): SH coefficient \(k) is \(codes.coefficient(i, k)) as a code, \(floats.shCoefficient(i, k)) as floats"
            }
        }
        return nil
    }
}
