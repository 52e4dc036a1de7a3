/* tine_buffer.h — a harness buffer (ref/cases.h) as a tine_buffer_t, for code that has
 * tine_buffer_t from tine.h or from an AOT kernel's header (include one of them first). */
#ifndef TINE_BENCH_TINE_BUFFER_H
#define TINE_BENCH_TINE_BUFFER_H
#include <string.h>

#include "ref/cases.h"

static inline tine_buffer_t case_tine_buffer(const ref_buffer *b) {
    tine_buffer_t t;
    t.data = b->data;
    t.dims = b->dims;
    memcpy(t.min, b->min, sizeof t.min);
    memcpy(t.extent, b->extent, sizeof t.extent);
    memcpy(t.stride, b->stride, sizeof t.stride);
    return t;
}

#endif
