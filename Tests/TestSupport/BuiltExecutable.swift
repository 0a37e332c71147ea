import Foundation

/// The path of an executable SwiftPM built beside the running test bundle (`splatrender`,
/// `FleetTestWorker`): the bundle's folder, or the one above it (where the products of
/// `swift build` lie).
public func builtExecutable(_ name: String) -> String {
    let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let beside = bundle.appendingPathComponent(name).path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    return bundle.deletingLastPathComponent().appendingPathComponent(name).path
}
