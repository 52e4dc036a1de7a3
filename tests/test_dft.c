/* test_dft.c — tine dft's compiled codelets against the interpreter of their own program.
 *
 * For each size, type, direction and x86 level this CPU runs, the codelet's program (the
 * target-level program after selection, the peephole optimizer and the scheduler) is
 * compiled by the JIT and run on a batch that is not a multiple of its block, in a
 * contiguous layout (rows and transposes) and a strided one (gathers by pairs); every
 * output of every transform must equal, bit for bit, what tine's interpreter computes from
 * the program's outputs with the same transform's inputs bound to the lanes of its block
 * (tine_eval: the semantics of each selected instruction, FMAs rounded once). The layout
 * code (loads, transposes, stores) and the order are the compiler's; the values are the
 * program's: any difference is the emitter's bug.
 */
#include "dft/dft.h"
#include "internal.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return rng;
}

static bool cpu_has(const char *flag) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return false;
    char line[8192];
    bool found = false;
    while (!found && fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5)) {
            char pat[64];
            snprintf(pat, sizeof pat, " %s ", flag);
            size_t n = strlen(line);
            if (n && line[n - 1] == '\n') line[n - 1] = ' ';
            found = strstr(line, pat) != NULL;
        }
    fclose(f);
    return found;
}

/* The element at float index i of a buffer of T, as the bits tine's lanes hold. */
static uint64_t bits_at(const void *buf, size_t i, int bits) {
    if (bits == 32) {
        uint32_t w;
        memcpy(&w, (const char *)buf + 4 * i, 4);
        return w;
    }
    uint64_t w;
    memcpy(&w, (const char *)buf + 8 * i, 8);
    return w;
}

/* One codelet on one layout: every output against the interpreter. */
static void run_layout(tine_ctx_t *ctx, const dft_codelet *c, dft_fn fn, ptrdiff_t hm, ptrdiff_t is, ptrdiff_t id,
                       ptrdiff_t os, ptrdiff_t od, const char *what) {
    int n = c->n, v = c->v, bits = c->elem.bits, bytes = bits / 8;
    size_t nin = (size_t)(2 * ((hm - 1) * id + (n - 1) * is + 1)), nout = (size_t)(2 * ((hm - 1) * od + (n - 1) * os + 1));
    char *in = malloc(nin * (size_t)bytes), *out = calloc(nout, (size_t)bytes);
    for (size_t i = 0; i < nin; i++) {
        double x = (double)(int64_t)(next() >> 11) / 4503599627370496.0 - 1; /* [-1, 1) */
        if (next() % 16 == 0) x *= 1e30;                                     /* and a few large */
        if (bits == 32) {
            float f = (float)x;
            memcpy(in + 4 * i, &f, 4);
        } else memcpy(in + 8 * i, &x, 8);
    }
    fn(in, out, hm, is, id, os, od);
    const tine_tprog *p = c->prog;
    long bad = 0;
    for (ptrdiff_t b = 0; b < hm; b += v) {
        tine_env_t *env = tine_env_new(ctx);
        for (int q = 0; q < p->ninputs; q++) {
            uint64_t lanes[TINE_MAX_LANES];
            for (int l = 0; l < v; l++) {
                ptrdiff_t t = b + l < hm ? b + l : hm - 1;
                lanes[l] = bits_at(in, (size_t)(2 * (t * id + c->in_elem[q] * is) + c->in_part[q]), bits);
            }
            tine_env_bind(env, p->inputs[q], lanes);
        }
        for (int k = 0; k < p->nouts; k++) {
            uint64_t want[TINE_MAX_LANES];
            if (tine_eval(ctx, p->outs[k].value, env, want)) {
                fail("n=%d %s: the interpreter refused output %s: %s", n, what, p->outs[k].name, tine_error(ctx));
                bad++;
                continue;
            }
            for (int l = 0; l < v && b + l < hm; l++) {
                ptrdiff_t t = b + l;
                uint64_t got = bits_at(out, (size_t)(2 * (t * od + c->out_elem[k] * os) + c->out_part[k]), bits);
                uint64_t w = bits == 32 ? (uint32_t)want[l] : want[l];
                if (got != w && !bad++)
                    fail("n=%d f%d %s %s: transform %td output %s: compiled %#llx, interpreter %#llx", n, bits,
                         p->target, what, t, p->outs[k].name, (unsigned long long)got, (unsigned long long)w);
            }
        }
        tine_env_free(env);
    }
    if (!bad) pass();
    free(in);
    free(out);
}

static void one(tine_ctx_t *ctx, const char *target, int bits, int n, const char *type, bool inverse) {
    tine_dft_opts o = {.n = n, .type = type, .target = target, .inverse = inverse, .vector_bits = bits};
    char name[32];
    snprintf(name, sizeof name, "dft_%d", n);
    dft_codelet c = {.n = n, .name = name};
    c.elem = tine_type(TINE_FLOAT, type[1] == '6' ? 64 : 32, 1);
    tine_buf rep = {0};
    if (!dft_build(ctx, &o, &c, &rep)) {
        fail("%s n=%d %s: %s", target, n, type, tine_error(ctx));
        free(rep.p);
        dft_codelet_free(&c);
        return;
    }
    free(rep.p);
    dft_jit *j = dft_jit_new(ctx, &c);
    if (!j) {
        fail("%s n=%d %s: the JIT: %s", target, n, type, tine_error(ctx));
        dft_codelet_free(&c);
        return;
    }
    ptrdiff_t hm = 2 * c.v + 3;
    run_layout(ctx, &c, dft_jit_fn(j), hm, 1, n, 1, n, "contiguous");
    run_layout(ctx, &c, dft_jit_fn(j), hm, 3, 3 * n + 1, 2, 2 * n + 1, "strided");
    run_layout(ctx, &c, dft_jit_fn(j), 1, 1, n, 1, n, "one transform");
    dft_jit_free(j);
    dft_codelet_free(&c);
}

int main(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    const char *targets[4];
    int bits[4], nt = 0;
    targets[nt] = "x86-64-sse41", bits[nt++] = 0;
    if (cpu_has("avx2") && cpu_has("fma")) targets[nt] = "x86-64-avx2", bits[nt++] = 0;
    if (cpu_has("avx512f") && cpu_has("avx512bw") && cpu_has("avx512vl")) {
        targets[nt] = "x86-64-avx512", bits[nt++] = 0; /* 256-bit blocks, 32 registers */
        targets[nt] = "x86-64-avx512", bits[nt++] = 512;
    }
#if defined(__SANITIZE_ADDRESS__)
    static const int sizes[] = {2, 5, 12, 16};
#else
    static const int sizes[] = {2, 3, 4, 5, 8, 12, 15, 16, 32, 64};
#endif
    double t0 = now();
    for (int ti = 0; ti < nt; ti++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
            for (int ty = 0; ty < 2; ty++) one(ctx, targets[ti], bits[ti], sizes[si], ty ? "f64" : "f32", (si + (size_t)ty) % 2);
    tine_ctx_free(ctx);
    printf("test_dft: %lld passed, %lld failed (%d targets, %.1f s)\n", g_pass, g_fail, nt, now() - t0);
    return g_fail != 0;
}
