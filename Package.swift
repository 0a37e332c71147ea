// swift-tools-version:6.0
import PackageDescription

// Release builds should name a CPU (see README "Building"): the flags live in
// tools/ scripts, not here, because unsafe flags stop others depending on us.
let package = Package(
    name: "splatrender",
    products: [
        .library(name: "SplatRenderKit", targets: ["SplatCore", "SplatFormats", "SplatImage", "SplatRender", "SplatService"]),
        .executable(name: "splatrender", targets: ["splatrender"]),
        .executable(name: "splat-bench", targets: ["Benchmarks"]),
    ],
    targets: [
        // C libraries from Debian.
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
                       providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CDeflate", path: "Sources/CDeflate", pkgConfig: "libdeflate",
                       providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebp",
                       providers: [.apt(["libwebp-dev"])]),
        // zlib's init functions are macros: a thin C wrapper makes them callable.
        .target(name: "CZlib", path: "Sources/CZlib", linkerSettings: [.linkedLibrary("z")]),

        .target(name: "SplatCore"),
        .target(name: "SplatFormats", dependencies: ["SplatCore", "CZstd", "CDeflate", "CZlib", "CWebP"]),
        .target(name: "SplatImage", dependencies: ["SplatCore", "CPNG", "CWebP"]),
        .target(name: "SplatRender", dependencies: ["SplatCore"]),
        // Whole jobs over the stages: load + frame decision, turntables, sheets, previews, batch runs, reports.
        .target(name: "SplatService", dependencies: ["SplatCore", "SplatFormats", "SplatImage", "SplatRender"]),
        .target(name: "SplatRenderCLI", dependencies: ["SplatCore", "SplatFormats", "SplatImage", "SplatService"]),
        .executableTarget(name: "splatrender", dependencies: ["SplatRenderCLI"]),
        .executableTarget(name: "Benchmarks",
                          dependencies: ["SplatCore", "SplatFormats", "SplatImage", "SplatRender", "CZstd", "CDeflate", "CWebP",
                                         // The orientation test set and its scoring, shared with the accuracy test.
                                         "TestSupport"],
                          path: "Benchmarks", exclude: ["README.md"]),

        .target(name: "TestSupport", dependencies: ["SplatCore"], path: "Tests/TestSupport"),
        .testTarget(name: "SplatCoreTests", dependencies: ["SplatCore", "TestSupport"]),
        .testTarget(name: "SplatFormatsTests", dependencies: ["SplatFormats", "SplatCore", "TestSupport", "CZstd", "CDeflate", "CZlib"],
                    // Regression inputs are read from disk by path, not bundled.
                    exclude: ["Regressions"]),
        .testTarget(name: "SplatImageTests", dependencies: ["SplatImage", "SplatCore", "TestSupport", "CWebP"]),
        .testTarget(name: "SplatRenderTests", dependencies: ["SplatRender", "SplatFormats", "SplatImage", "SplatCore", "TestSupport"]),
        .testTarget(name: "SplatServiceTests", dependencies: ["SplatService", "SplatRender", "SplatFormats", "SplatImage", "SplatCore", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["SplatRenderCLI", "SplatFormats", "SplatImage", "SplatCore", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
