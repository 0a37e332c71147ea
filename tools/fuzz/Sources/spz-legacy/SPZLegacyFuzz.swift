import FuzzSupport
import SplatFormats

/// libFuzzer entry: legacy (gzip) SPZ; a non-gzip input is taken as an inflated payload and gzip-wrapped.
@main enum SPZLegacyFuzz {
    static func main() {
        FuzzEntry.run { bytes in
            let file = FuzzInputs.spzLegacy(bytes)
            DecodeInvariants.run(file, name: "fuzz.spz", format: .spz)
            // The CLI's thumbnails keep the SH as codes.
            FileDecodeAgreement.run(file, name: "fuzz.spz", format: .spz, storages: [.quantized])
        }
    }
}
