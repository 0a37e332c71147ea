import FuzzSupport
import SplatFormats

/// libFuzzer entry: meta.json, a 0x00, then the WebP images; bundled in a correct stored zip.
@main enum SOGMetaFuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(FuzzInputs.sogParts($0), name: "fuzz.sog", format: .sog) } }
}
