/// Every option's long name, typed: a misspelt name is a compile error, not a silent nil.
/// Raw values are what users type after `--` (and the keys of query strings and job JSON).
public enum OptionName: String, CaseIterable, Sendable {
    case help
    case version
    case format
    case maxDecodedBytes = "max-decoded-bytes"
    case maxShDegree = "max-sh-degree"
    case sourceFrame = "source-frame"
    case flip
    case strict
    case threads
    case verbose
    case quiet
    case json
    case bounds
    case toFrame = "to-frame"
    case spzVersion = "spz-version"
    case out
    case outDir = "out-dir"
    case resolution
    case cameraPos = "camera-pos"
    case cameraTarget = "camera-target"
    case cameraUp = "camera-up"
    case cameraFov = "camera-fov"
    case background
    case antialiased
    case shDegree = "sh-degree"
    case report
    case timeout
    // splatrender serve
    case listen
    case workers
    case queue
    case maxBodyBytes = "max-body-bytes"
    case requestTimeout = "request-timeout"
    case grace
    case progress
    case frames
    case turntable
    case elevation
    case azimuth
    case sheet
    case sheetViews = "sheet-views"
    case sheetElevations = "sheet-elevations"
    case sheetDownscale = "sheet-downscale"
    case animation
    case animationQuality = "animation-quality"
    case animationEffort = "animation-effort"
    case frameMs = "frame-ms"
    case jobs
    case fromStdin = "from-stdin"
    case maxInputBytes = "max-input-bytes"
    case memoryBudget = "memory-budget"
    case skipExisting = "skip-existing"
    case quality
    case up
    case cameras
    case keepFrame = "keep-frame"
    case gltfCompression = "gltf-compression"
    case gltfScale = "gltf-scale"
    case outFormat = "out-format"
    case imageFormat = "image-format"
    // framing and the orbit controls of a single render
    case padding
    case distance
    case zoom
    case view
    case minCoverage = "min-coverage"
    case sheetColumns = "sheet-columns"
    case sheetGutter = "sheet-gutter"
    case stats
    // splatrender worker, and the fleet's side of thumbnails (--job-file, --shard)
    case redis
    case stream
    case group
    case consumer
    case results
    case dead
    case lease
    case maxAttempts = "max-attempts"
    case concurrency
    case inputRoot = "input-root"
    case outputRoot = "output-root"
    case metricsListen = "metrics-listen"
    case jobFile = "job-file"
    case shard
}

extension OptionName: CustomStringConvertible {
    /// The name as typed, without dashes (so `"--\(name)"` reads as the user wrote it).
    public var description: String { rawValue }
}
