import FuzzSupport
import SplatFormats

/// libFuzzer entry: SPZ v4 as is ("NGSP") or in the plain form ("NGSQ", streams wrapped in raw zstd frames).
@main enum SPZV4Fuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(FuzzInputs.spzV4($0), name: "fuzz.spz", format: .spz) } }
}
