import CLibFuzzer
import Foundation

/// The libFuzzer bridge every target shares. SwiftPM links an executable's `main` to its
/// module's entry (`<module>_main`, what `@main` emits), so libFuzzer's own `main` never runs:
/// each target's `@main` calls `run`, which hands the command line to libFuzzer's driver with
/// `LLVMFuzzerTestOneInput` as the callback.
public enum FuzzEntry {
    /// The running target's check. The driver takes a C function pointer, which cannot carry a
    /// closure, so the check waits here; libFuzzer runs inputs one at a time on this thread.
    nonisolated(unsafe) static var check: @Sendable (UnsafeRawBufferPointer) -> Void = { _ in }

    /// Runs libFuzzer on `check` with this process's arguments and exits with its status.
    public static func run(_ check: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) -> Never {
        self.check = check
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzTestOneInput))
    }
}

/// libFuzzer's per-input callback, also the symbol its archive's unused `main` refers to.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzEntry.check(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
