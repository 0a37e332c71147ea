import FuzzSupport
import SplatFormats

/// libFuzzer entry: a bundled SOG (.sog zip) as it is: zip structure, meta.json, WebP images.
@main enum SOGZipFuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(Array($0), name: "fuzz.sog", format: .sog) } }
}
