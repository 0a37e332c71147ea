import FuzzSupport
import SplatFormats

/// libFuzzer entry: PlayCanvas compressed PLY.
@main enum CompressedPLYFuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(Array($0), name: "fuzz.compressed.ply", format: .compressedPLY) } }
}
