// swift-tools-version:6.0
import PackageDescription

// libFuzzer entry points for the splatrender decoders, kept out of the main package because they
// need `-sanitize=fuzzer` (see README.md here). Build with:
//   swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library

// A path dependency's identity is its folder name, which depends on where the repository was
// cloned; name the product's package by that folder.
let root = Context.packageDirectory + "/../.."
let rootIdentity = String(Context.packageDirectory.split(separator: "/").dropLast(2).last ?? "splatrender").lowercased()

let entries = ["spz-legacy", "spz-v4", "ply", "compressed-ply", "sog-zip", "sog-meta", "splat", "detect", "gltf"]

let package = Package(
    name: "splatrender-fuzz",
    dependencies: [.package(path: root)],
    targets: [
        .target(name: "CLibFuzzer"),
        .target(name: "FuzzSupport",
                dependencies: ["CLibFuzzer", .product(name: "SplatRenderKit", package: rootIdentity)]),
    ] + entries.map { name in
        .executableTarget(name: name,
                          dependencies: ["FuzzSupport", .product(name: "SplatRenderKit", package: rootIdentity)],
                          path: "Sources/\(name)")
    },
    swiftLanguageModes: [.v6]
)
