#ifndef CPREFETCH_H
#define CPREFETCH_H

/// Starts loading the cache line at `address` for reading and returns at once (x86 PREFETCHT0,
/// arm64 PRFM PLDL1KEEP): a hint that never faults, whatever the address. Swift has no way to
/// say this; the compositor uses it to fetch its next batch of splat records while it blends the
/// current one.
static inline void splat_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

#endif
