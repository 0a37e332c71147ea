/// SplitMix64 (Steele, Lea and Flood 2014; the seeding generator of xoshiro): a deterministic
/// generator for whatever must come out the same on every run and machine — test data, the
/// benchmark's stress scenes, sampled offsets — which `SystemRandomNumberGenerator` cannot
/// promise. Not for anything that must be unpredictable.
///
/// The first `next()` already mixes `seed + γ`, so small consecutive seeds give unrelated
/// sequences; the sequence for a seed is fixed and tests rely on it.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
