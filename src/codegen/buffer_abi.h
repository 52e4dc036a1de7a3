/* buffer_abi.h — the tine_buffer_t ABI, stated once: its fields in order, with their C
 * types and byte offsets, checked against the struct of tine.h (offsetof). The code
 * generator reads a caller's buffer by these offsets (stmt_gen.c) and the header of an
 * AOT kernel declares the struct from this list (aot.c). The offsets are those of LP64
 * targets, the only ones tine compiles for (x86-64, AArch64).
 *
 * X(field, C type, count (1: a scalar; else an array), offset)
 */
#ifndef TINE_BUFFER_ABI_H
#define TINE_BUFFER_ABI_H

#include "../internal.h"

#include <stddef.h>

#define TINE_BUFFER_FIELDS(X)                                                                                          \
    X(data, "void *", 1, 0)                                                                                            \
    X(dims, "int", 1, 8)                                                                                               \
    X(min, "int64_t", 4, 16)                                                                                           \
    X(extent, "int64_t", 4, 48)                                                                                        \
    X(stride, "int64_t", 4, 80)
enum {
    TINE_BUFFER_DIMS = 4, /* the array fields' length: the most dimensions a buffer has */
    TINE_BUFFER_SIZE = 112,
#define TINE_BUFFER_OFFSET_(field, ctype, count, offset) TINE_BUFFER_OFF_##field = offset,
    TINE_BUFFER_FIELDS(TINE_BUFFER_OFFSET_)
#undef TINE_BUFFER_OFFSET_
};
#define TINE_BUFFER_CHECK_(field, ctype, count, offset)                                                                \
    _Static_assert(offsetof(tine_buffer_t, field) == (offset), "tine_buffer_t." #field "'s offset");
TINE_BUFFER_FIELDS(TINE_BUFFER_CHECK_)
#undef TINE_BUFFER_CHECK_
_Static_assert(sizeof(tine_buffer_t) == TINE_BUFFER_SIZE, "sizeof (tine_buffer_t)");

#endif
