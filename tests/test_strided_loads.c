/* test_strided_loads.c — strided and halved reads (in(2x + 1), in(x / 2), x % 2 masks),
 * compiled, against the interpreter, with every input ending (or starting) exactly at a
 * guard page.
 *
 * Design note. Codegen reads an index whose lanes are lane 0's plus constant offsets
 * (strides 2-4, and halved coordinates once residue.c has specialized the loop on the
 * coordinate's parity) with dense loads of exactly the elements from the lowest offset to
 * the highest and a shuffle (llvm.c). Reading one element more would be wrong: the
 * buffer may end there. ASan does not instrument JIT code, so each input here is exactly
 * the region the kernel reads (computed in C from the read functions below, for each
 * output shape), its data placed against a PROT_NONE page: once ending at the upper
 * guard, once starting at the lower one. An over-read or under-read faults (the test
 * crashes); a wrong lane pattern differs from the interpreter. Every kernel runs at its
 * natural width and at a fixed one, on every x86 level this CPU runs, both selections,
 * over output mins of both parities and widths below, at and above the vector width.
 *
 * Output: a line per failure, then "test_strided_loads: N checks passed, M failed".
 */
#define _DEFAULT_SOURCE
#include "internal.h"

#include "testutil.h"

#include <sys/mman.h>
#include <unistd.h>

/* ---- guarded buffers ---------------------------------------------------------------------- */

typedef struct {
    unsigned char *map;
    size_t len;
} mapping;

/* bytes of memory between two PROT_NONE pages: at the upper guard (place 0) or the
 * lower one (place 1). */
static unsigned char *guarded(size_t bytes, int place, mapping *m) {
    size_t pg = (size_t)sysconf(_SC_PAGESIZE), n = (bytes + pg - 1) / pg * pg;
    m->len = n + 2 * pg;
    m->map = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    TINE_ASSERT(m->map != MAP_FAILED);
    TINE_ASSERT(mprotect(m->map, pg, PROT_NONE) == 0 && mprotect(m->map + pg + n, pg, PROT_NONE) == 0);
    return place ? m->map + pg : m->map + pg + n - bytes;
}

/* ---- kernels ------------------------------------------------------------------------------- */

/* A kernel of one 2-D input read at x coordinates f_j(x) (the same y): reads() gives them,
 * so the exact region is known. */
typedef struct {
    const char *name;
    const char *text; /* without the vectorize line */
    int nreads;
    int64_t (*read)(int j, int64_t x);
} kspec;

static int64_t fdiv(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

static int64_t r_half(int j, int64_t x) { return j == 0 ? fdiv(x, 2) : j == 1 ? fdiv(x + 1, 2) : fdiv(x, 4); }
static int64_t r_stride(int j, int64_t x) { return j == 0 ? 2 * x : j == 1 ? 2 * x + 1 : 3 * x + 2; }
static int64_t r_parity(int j, int64_t x) { return j == 0 ? fdiv(x, 2) : fdiv(x, 2) + 1; }
static int64_t r_offset(int j, int64_t x) { return j == 0 ? fdiv(x + 3, 2) : fdiv(x - 3, 4) + 5; }
static int64_t r_unrolled(int j, int64_t x) { return j == 0 ? fdiv(x, 2) : 2 * x - 1; }

static const kspec KS[] = {
    {"half_u8", "input in: u8[2]\noutput out(x, y): u8 = in(x / 2, y) + in((x + 1) / 2, y) * 3 - in(x / 4, y)\n", 3,
     r_half},
    {"stride_u16", "input in: u16[2]\noutput out(x, y): u16 = in(2 * x, y) - in(2 * x + 1, y) * 5 + in(3 * x + 2, y)\n",
     3, r_stride},
    {"parity_i16",
     "# a parity select over halved reads, one through a materialized stage (camera_pipe's shape)\n"
     "input in: i16[2]\nfunc m(x, y) = in(x, y) * 3 + 1\n"
     "output out(x, y): i16 = select(x % 2 == 0, m(x / 2, y), in(x / 2 + 1, y) - i16(x % 2))\n"
     "schedule\nmaterialize m\n",
     2, r_parity},
    {"offset_i32",
     "# offsets in the halved coordinates: the residue copies run behind a check that no lane wraps\n"
     "input in: u8[2]\noutput out(x, y): i32 = i32(in((x + 3) / 2, y)) * 7 + i32(in((x - 3) / 4 + 5, y)) - x\n",
     2, r_offset},
    {"unrolled_u16",
     "# unrolled vectors: the halved coordinate of each is a Let of the loop variable\n"
     "input in: u16[2]\noutput out(x, y): u16 = in(x / 2, y) ^ in(2 * x - 1, y)\nschedule\nunroll out.x 2\n",
     2, r_unrolled},
};
enum { NKS = (int)(sizeof KS / sizeof KS[0]) };

/* ---- levels --------------------------------------------------------------------------------- */

static const char *LEVELS[5];
static int NLEVELS;

static void detect_levels(void) {
    LEVELS[NLEVELS++] = "host";
    /* the registry's fixed targets this CPU runs (the AArch64 ones run under qemu only) */
    tine_ctx_t *ctx = tine_ctx_new();
    for (int i = 0; tine_target_name(ctx, i) && NLEVELS < 5; i++)
        if (tine_target_runs_here(ctx, tine_target_name(ctx, i)) == 1) LEVELS[NLEVELS++] = tine_target_name(ctx, i);
    tine_ctx_free(ctx);
}

/* ---- runs -------------------------------------------------------------------------------- */

/* Output x ranges: both parities of min, widths around the vector widths. */
static const int64_t XMIN[] = {0, -7, 3, 100};
static const int64_t XEXT[] = {1, 5, 16, 33, 64, 131};

/* Runs kernel k (spec s) compiled as c over every shape, inputs at guard place `place`. */
static void run_shapes(tine_kernel_t *k, const kspec *s, tine_compiled_t *c, const char *what, uint64_t *seed) {
    tine_ctx_t *ctx = tine_kernel_ctx(k);
    tine_type_t it, ot = tine_kernel_output_type(k);
    int idims;
    tine_kernel_input(k, 0, &it, &idims);
    int ib = it.bits / 8, ob = ot.bits / 8;
    for (size_t a = 0; a < sizeof XMIN / sizeof XMIN[0]; a++)
        for (size_t e = 0; e < sizeof XEXT / sizeof XEXT[0]; e++)
            for (int place = 0; place < 2; place++) {
                int64_t x0 = XMIN[a], w = XEXT[e], y0 = -1, h = 2;
                /* the exact region read: every read function is monotone in x */
                int64_t lo = INT64_MAX, hi = INT64_MIN;
                for (int j = 0; j < s->nreads; j++)
                    for (int64_t x = x0; x < x0 + w; x++) {
                        int64_t v = s->read(j, x);
                        lo = v < lo ? v : lo;
                        hi = v > hi ? v : hi;
                    }
                tine_buffer_t in = {.dims = 2}, out = {.dims = 2}, ref;
                in.min[0] = lo;
                in.extent[0] = hi - lo + 1;
                in.stride[0] = 1;
                in.min[1] = y0;
                in.extent[1] = h;
                in.stride[1] = in.extent[0];
                size_t ibytes = (size_t)(in.extent[0] * h) * (size_t)ib;
                mapping m;
                unsigned char *d = guarded(ibytes, place, &m);
                for (size_t i = 0; i < ibytes; i++) d[i] = (unsigned char)tine_rand64(seed);
                in.data = d;
                out.min[0] = x0;
                out.extent[0] = w;
                out.stride[0] = 1;
                out.min[1] = y0;
                out.extent[1] = h;
                out.stride[1] = w;
                size_t obytes = (size_t)(w * h) * (size_t)ob;
                ref = out;
                ref.data = calloc(obytes, 1);
                out.data = calloc(obytes, 1);
                TINE_ASSERT(ref.data && out.data);
                tine_buffer_t *inputs[1] = {&in};
                char ww[256];
                snprintf(ww, sizeof ww, "%s, out x in [%lld, %lld), input %s the guard", what, (long long)x0,
                         (long long)(x0 + w), place ? "starting at" : "ending at");
                if (tine_kernel_interpret(k, inputs, NULL, &ref) != 0) fail("%s: the interpreter: %s", ww, tine_error(ctx));
                else if (tine_compiled_run(c, inputs, NULL, &out) != 0) fail("%s: the run: %s", ww, tine_error(ctx));
                else if (memcmp(ref.data, out.data, obytes)) {
                    size_t i = 0;
                    while (((unsigned char *)ref.data)[i] == ((unsigned char *)out.data)[i]) i++;
                    fail("%s: element %zu (x = %lld) differs from the interpreter's", ww, i / (size_t)ob,
                         (long long)(x0 + (int64_t)(i / (size_t)ob) % w));
                } else pass();
                free(ref.data);
                free(out.data);
                munmap(m.map, m.len);
            }
}

int main(void) {
    detect_levels();
    uint64_t seed = 13;
    static const tine_selection_t sels[2] = {TINE_SELECT_LLVM, TINE_SELECT_TINE};
    for (int ki = 0; ki < NKS; ki++) {
        const kspec *s = &KS[ki];
        for (int wi = 0; wi < 2; wi++) {
            char text[2048], what[160];
            const char *sched = strstr(s->text, "schedule\n") ? "" : "schedule\n";
            snprintf(text, sizeof text, "%s%svectorize out.x %s\n", s->text, sched, wi ? "8" : "natural");
            tine_ctx_t *ctx = tine_ctx_new();
            tine_kernel_t *k = tine_kernel_parse(ctx, text, s->name);
            if (!k) {
                fail("%s: does not parse: %s", s->name, tine_error(ctx));
                tine_ctx_free(ctx);
                continue;
            }
            for (int l = 0; l < NLEVELS; l++)
                for (int si = 0; si < 2; si++) {
                    snprintf(what, sizeof what, "%s [lanes %d, %s, %s]", s->name, tine_kernel_lanes(k), LEVELS[l],
                             si ? "tine" : "llvm");
                    tine_compiled_t *c = tine_kernel_compile(k, LEVELS[l], sels[si]);
                    if (!c) {
                        fail("%s: does not compile: %s", what, tine_error(ctx));
                        continue;
                    }
                    run_shapes(k, s, c, what, &seed);
                    tine_compiled_free(c);
                }
            tine_kernel_free(k);
            tine_ctx_free(ctx);
        }
    }
    printf("test_strided_loads: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
