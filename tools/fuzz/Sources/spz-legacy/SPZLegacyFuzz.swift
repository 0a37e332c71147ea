import FuzzSupport
import SplatFormats

/// libFuzzer entry: legacy (gzip) SPZ; a non-gzip input is taken as an inflated payload and gzip-wrapped.
@main enum SPZLegacyFuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(FuzzInputs.spzLegacy($0), name: "fuzz.spz", format: .spz) } }
}
