import FuzzSupport
import SplatFormats

/// libFuzzer entry: SPZ v4 as is ("NGSP") or in the plain form ("NGSQ", streams wrapped in raw zstd frames).
@main enum SPZV4Fuzz {
    static func main() {
        FuzzEntry.run { bytes in
            let file = FuzzInputs.spzV4(bytes)
            DecodeInvariants.run(file, name: "fuzz.spz", format: .spz)
            // The CLI's path: streams read from the file in slices, SH as floats and as codes.
            FileDecodeAgreement.run(file, name: "fuzz.spz", format: .spz, storages: [.float32, .quantized])
        }
    }
}
