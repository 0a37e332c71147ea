#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#include <zlib.h>

/// inflateInit2 is a macro in zlib.h; Swift cannot call macros, so wrap it.
int czlib_inflate_init2(z_stream *strm, int windowBits);
/// deflateInit2 is a macro too.
int czlib_deflate_init2(z_stream *strm, int level, int windowBits);
#endif
