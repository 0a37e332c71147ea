// Declarations only; the definitions come from libclang_rt.fuzzer.
#include "CLibFuzzer.h"
