import FuzzSupport

/// libFuzzer entry: format detection and every decoder behind it; the first byte picks the file name.
@main enum DetectFuzz {
    static func main() {
        FuzzEntry.run { bytes in
            guard let first = bytes.first else { return }
            let name = FuzzInputs.detectNames[Int(first) % FuzzInputs.detectNames.count]
            DecodeInvariants.run(Array(bytes.dropFirst()), name: name, format: nil)
        }
    }
}
