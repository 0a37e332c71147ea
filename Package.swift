// swift-tools-version:6.0
import PackageDescription

/// A C library from Debian, found with pkg-config; its module map is in `Sources/<name>`.
func debianLibrary(_ name: String, pkgConfig: String, apt package: String) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt([package])])
}

// Release builds should name a CPU (see README "Building"): the flags live in
// tools/ scripts, not here, because unsafe flags stop others depending on us.
let package = Package(
    name: "splatrender",
    products: [
        .library(name: "SplatRenderKit", targets: ["SplatCore", "SplatFormats", "SplatImage", "SplatRender", "SplatService", "SplatServe", "SplatFleet"]),
        .executable(name: "splatrender", targets: ["splatrender"]),
        .executable(name: "splat-bench", targets: ["Benchmarks"]),
    ],
    targets: [
        // C libraries from Debian.
        debianLibrary("CZstd", pkgConfig: "libzstd", apt: "libzstd-dev"),
        debianLibrary("CDeflate", pkgConfig: "libdeflate", apt: "libdeflate-dev"),
        debianLibrary("CPNG", pkgConfig: "libpng", apt: "libpng-dev"),
        debianLibrary("CWebP", pkgConfig: "libwebp", apt: "libwebp-dev"),
        debianLibrary("CHiredis", pkgConfig: "hiredis", apt: "libhiredis-dev"),
        // libcurl (libcurl4-openssl-dev) is loaded on first use, not linked: see CCurl.h.
        .target(name: "CCurl", path: "Sources/CCurl", linkerSettings: [.linkedLibrary("dl")]),
        // libmicrohttpd's start and info calls are variadic: shim.h forwards them (MHD_OPTION_ARRAY).
        debianLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: "libmicrohttpd-dev"),
        debianLibrary("CTurboJPEG", pkgConfig: "libturbojpeg", apt: "libturbojpeg0-dev"),
        // zlib's init functions are macros: a thin C wrapper makes them callable.
        .target(name: "CZlib", path: "Sources/CZlib", linkerSettings: [.linkedLibrary("z")]),
        // A cache prefetch hint, which Swift cannot express (an inline function, no library).
        .target(name: "CPrefetch", path: "Sources/CPrefetch"),

        .target(name: "SplatCore"),
        .target(name: "SplatFormats", dependencies: ["SplatCore", "CZstd", "CDeflate", "CZlib", "CWebP"]),
        .target(name: "SplatImage", dependencies: ["SplatCore", "CPNG", "CWebP", "CDeflate", "CZlib", "CTurboJPEG"]),
        .target(name: "SplatRender", dependencies: ["SplatCore", "CPrefetch"]),
        // Whole jobs over the stages: load + frame decision, turntables, sheets, previews, batch runs, reports.
        .target(name: "SplatService", dependencies: ["SplatCore", "SplatFormats", "SplatImage", "SplatRender", "CCurl"]),
        // The HTTP face (`splatrender serve`): libmicrohttpd does the I/O, Service runs the jobs.
        .target(name: "SplatServe", dependencies: ["SplatService", "SplatFormats", "SplatImage", "SplatCore", "CMicroHTTPD"]),
        // The Redis Streams worker face: consumer groups, leases, dead letters over hiredis.
        .target(name: "SplatFleet", dependencies: ["SplatService", "SplatCore", "CHiredis"]),
        .target(name: "SplatRenderCLI", dependencies: ["SplatCore", "SplatFormats", "SplatImage", "SplatService", "SplatServe", "SplatFleet"]),
        .executableTarget(name: "splatrender", dependencies: ["SplatRenderCLI"]),
        .executableTarget(name: "Benchmarks",
                          dependencies: ["SplatCore", "SplatFormats", "SplatImage", "SplatRender", "SplatService", "CZstd", "CDeflate", "CWebP", "CPNG", "CTurboJPEG",
                                         // The orientation test set and its scoring, shared with the accuracy test.
                                         "TestSupport",
                                         // The fleet suite queues jobs on a redis-server of its own.
                                         "SplatFleet"],
                          path: "Benchmarks", exclude: ["README.md"]),

        .target(name: "TestSupport", dependencies: ["SplatCore", "CDeflate"], path: "Tests/TestSupport"),
        .testTarget(name: "SplatCoreTests", dependencies: ["SplatCore", "TestSupport"]),
        .testTarget(name: "SplatFormatsTests", dependencies: ["SplatFormats", "SplatCore", "TestSupport", "CZstd", "CDeflate", "CZlib", "CWebP"],
                    // Regression inputs are read from disk by path, not bundled.
                    exclude: ["Regressions"]),
        .testTarget(name: "SplatImageTests", dependencies: ["SplatImage", "SplatCore", "TestSupport", "CWebP", "CZlib", "CDeflate", "CTurboJPEG"]),
        .testTarget(name: "SplatRenderTests", dependencies: ["SplatRender", "SplatFormats", "SplatImage", "SplatCore", "TestSupport"]),
        .testTarget(name: "SplatServiceTests", dependencies: ["SplatService", "SplatRender", "SplatFormats", "SplatImage", "SplatCore", "TestSupport"]),
        // A stream consumer in its own process, so tests can kill -9 a worker that holds a job.
        .executableTarget(name: "FleetTestWorker", dependencies: ["SplatFleet", "SplatCore"], path: "Tests/FleetTestWorker"),
        // The real `splatrender worker` runs as child processes of the fleet tests.
        .testTarget(name: "SplatFleetTests", dependencies: ["SplatFleet", "SplatService", "SplatCore", "TestSupport", "FleetTestWorker",
                                                            "splatrender"],
                    // The HTTP test server is a Python script run by path, not bundled.
                    exclude: ["Resources"]),
        // The real `splatrender serve` runs as a child process of the end-to-end tests.
        .testTarget(name: "SplatServeTests", dependencies: ["SplatServe", "SplatService", "SplatFormats", "SplatCore", "TestSupport", "splatrender"]),
        .testTarget(name: "CLITests", dependencies: ["SplatRenderCLI", "SplatServe", "SplatFormats", "SplatImage", "SplatCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
