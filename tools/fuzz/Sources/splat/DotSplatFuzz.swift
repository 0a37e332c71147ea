import FuzzSupport
import SplatFormats

/// libFuzzer entry: antimatter15 .splat.
@main enum DotSplatFuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(Array($0), name: "fuzz.splat", format: .splat) } }
}
