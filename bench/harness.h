/* harness.h — a benchmark case (bench/ref/cases.h) handed to tine: buffers, typed
 * parameter values, and a check that the .tine file declares what the case provides. */
#ifndef TINE_BENCH_HARNESS_H
#define TINE_BENCH_HARNESS_H
#include <stdio.h>
#include <string.h>

#include "ref/cases.h"
#include "tine.h"
#include "tine_buffer.h"

typedef struct {
    tine_buffer_t in[CASE_MAX_INPUTS], out;
    tine_buffer_t *inputs[CASE_MAX_INPUTS];
    int64_t storage[CASE_MAX_PARAMS]; /* each value in its parameter's type, at the start */
    const void *params[CASE_MAX_PARAMS];
} case_binding;

/* Binds c for kernel k, writing the output into out_data (c->out's geometry). Returns 0,
 * or -1 with a message in err when the kernel's inputs or parameters differ from the
 * case's (by count, name, element type or dimensions). */
static inline int case_bind(const bench_case *c, const tine_kernel_t *k, void *out_data, case_binding *b, char *err,
                            size_t n) {
    if (tine_kernel_ninputs(k) != c->ninputs || tine_kernel_nparams(k) != c->nparams) {
        snprintf(err, n, "%s: the kernel has %d inputs and %d parameters, the case %d and %d", c->name,
                 tine_kernel_ninputs(k), tine_kernel_nparams(k), c->ninputs, c->nparams);
        return -1;
    }
    for (int i = 0; i < c->ninputs; i++) {
        tine_type_t t;
        int dims;
        const char *name = tine_kernel_input(k, i, &t, &dims);
        if (strcmp(name, c->in_names[i]) || t.bits != c->in_bits[i] || dims != c->in[i].dims ||
            (t.kind == TINE_INT) != (c->in_signed[i] != 0)) {
            snprintf(err, n, "%s: input %d is %s in the kernel, %s in the case (or types differ)", c->name, i, name,
                     c->in_names[i]);
            return -1;
        }
        b->in[i] = case_tine_buffer(&c->in[i]);
        b->inputs[i] = &b->in[i];
    }
    for (int i = 0; i < c->nparams; i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(k, i, &t);
        if (strcmp(name, c->param_names[i])) {
            snprintf(err, n, "%s: parameter %d is %s in the kernel, %s in the case", c->name, i, name, c->param_names[i]);
            return -1;
        }
        int64_t v = c->params[i];
        b->storage[i] = 0;
        memcpy(&b->storage[i], &v, (size_t)(t.bits / 8)); /* little-endian: the low bytes */
        b->params[i] = &b->storage[i];
    }
    b->out = case_tine_buffer(&c->out);
    b->out.data = out_data;
    return 0;
}

#endif
