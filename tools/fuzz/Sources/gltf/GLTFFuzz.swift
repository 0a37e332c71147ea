import CLibFuzzer
import FuzzSupport
import SplatFormats

/// libFuzzer entry: glTF JSON, GLB and .ksplat, named by their first bytes (FuzzInputs.gltfName)
/// and decoded through format detection.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    DecodeInvariants.run(Array(bytes), name: FuzzInputs.gltfName(bytes), format: nil)
    return 0
}

/// The executable's `main` (SwiftPM links `main` to `<module>_main`): libFuzzer's driver on `fuzz`.
@_cdecl("gltf_main")
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
