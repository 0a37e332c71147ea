import CLibFuzzer
import FuzzSupport
import SplatFormats

/// libFuzzer entry: SPZ v4 as is ("NGSP") or in the plain form ("NGSQ", streams wrapped in raw zstd frames).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    DecodeInvariants.run(FuzzInputs.spzV4(bytes), name: "fuzz.spz", format: .spz)
    return 0
}

/// The executable's `main` (SwiftPM links `main` to `<module>_main`): libFuzzer's driver on `fuzz`.
@_cdecl("spz_v4_main")
public func runLibFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}
