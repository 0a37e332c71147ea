import FuzzSupport
import SplatFormats

/// libFuzzer entry: 3DGS PLY in any of the three encodings.
@main enum PLYFuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(Array($0), name: "fuzz.ply", format: .ply) } }
}
