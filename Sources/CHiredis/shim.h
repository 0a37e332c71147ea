// hiredis from Debian (libhiredis-dev). Swift calls redisCommandArgv: the variadic
// redisCommand does not import, and argv with lengths keeps arguments binary-safe.
#include <hiredis/hiredis.h>
