/* bind.c — the Halide peer's side of peer.h: binds a benchmark case to a Halide
 * ahead-of-time function through the metadata Halide emits beside it.
 *
 * Every generator names its inputs and parameters as the .tine file does, so one binder
 * serves all kernels: each buffer argument becomes a halide_buffer_t over the case's
 * buffer (same data, mins and strides), each scalar the case's parameter value in the
 * argument's type. Names, element types and dimensions are checked, so a generator that
 * drifts from its kernel is refused with a message instead of computing something else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "HalideRuntime.h"
#include "halide_peer.h"

struct peer_call {
    const halide_peer_fn *fn;
    int nargs;
    void **argv;
    halide_buffer_t *bufs;
    halide_dimension_t *dims;
    struct halide_scalar_value_t *scalars;
};

static const char *kind_name(const struct halide_type_t *t) {
    return t->code == halide_type_int ? "i" : t->code == halide_type_uint ? "u" : "?";
}

static int buffer_arg(halide_buffer_t *hb, halide_dimension_t *dims, const struct halide_filter_argument_t *a,
                      const ref_buffer *rb, int bits, int is_signed, const char *kernel, char *err, size_t n) {
    int want_signed = a->type.code == halide_type_int;
    if (a->type.bits != bits || (a->type.code != halide_type_int && a->type.code != halide_type_uint) ||
        want_signed != (is_signed != 0) || a->dimensions != rb->dims) {
        snprintf(err, n, "%s: buffer %s is %s%d[%d] in the Halide generator, %s%d[%d] in the case", kernel, a->name,
                 kind_name(&a->type), a->type.bits, a->dimensions, is_signed ? "i" : "u", bits, rb->dims);
        return -1;
    }
    for (int d = 0; d < rb->dims; d++) {
        if (rb->min[d] != (int32_t)rb->min[d] || rb->extent[d] != (int32_t)rb->extent[d] ||
            rb->stride[d] != (int32_t)rb->stride[d]) {
            snprintf(err, n, "%s: buffer %s does not fit Halide's 32-bit geometry", kernel, a->name);
            return -1;
        }
        dims[d] = (halide_dimension_t){.min = (int32_t)rb->min[d], .extent = (int32_t)rb->extent[d],
                                       .stride = (int32_t)rb->stride[d]};
    }
    memset(hb, 0, sizeof *hb);
    hb->host = rb->data;
    hb->type = a->type;
    hb->dimensions = rb->dims;
    hb->dim = dims;
    return 0;
}

static int scalar_arg(struct halide_scalar_value_t *v, const struct halide_filter_argument_t *a, const bench_case *c,
                      const char *kernel, char *err, size_t n) {
    for (int i = 0; i < c->nparams; i++) {
        if (strcmp(c->param_names[i], a->name)) continue;
        int64_t x = c->params[i];
        memset(v, 0, sizeof *v);
        switch (a->type.code == halide_type_int || a->type.code == halide_type_uint ? a->type.bits : 0) {
        case 1: v->u.b = x != 0; return 0; /* bool */
        case 8: v->u.u8 = (uint8_t)x; return 0;
        case 16: v->u.u16 = (uint16_t)x; return 0;
        case 32: v->u.u32 = (uint32_t)x; return 0;
        case 64: v->u.u64 = (uint64_t)x; return 0;
        default:
            snprintf(err, n, "%s: parameter %s has a type the binder does not handle", kernel, a->name);
            return -1;
        }
    }
    snprintf(err, n, "%s: the Halide generator has a parameter %s the case does not", kernel, a->name);
    return -1;
}

void halide_peer_unbind(peer_call *call) {
    if (!call) return;
    free(call->argv);
    free(call->bufs);
    free(call->dims);
    free(call->scalars);
    free(call);
}

peer_call *halide_peer_bind(const peer_entry *e, const bench_case *c, void *out, char *err, size_t n) {
    const halide_peer_fn *fn = e->impl;
    const struct halide_filter_metadata_t *md = fn->metadata();
    peer_call *call = calloc(1, sizeof *call);
    int na = md->num_arguments;
    if (!call || !(call->argv = calloc((size_t)na, sizeof *call->argv)) ||
        !(call->bufs = calloc((size_t)na, sizeof *call->bufs)) ||
        !(call->dims = calloc((size_t)na * 4, sizeof *call->dims)) ||
        !(call->scalars = calloc((size_t)na, sizeof *call->scalars))) {
        snprintf(err, n, "%s: out of memory", e->kernel);
        halide_peer_unbind(call);
        return NULL;
    }
    call->fn = fn;
    call->nargs = na;
    int used_inputs = 0, used_params = 0;
    for (int i = 0; i < na; i++) {
        const struct halide_filter_argument_t *a = &md->arguments[i];
        int rc = -1;
        if (a->dimensions > 4) {
            snprintf(err, n, "%s: argument %s has more than 4 dimensions", e->kernel, a->name);
        } else if (a->kind == halide_argument_kind_output_buffer) {
            rc = buffer_arg(&call->bufs[i], &call->dims[4 * i], a, &c->out, c->out_bits,
                            a->type.code == halide_type_int, e->kernel, err, n);
            if (!rc) call->bufs[i].host = out;
        } else if (a->kind == halide_argument_kind_input_buffer) {
            int k = 0;
            while (k < c->ninputs && strcmp(c->in_names[k], a->name)) k++;
            if (k == c->ninputs) {
                snprintf(err, n, "%s: the Halide generator has an input %s the case does not", e->kernel, a->name);
            } else {
                rc = buffer_arg(&call->bufs[i], &call->dims[4 * i], a, &c->in[k], c->in_bits[k], c->in_signed[k],
                                e->kernel, err, n);
                used_inputs++;
            }
        } else {
            rc = scalar_arg(&call->scalars[i], a, c, e->kernel, err, n);
            used_params++;
        }
        if (rc) {
            halide_peer_unbind(call);
            return NULL;
        }
        call->argv[i] = a->kind == halide_argument_kind_input_scalar ? (void *)&call->scalars[i] : (void *)&call->bufs[i];
    }
    if (used_inputs != c->ninputs || used_params != c->nparams) {
        snprintf(err, n, "%s: the Halide generator takes %d inputs and %d parameters, the case has %d and %d", e->kernel,
                 used_inputs, used_params, c->ninputs, c->nparams);
        halide_peer_unbind(call);
        return NULL;
    }
    return call;
}

int halide_peer_run(peer_call *call) { return call->fn->argv(call->argv); }

/* The generator's run time for the function, which CMakeLists.txt records (timed.sh) in
 * HALIDE_PEER_AOT_DIR/NAME.ms: Halide's whole ahead-of-time compile, process included. */
double halide_peer_compile_ms(const peer_entry *e) {
    const halide_peer_fn *fn = e->impl;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.ms", HALIDE_PEER_AOT_DIR, fn->name);
    FILE *f = fopen(path, "r");
    double ms = -1;
    if (f) {
        if (fscanf(f, "%lf", &ms) != 1) ms = -1;
        fclose(f);
    }
    return ms;
}

/* The Halide targets the CMakeLists.txt builds for each tine row, and what each needs of
 * the processor. The AVX-512 row has two builds: Halide 14's avx512_sapphirerapids adds
 * VNNI and BF16 to Cannon Lake's AVX-512 F, CD, BW, DQ, VL and IFMA/VBMI, and has LLVM use
 * AVX512-FP16 too (softmax's object holds vmovw), which AMD's Zen 4 and Zen 5 do not have;
 * there the Cannon Lake build runs. */
int halide_peer_runs_here(const peer_entry *e) {
    __builtin_cpu_init();
    if (!strcmp(e->target, "x86-64-sse2")) return 1;
    if (!strcmp(e->target, "x86-64-sse41")) return __builtin_cpu_supports("sse4.1");
    if (!strcmp(e->target, "x86-64-avx2"))
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
    if (strcmp(e->target, "x86-64-avx512")) return 0;
    int cannonlake = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                     __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
                     __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512ifma") &&
                     __builtin_cpu_supports("avx512vbmi");
    if (!strstr(e->peer_target, "sapphirerapids")) return cannonlake;
    return cannonlake && __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512bf16") &&
           __builtin_cpu_supports("avx512fp16");
}
