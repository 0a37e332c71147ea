import FuzzSupport
import SplatFormats

/// libFuzzer entry: glTF JSON, GLB and .ksplat, named by their first bytes (FuzzInputs.gltfName)
/// and decoded through format detection.
@main enum GLTFFuzz {
    static func main() { FuzzEntry.run { DecodeInvariants.run(Array($0), name: FuzzInputs.gltfName($0), format: nil) } }
}
