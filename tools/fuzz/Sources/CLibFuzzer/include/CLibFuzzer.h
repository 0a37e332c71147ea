#ifndef CLIBFUZZER_H
#define CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver (compiler-rt FuzzerDriver.cpp, linked by -sanitize=fuzzer). SwiftPM points
// an executable's `main` at `<module>_main`, which each entry's `@main` provides; FuzzEntry.run
// (FuzzSupport) hands over here instead of relying on libFuzzer's own `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
