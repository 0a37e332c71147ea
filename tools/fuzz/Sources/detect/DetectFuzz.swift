import CLibFuzzer
import FuzzSupport
import SplatFormats

/// libFuzzer entry: format detection and every decoder behind it; the first byte picks the file name.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    guard size > 0 else { return 0 }
    let name = FuzzInputs.detectNames[Int(bytes[0]) % FuzzInputs.detectNames.count]
    DecodeInvariants.run(Array(bytes.dropFirst()), name: name, format: nil)
    return 0
}

/// The executable's `main` (SwiftPM links `main` to `<module>_main`): libFuzzer's driver on `fuzz`.
@_cdecl("detect_main")
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
