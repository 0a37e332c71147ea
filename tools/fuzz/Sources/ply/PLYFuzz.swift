import FuzzSupport
import SplatFormats

/// libFuzzer entry: 3DGS PLY in any of the three encodings.
@main enum PLYFuzz {
    static func main() {
        FuzzEntry.run { bytes in
            let file = Array(bytes)
            DecodeInvariants.run(file, name: "fuzz.ply", format: .ply)
            // The CLI's path: binary rows read from the file in slices.
            FileDecodeAgreement.run(file, name: "fuzz.ply", format: .ply, storages: [.float32])
        }
    }
}
