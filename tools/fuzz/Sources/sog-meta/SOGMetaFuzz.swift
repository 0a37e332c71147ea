import CLibFuzzer
import FuzzSupport
import SplatFormats

/// libFuzzer entry: meta.json, a 0x00, then the WebP images; bundled in a correct stored zip.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    DecodeInvariants.run(FuzzInputs.sogParts(bytes), name: "fuzz.sog", format: .sog)
    return 0
}

/// The executable's `main` (SwiftPM links `main` to `<module>_main`): libFuzzer's driver on `fuzz`.
@_cdecl("sog_meta_main")
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
