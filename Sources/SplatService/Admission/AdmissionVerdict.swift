import SplatCore
import SplatFormats

/// Whether a job may start, decided from its header before a byte of the body is decoded: the
/// declared decoded size against the caller's limits and the 768 MiB service ceiling (with the
/// figures, for reports). `SceneAdmission.verdict` is the one place it is made.
public struct AdmissionVerdict: Sendable, Equatable {
    public var size: SceneSizeVerdict
    /// The job's estimated peak memory, when the verdict is for a whole job.
    public var estimate: MemoryEstimate?
    /// The budget the estimate must fit, when one applies.
    public var memoryBudget: Int?

    /// `count × bytesPerSplat(keptDegree)`, nil when that overflows 64 bits.
    public var declaredDecodedBytes: Int? { size.declaredDecodedBytes }
    public var keptDegree: Int { size.keptDegree }
    public var maxDecodedBytes: Int { size.maxDecodedBytes }
    public var fitsLimit: Bool { size.fitsLimit }
    public var fitsServiceCeiling: Bool { size.fitsServiceCeiling }

    /// The error that refuses the job, nil when it may start: the declared size over the limits,
    /// or the estimated peak over the memory budget.
    public func refusal(file: String?) -> SplatError? {
        if let refused = size.refusal(file: file) { return refused }
        if let estimate, let memoryBudget, estimate.totalBytes > memoryBudget {
            return SplatError(.tooLarge, "the job would need about \(estimate.summary); the memory budget is \(Self.mebibytes(memoryBudget)) (--memory-budget)",
                              file: file, field: "memory-budget")
        }
        return nil
    }

    /// One line, e.g. "184 bytes (92 per splat at SH degree 1): fits the 768 MiB service ceiling".
    public var summary: String {
        let size = declaredDecodedBytes.map { $0 < 1024 ? "\($0) bytes" : "\($0) bytes (\(Self.mebibytes($0)))" } ?? "more than 2^63 bytes"
        var text = "\(size) at SH degree \(keptDegree): "
        text += fitsServiceCeiling ? "fits" : "EXCEEDS"
        text += " the 768 MiB service ceiling"
        if maxDecodedBytes != DecodeLimits.serviceCeilingBytes {
            text += "; " + (fitsLimit ? "fits" : "EXCEEDS") + " --max-decoded-bytes \(maxDecodedBytes)"
        }
        return text
    }

    /// The report's `ceiling` object.
    public var json: JSONValue {
        .object([
            ("declared_decoded_bytes", .optional(declaredDecodedBytes) { .int($0) }),
            ("bytes_per_splat", .int(size.bytesPerSplat)),
            ("kept_sh_degree", .int(keptDegree)),
            ("service_ceiling_bytes", .int(DecodeLimits.serviceCeilingBytes)),
            ("fits_service_ceiling", .bool(fitsServiceCeiling)),
            ("max_decoded_bytes", .int(maxDecodedBytes)),
            ("fits_limit", .bool(fitsLimit)),
        ])
    }

    /// "184 bytes", "11.75 MiB", "768 MiB".
    public static func mebibytes(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) bytes" }
        let (value, unit): (Double, String) = bytes < 1 << 20 ? (Double(bytes) / 1024, "KiB")
            : bytes < 1 << 30 ? (Double(bytes) / 1_048_576, "MiB") : (Double(bytes) / 1_073_741_824, "GiB")
        let rounded = value >= 100 ? String(Int(value.rounded())) : String((value * 100).rounded() / 100)
        return "\(rounded) \(unit)"
    }
}

/// Header admission: the one place every face and the batch ask whether a job may start.
public enum SceneAdmission {
    /// The memory budget of command-line jobs and batches unless `--memory-budget` says
    /// otherwise: 3 GiB, four times the decoded-size ceiling — what the largest scene the
    /// ceiling admits needs to decode and render (scene, input and renderer tables together).
    public static let defaultMemoryBudgetBytes = 4 * DecodeLimits.serviceCeilingBytes

    /// The verdict on a header alone (what `info` and `convert` report), decoded under `limits`.
    public static func verdict(for header: SceneHeader, limits: DecodeLimits) -> AdmissionVerdict {
        AdmissionVerdict(size: limits.sizeVerdict(count: header.count, fileDegree: header.shDegree))
    }

    /// The verdict on a whole job: the header's size and the job's estimated peak against
    /// `memoryBudget` (nil: no budget).
    public static func verdict(for job: SceneJob, header: SceneHeader, inputBytes: Int, memoryBudget: Int?) -> AdmissionVerdict {
        var verdict = verdict(for: header, limits: job.load.limits)
        verdict.estimate = MemoryEstimate.of(job, header: header, inputBytes: inputBytes)
        verdict.memoryBudget = memoryBudget
        return verdict
    }

    /// Bytes of `input` that a job holds in memory: bytes already in memory in full; a file's
    /// size, or for a file read in slices (binary PLY, `header.fileSliceBytes`) only the slices;
    /// 0 for a SOG folder, whose files the decoder's scratch already counts.
    public static func inputBytes(of input: SceneInput, header: SceneHeader) -> Int {
        switch input {
        case .memory(let bytes):
            return bytes.bytes.count
        case .path(let path):
            let size = FileIO.status(atPath: path).map { $0.kind == .regular ? $0.size : 0 } ?? 0
            return header.fileSliceBytes.map { min(size, $0) } ?? size
        }
    }
}
