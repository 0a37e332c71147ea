// The whole module is the inline function in include/CPrefetch.h; a C target needs a source file.
#include "CPrefetch.h"
