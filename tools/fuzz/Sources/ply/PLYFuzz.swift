import CLibFuzzer
import FuzzSupport
import SplatFormats

/// libFuzzer entry: 3DGS PLY in any of the three encodings.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    DecodeInvariants.run(Array(bytes), name: "fuzz.ply", format: .ply)
    return 0
}

/// The executable's `main` (SwiftPM links `main` to `<module>_main`): libFuzzer's driver on `fuzz`.
@_cdecl("ply_main")
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
