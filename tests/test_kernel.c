/* test_kernel.c — kernels (.tine files): parsing and checking, the region check, and
 * running them on the interpreter and as compiled loop nests.
 *
 * Design note. A kernel goes text -> checked syntax -> vector and scalar bodies -> (a) the
 * reference run on the interpreter, (b) LLVM loop nests for a target, with tine's or LLVM's
 * instruction selection. Three parts pin it:
 *
 *   1. Malformed kernels, data/bad_kernels.txt (format at the top of that file): each is
 *      parsed with tine_kernel_parse(ctx, text, "<kernel>"), must fail, and must give
 *      exactly the stored message (location, source line, caret). `test_kernel --bless`
 *      (run in tests/) rewrites the messages with tine's current ones; review the diff.
 *      `--bless` and `--malformed` run this part alone.
 *   2. Buffers too small for the output: tine_kernel_check_region, tine_kernel_interpret
 *      and tine_compiled_run must each return -1 with an error naming the input (or the
 *      empty output), and leave the output untouched; the margins that suffice must be
 *      accepted and give the hand-computed values. Every buffer is allocated to exactly
 *      the elements it spans, so under ASan any read or write outside it is caught.
 *   3. Kernels that run: small kernels written here (1-D to 4-D outputs; u8/i16/u16/i32/f32
 *      outputs; integer params; edge and constant boundaries; let; sum/min/max
 *      reductions; FPIR ops) at their natural vector width and three of 1, 4, ..., 64
 *      each (every width by half of them), and every file in ../bench/kernels and ../bench/user. Each runs
 *      over output shapes whose widths are not multiples of the vector width (and
 *      narrower than it: the scalar path), with non-zero output mins, padded rows
 *      (stride > extent: the padding must stay untouched), random inputs with a margin,
 *      and — when the region check accepts it, which it must for kernels that read only
 *      through boundaries — inputs smaller than the output (boundaries clamp and fill).
 *      The interpreter's output is the reference: the compiled code for every selection
 *      on every fixed x86 target this CPU runs (and "host" when run by hand, without
 *      TINE_TEST_LEVELS_ONLY) must be byte-identical to it
 *      (the whole output allocation, padding included). Some kernels also have a scalar
 *      C reference written here from BENCHMARKS.md, independent of tine, which the
 *      interpreter must match.
 *
 * Output: a line per failure, then "test_kernel: N checks passed, M failed"; the exit
 * status is non-zero on any failure.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include "../bench/ref/cases.h"
#include "testutil.h"

#include <dirent.h>
#include <inttypes.h>
#include <time.h>

/* ==== 1. malformed kernels ================================================================ */

/* One case: parse, require failure and exactly `expected` (NULL: any). Returns the message. */
static char *check_bad(tine_ctx_t *ctx, const char *what, const char *text, const char *expected) {
    tine_clear_error(ctx);
    tine_kernel_t *k = tine_kernel_parse(ctx, text, "<kernel>");
    if (k) {
        fail("%s: the kernel is accepted, but should not be:\n%s", what, text);
        tine_kernel_free(k);
        return tine_strdup("(accepted)");
    }
    const char *msg = tine_error(ctx) ? tine_error(ctx) : "(no message)";
    if (expected && strcmp(msg, expected))
        fail("%s: wrong message\n--- kernel\n%s--- expected\n%s\n--- got\n%s\n---", what, text, expected, msg);
    else if (expected) pass();
    return tine_strdup(msg);
}

typedef struct {
    char *title;
    int line;
    tine_buf text, expected;
    int nexpected; /* lines */
} bad_case;

static void finish_case(tine_ctx_t *ctx, const char *path, bad_case *c, bool bless, tine_buf *out, int *cases,
                        int *unsupported) {
    char what[300];
    snprintf(what, sizeof what, "%s:%d (%s)", path, c->line, c->title);
    const char *text = c->text.p ? c->text.p : "";
    /* the expected lines, trailing blank lines dropped */
    char *exp = tine_strdup(c->expected.p ? c->expected.p : "");
    size_t n = strlen(exp);
    while (n && exp[n - 1] == '\n') exp[--n] = 0;
    if (!n && !bless) fail("%s: the case has no expected message", what);
    char *got = check_bad(ctx, what, text, bless ? NULL : exp);
    if (strstr(got, "is not supported by the loop lowering yet")) ++*unsupported;
    if (bless) tine_buf_printf(out, "== %s\n%s--\n%s\n\n", c->title, text, got);
    free(got);
    free(exp);
    free(c->title);
    free(c->text.p);
    free(c->expected.p);
    memset(c, 0, sizeof *c);
    ++*cases;
}

static void test_bad_kernels(const char *path, bool bless) {
    char *file = read_file(path);
    if (!file) {
        fail("cannot read %s (the test runs in tests/)", path);
        return;
    }
    tine_ctx_t *ctx = tine_ctx_new();
    tine_buf out = {0};
    bad_case c = {0};
    bool open = false, in_expected = false;
    int cases = 0, unsupported = 0, lineno = 0;
    for (char *p = file; *p;) {
        char *nl = strchr(p, '\n');
        char *next_line = nl ? nl + 1 : p + strlen(p);
        if (nl) *nl = 0;
        lineno++;
        if (!strncmp(p, "== ", 3)) {
            if (open) {
                if (!in_expected) fail("%s:%d: the case has no '--' line", path, c.line);
                finish_case(ctx, path, &c, bless, &out, &cases, &unsupported);
            }
            open = true;
            in_expected = false;
            c.title = tine_strdup(p + 3);
            c.line = lineno;
        } else if (!open) {
            if (bless) tine_buf_printf(&out, "%s\n", p); /* the header */
        } else if (!in_expected && !strcmp(p, "--")) {
            in_expected = true;
        } else if (!in_expected) {
            tine_buf_printf(&c.text, "%s\n", p);
        } else {
            tine_buf_printf(&c.expected, "%s\n", p);
        }
        p = next_line;
    }
    if (open) {
        if (!in_expected) fail("%s:%d: the case has no '--' line", path, c.line);
        finish_case(ctx, path, &c, bless, &out, &cases, &unsupported);
    }
    if (bless) {
        if (out.n && out.p[out.n - 1] == '\n' && out.n > 1 && out.p[out.n - 2] == '\n') out.n--; /* no blank line at EOF */
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(out.p, 1, out.n, f) != out.n) fail("cannot write %s", path);
        if (f) fclose(f);
        printf("blessed %s: %d cases\n", path, cases);
    }
    check(cases >= 25, "%s: only %d cases; the corpus should have at least 25", path, cases);
    /* every directive is carried out now: none may be "not supported yet" */
    check(unsupported == 0, "%s: %d cases of a directive the loop lowering does not support yet", path, unsupported);
    printf("malformed kernels: %d cases\n", cases);
    free(out.p);
    free(file);
    tine_ctx_free(ctx);
}

/* ==== buffers ============================================================================= */

typedef struct {
    tine_buffer_t b;
    tine_type_t t;
    size_t count; /* elements allocated: exactly the span */
} buf_t;

static size_t span_of(const tine_buffer_t *b) {
    size_t n = 1;
    for (int d = 0; d < b->dims; d++) {
        if (b->extent[d] < 1) return 1;
        n += (size_t)(b->extent[d] - 1) * (size_t)b->stride[d];
    }
    return n;
}

/* A buffer of `dims` dimensions; rows padded by `pad` elements (stride[1] = extent[0] + pad). */
static buf_t make_buf(tine_type_t t, int dims, const int64_t *mn, const int64_t *ext, int64_t pad) {
    buf_t r;
    memset(&r, 0, sizeof r);
    r.t = t;
    r.b.dims = dims;
    int64_t s = 1;
    for (int d = 0; d < 4; d++) {
        r.b.min[d] = d < dims ? mn[d] : 0;
        r.b.extent[d] = d < dims ? ext[d] : 1;
        r.b.stride[d] = s;
        if (d < dims) s = s * (ext[d] > 0 ? ext[d] : 1) + (d == 0 ? pad : 0);
    }
    r.count = span_of(&r.b);
    r.b.data = malloc(r.count * (size_t)(t.bits / 8));
    TINE_ASSERT(r.b.data != NULL);
    return r;
}

static void free_buf(buf_t *b) {
    free(b->b.data);
    b->b.data = NULL;
}

static size_t buf_bytes(const buf_t *b) { return b->count * (size_t)(b->t.bits / 8); }

static size_t index_of(const tine_buffer_t *b, const int64_t *c) {
    size_t i = 0;
    for (int d = 0; d < b->dims; d++) i += (size_t)(c[d] - b->min[d]) * (size_t)b->stride[d];
    return i;
}

/* An element as a number (integers exactly; floats as a double). */
static double get_f(const buf_t *b, const int64_t *c) {
    size_t i = index_of(&b->b, c);
    if (b->t.kind == TINE_FLOAT) return b->t.bits == 32 ? (double)((float *)b->b.data)[i] : ((double *)b->b.data)[i];
    return 0;
}

static int64_t get_i(const buf_t *b, const int64_t *c) {
    size_t i = index_of(&b->b, c);
    bool s = b->t.kind == TINE_INT;
    switch (b->t.bits) {
    case 8: return s ? (int64_t)((int8_t *)b->b.data)[i] : (int64_t)((uint8_t *)b->b.data)[i];
    case 16: return s ? (int64_t)((int16_t *)b->b.data)[i] : (int64_t)((uint16_t *)b->b.data)[i];
    case 32: return s ? (int64_t)((int32_t *)b->b.data)[i] : (int64_t)((uint32_t *)b->b.data)[i];
    default: return ((int64_t *)b->b.data)[i];
    }
}

/* The element with every coordinate clamped into the buffer (edge). */
static bool inside(const buf_t *b, const int64_t *c) {
    for (int d = 0; d < b->b.dims; d++)
        if (c[d] < b->b.min[d] || c[d] >= b->b.min[d] + b->b.extent[d]) return false;
    return true;
}

static void set_i(buf_t *b, const int64_t *c, int64_t v) {
    size_t i = index_of(&b->b, c);
    switch (b->t.bits) {
    case 8: ((uint8_t *)b->b.data)[i] = (uint8_t)v; break;
    case 16: ((uint16_t *)b->b.data)[i] = (uint16_t)v; break;
    case 32: ((uint32_t *)b->b.data)[i] = (uint32_t)v; break;
    default: ((int64_t *)b->b.data)[i] = v; break;
    }
}

static void set_f(buf_t *b, const int64_t *c, double v) {
    size_t i = index_of(&b->b, c);
    if (b->t.bits == 32) ((float *)b->b.data)[i] = (float)v;
    else ((double *)b->b.data)[i] = v;
}

/* Random contents: any bit pattern for integers; floats finite, multiples of 1/8 in ±1000. */
static void fill_random(buf_t *b, uint64_t *seed) {
    size_t es = (size_t)(b->t.bits / 8);
    for (size_t i = 0; i < b->count; i++) {
        uint64_t v = tine_rand64(seed);
        if (b->t.kind == TINE_FLOAT) {
            double f = (double)((int64_t)(v % 16001) - 8000) / 8.0;
            if (es == 4) {
                float x = (float)f;
                memcpy((char *)b->b.data + i * es, &x, es);
            } else {
                memcpy((char *)b->b.data + i * es, &f, es);
            }
        } else {
            memcpy((char *)b->b.data + i * es, &v, es); /* little-endian host */
        }
    }
}

/* Every coordinate of a box, in order: c[0] fastest. Returns false after the last. */
static bool next_coord(int dims, const int64_t *mn, const int64_t *ext, int64_t *c) {
    for (int d = 0; d < dims; d++) {
        if (++c[d] < mn[d] + ext[d]) return true;
        c[d] = mn[d];
    }
    return false;
}

#define FOR_EACH(c, dims, mn, ext)                                                              \
    for (bool more_ = (memcpy(c, mn, sizeof(int64_t) * (size_t)(dims)), true); more_;          \
         more_ = next_coord(dims, mn, ext, c))

static const int64_t *cshift(int64_t *tmp, const int64_t *c, int dims, int64_t dx, int64_t dy) {
    for (int d = 0; d < dims; d++) tmp[d] = c[d];
    tmp[0] += dx;
    if (dims > 1) tmp[1] += dy;
    return tmp;
}

/* ==== scalar C references (BENCHMARKS.md and the kernels below), independent of tine ==== */

typedef void (*cref_fn)(buf_t *const *in, const int64_t *params, buf_t *out);

static int64_t absd64(int64_t a, int64_t b) { return a > b ? a - b : b - a; }

/* gaussian3x3: r = i16(in(x,y-1)) + 2 i16(in(x,y)) + i16(in(x,y+1)); out = u8((r(x-1) + 2r(x) + r(x+1) + 8) >> 4) */
static void ref_gaussian3x3(buf_t *const *in, const int64_t *params, buf_t *out) {
    (void)params;
    int64_t c[4] = {0}, t[4] = {0};
    FOR_EACH(c, 2, out->b.min, out->b.extent) {
        int64_t r[3];
        for (int i = 0; i < 3; i++)
            r[i] = get_i(in[0], cshift(t, c, 2, i - 1, -1)) + 2 * get_i(in[0], cshift(t, c, 2, i - 1, 0)) +
                   get_i(in[0], cshift(t, c, 2, i - 1, 1));
        set_i(out, c, (uint8_t)((r[0] + 2 * r[1] + r[2] + 8) >> 4));
    }
}

/* sat1d (below): saturating_add(absd(in(x), in(x + 1)), k) in u8 */
static void ref_sat1d(buf_t *const *in, const int64_t *params, buf_t *out) {
    int64_t c[4] = {0}, t[4] = {0};
    FOR_EACH(c, 1, out->b.min, out->b.extent) {
        int64_t v = absd64(get_i(in[0], c), get_i(in[0], cshift(t, c, 1, 1, 0))) + (uint8_t)params[0];
        set_i(out, c, v > 255 ? 255 : v);
    }
}

/* box2d (below): sum over dy in -1..1, dx in -2..2 of u16(constant(in, 7)) */
static void ref_box2d(buf_t *const *in, const int64_t *params, buf_t *out) {
    (void)params;
    int64_t c[4] = {0}, t[4] = {0};
    FOR_EACH(c, 2, out->b.min, out->b.extent) {
        int64_t s = 0;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -2; dx <= 2; dx++) {
                cshift(t, c, 2, dx, dy);
                s += inside(in[0], t) ? get_i(in[0], t) : 7;
            }
        set_i(out, c, s);
    }
}

/* vol3d (below): sum over r in 0..2 of i32(in(x+r, y, z)) * (z + 1), + i32(in(x, y+1, z-1)) * w - y; wrapping i32 */
static void ref_vol3d(buf_t *const *in, const int64_t *params, buf_t *out) {
    int64_t c[4] = {0}, t[4] = {0};
    FOR_EACH(c, 3, out->b.min, out->b.extent) {
        uint32_t s = 0;
        for (int r = 0; r < 3; r++) {
            memcpy(t, c, sizeof t);
            t[0] += r;
            s += (uint32_t)get_i(in[0], t) * (uint32_t)(c[2] + 1);
        }
        memcpy(t, c, sizeof t);
        t[1] += 1;
        t[2] -= 1;
        s += (uint32_t)get_i(in[0], t) * (uint32_t)(int32_t)params[0];
        s -= (uint32_t)c[1];
        set_i(out, c, (int32_t)s);
    }
}

/* xor4d (below): in(x, y, z, w) ^ u8(x + 2y + 3z + 5w) */
static void ref_xor4d(buf_t *const *in, const int64_t *params, buf_t *out) {
    (void)params;
    int64_t c[4] = {0};
    FOR_EACH(c, 4, out->b.min, out->b.extent) {
        set_i(out, c, get_i(in[0], c) ^ (uint8_t)(c[0] + 2 * c[1] + 3 * c[2] + 5 * c[3]));
    }
}

/* mix_f32 (below): a(x, y) * 0.25 + f32(b(x + 1, y)) - f32(k) + max(a(x - 1, y), a(x, y - 1)), in float */
static void ref_mix_f32(buf_t *const *in, const int64_t *params, buf_t *out) {
    int64_t c[4] = {0}, t[4] = {0};
    FOR_EACH(c, 2, out->b.min, out->b.extent) {
        float a = (float)get_f(in[0], c), l = (float)get_f(in[0], cshift(t, c, 2, -1, 0)),
              u = (float)get_f(in[0], cshift(t, c, 2, 0, -1));
        float v = a * 0.25f + (float)get_i(in[1], cshift(t, c, 2, 1, 0));
        v = v - (float)(int16_t)params[0];
        v = v + (l > u ? l : u);
        set_f(out, c, v);
    }
}

/* reduce_var (below): a reduction's variable is an i32, whether its bounds are constants
 * (unrolled) or parameters (a loop): r * 2^30 wraps, / rounds toward -inf, casts of
 * negative values truncate and reinterpret */
static int32_t floordiv32(int32_t a, int32_t b) {
    int32_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
static uint32_t wrap_term(int64_t r) { return (uint8_t)floordiv32((int32_t)((uint32_t)r * 1073741824u), 1073741824); }
static void ref_reduce_var(buf_t *const *in, const int64_t *params, buf_t *out) {
    int64_t c[4] = {0};
    FOR_EACH(c, 1, out->b.min, out->b.extent) {
        uint8_t a = 0;
        for (int r = 2; r < 4; r++) a = (uint8_t)(a + wrap_term(r));
        uint16_t b = 0;
        for (int r = -2; r < 1; r++) b = (uint16_t)(b + (uint16_t)r);
        uint32_t k = 0;
        for (int r = 2; r < (int32_t)params[0]; r++) k += wrap_term(r);
        uint32_t v = (uint32_t)a + (uint32_t)b + (uint32_t)(int32_t)-3 + k;
        set_i(out, c, (int64_t)(v ^ (uint32_t)get_i(in[0], c)));
    }
}

/* narrow_i32 (below): stages of i32 whose values fit u16, i8, i16 and none of them */
static void ref_narrow_i32(buf_t *const *in, const int64_t *params, buf_t *out) {
    (void)params;
    int64_t c[4] = {0}, t[4] = {0};
    FOR_EACH(c, 2, out->b.min, out->b.extent) {
        int64_t a = get_i(in[0], cshift(t, c, 2, 0, 1)) * 257, b = get_i(in[0], cshift(t, c, 2, -1, 0)) - 128;
        int64_t s = get_i(in[1], cshift(t, c, 2, 1, 0)) * 256 + 255, d = get_i(in[0], c) * 65536;
        set_i(out, c, (int32_t)(a - b * 3 + s + d / 7));
    }
}

/* ==== kernels ============================================================================= */

typedef struct {
    const char *name;
    const char *text;      /* without a schedule: the test adds `vectorize out.x W` */
    cref_fn ref;
    int64_t plo[4], phi[4]; /* parameter ranges (lo == hi: the type's whole range) */
    bool tight;             /* every read through a boundary: inputs smaller than the output work */
} kernel_spec;

/* A stride-2 pool with a parameter in its rows and constant() reads: slide_pool and
 * strip_pool run it under a sliding window and under strips. */
#define POOL_KERNEL                                                                               \
    "input in: u8[2]\n"                                                                           \
    "param k: i32\n"                                                                              \
    "func z = constant(in, 9)\n"                                                                  \
    "func h(x, y) = max(z(2 * x, y), z(2 * x + 1, y))\n"                                          \
    "output out(x, y): u8 = max(max(h(x, 2 * y + k - 1), h(x, 2 * y + k)), h(x, 2 * y + k + 1))\n"

static const kernel_spec KERNELS[] = {
    {"sat1d",
     "input in: u8[1]\n"
     "param k: u8\n"
     "output out(x): u8 = saturating_add(absd(in(x), in(x + 1)), k)\n",
     ref_sat1d, {0}, {0}, false},
    {"round1d",
     "# let, rounding_shr by an i16 parameter (any value: negative shifts left), i16 params\n"
     "input a: i16[1]\n"
     "input b: i16[1]\n"
     "param s: i16\n"
     "param bias: i16\n"
     "output out(x): i16 = let t = saturating_add(a(x), b(x - 2)) in rounding_shr(t, s) + bias * 3\n",
     NULL, {-20}, {20}, false},
    {"shift_uniform",
     "# << and >> by a parameter's count, the same in every lane (the code decides its sign and\n"
     "# range once, on the scalar): negative (the other way), zero, in range, past the width;\n"
     "# signed and unsigned; beside a per-lane count\n"
     "input a: i16[1]\n"
     "input b: u32[1]\n"
     "param s: i16\n"
     "param t: u8\n"
     "output out(x): i16 = (a(x) << s) ^ (a(x + 1) >> (s - 3)) ^ i16(b(x) >> u32(t)) ^ i16(b(x + 1) << u32(t + 1))\n"
     "    ^ (a(x) << (a(x + 1) & 7)) ^ (a(x + 2) << i16(15 - i32(t)))\n",
     NULL, {-20, 0}, {20, 40}, false},
    {"box2d",
     "input in: u8[2]\n"
     "func c = constant(in, 7)\n"
     "output out(x, y): u16 = sum(dy in -1..2) (sum(dx in -2..3) u16(c(x + dx, y + dy)))\n",
     ref_box2d, {0}, {0}, true},
    {"vol3d",
     "input in: i16[3]\n"
     "param w: i32\n"
     "output out(x, y, z): i32 = sum(r in 0..3) (i32(in(x + r, y, z)) * (z + 1)) + i32(in(x, y + 1, z - 1)) * w - y\n",
     ref_vol3d, {0}, {0}, false},
    {"reduce_var",
     "# a reduction's variable is an i32 also when constant bounds unroll it: 2 * 2^30 and\n"
     "# 3 * 2^30 wrap (u8 terms 254 and 255), u16(-2) and reinterpret<u32>(-3) are the\n"
     "# casts of an i32; the same wrapping sum with a parameter bound is a loop\n"
     "input in: u8[1]\n"
     "param K: i32\n"
     "output out(x): u32 = (u32(sum(r in 2..4) (u8((r * 1073741824) / 1073741824))) + u32(sum(r in -2..1) u16(r))\n"
     "    + reinterpret<u32>(min(r in -3..0) r) + sum(r in 2..K) u32(u8((r * 1073741824) / 1073741824))) ^ u32(in(x))\n",
     ref_reduce_var, {-1}, {7}, false},
    {"xor4d",
     "input in: u8[4]\n"
     "output out(x, y, z, w): u8 = in(x, y, z, w) ^ u8(x + 2 * y + 3 * z + 5 * w)\n",
     ref_xor4d, {0}, {0}, false},
    {"mix_f32",
     "input a: f32[2]\n"
     "input b: u8[2]\n"
     "param k: i16\n"
     "output out(x, y): f32 = a(x, y) * 0.25 + f32(b(x + 1, y)) - f32(k) + max(a(x - 1, y), a(x, y - 1))\n",
     ref_mix_f32, {0}, {0}, false},
    {"mulshr_u16",
     "# min and max reductions, mul_shr, a u16 parameter\n"
     "input in: u16[2]\n"
     "param m: u16\n"
     "output out(x, y): u16 = let hi = max(r in -1..2) in(x + r, y) in let lo = min(r in -2..1) in(x, y + r) in\n"
     "    mul_shr(hi, m, 8) + (hi - lo)\n",
     NULL, {0}, {0}, false},
    {"edge_i16",
     "input in: i16[2]\n"
     "param p: i8\n"
     "func e = edge(in)\n"
     "output out(x, y): i16 = rounding_shr(e(x - 1, y) + 2 * e(x, y) + e(x + 1, y + 2), 2) - i16(p)\n",
     NULL, {0}, {0}, true},
    {"widen_i32",
     "input in: i8[1]\n"
     "param k: i32\n"
     "param j: u16\n"
     "output out(x): i32 = i32(in(x)) * k + i32(j) - x * x + i32(widening_mul(in(x - 3), in(x + 3)))\n",
     NULL, {0}, {0}, false},
    {"select_u8",
     "input in: u8[2]\n"
     "param t: u8\n"
     "output out(x, y): u8 = select(in(x, y) > t, in(x + 1, y), u8(clamp(i16(in(x, y)) * 3 - 100, 0, 255)))\n",
     NULL, {0}, {0}, false},
    {"halving_u8",
     "input a: u8[2]\n"
     "func b = constant(a, 200)\n"
     "output out(x, y): u8 = rounding_halving_add(b(x, y), b(x, y + 1)) - halving_sub(b(x + 1, y), a(x, y))\n",
     NULL, {0}, {0}, false},
    {"u16_sat",
     "input in: u16[3]\n"
     "param s: u16\n"
     "output out(x, y, z): u16 = saturating_sub(in(x, y, z), s) + u16(saturating_cast<u8>(i32(in(x + 1, y, z)) - 300))\n",
     NULL, {0}, {0}, false},
    {"loops_i32",
     "# reductions with parameter bounds (loops): a dot product, a max over a symmetric\n"
     "# window, nested loops, empty ranges when K <= 0\n"
     "input in: u8[2]\n"
     "input w: i16[1]\n"
     "param K: i32\n"
     "param W: i32\n"
     "output out(x, y): i32 = sum(k in 0..K) (i32(in(x + k, y)) * i32(w(k - 4))) + max(j in -W..W + 1) i32(in(x, y + j))\n"
     "    - sum(a in 0..2) (sum(b in 0..K) i32(in(x - b, y)) * (a + 1))\n",
     NULL, {-2, -1}, {8, 4}, false},
    {"loops_u16",
     "# a triangular nest (the inner bound is the outer variable), min over a range that is\n"
     "# empty for K >= 3 (the identity, 65535), wrapping u16 sums\n"
     "input in: u16[2]\n"
     "param K: i32\n"
     "output out(x, y): u16 = sum(i in 0..K) (max(j in 0..i) in(x + j, y + 1)) + min(j in K..3) in(x - j, y)\n",
     NULL, {-1}, {7}, false},
    {"narrow_i32",
     "# i32 stages stored in the narrowest type that holds every value their bodies can take:\n"
     "# a in [0, 65535] as u16, b in [-128, 127] as i8, c in [-32513, 32767] as i16 (a\n"
     "# sliding window), d up to 255 * 65536 stays i32 (test_narrow_storage checks the types)\n"
     "input in: u8[2]\n"
     "input s: i8[2]\n"
     "func a(x, y) = i32(in(x, y)) * 257\n"
     "func b(x, y) = i32(in(x, y)) - 128\n"
     "func c(x, y) = i32(s(x, y)) * 256 + 255\n"
     "func d(x, y) = i32(in(x, y)) * 65536\n"
     "output out(x, y): i32 = a(x, y + 1) - b(x - 1, y) * 3 + c(x + 1, y) + d(x, y) / 7\n"
     "schedule\n"
     "materialize a\n"
     "materialize b\n"
     "compute_at c out.y\n"
     "materialize d\n",
     ref_narrow_i32, {0}, {0}, false},
    {"tile_any",
     "# narrow_i32 with tiles of two loops other than the first two coordinates in order:\n"
     "# a tiled y outside x (tiles of 5 rows by 3 columns: vector strips of 3, one lane at a\n"
     "# time), b's tiles of x and y after a reorder (a reshaped stage), 16 x 3 at 8 lanes,\n"
     "# two tiles per step (tiles and strips have tails at odd sizes)\n"
     "input in: u8[2]\n"
     "input s: i8[2]\n"
     "func a(x, y) = i32(in(x, y)) * 257\n"
     "func b(x, y) = i32(in(x, y)) - 128\n"
     "func c(x, y) = i32(s(x, y)) * 256 + 255\n"
     "func d(x, y) = i32(in(x, y)) * 65536\n"
     "output out(x, y): i32 = a(x, y + 1) - b(x - 1, y) * 3 + c(x + 1, y) + d(x, y) / 7\n"
     "schedule\n"
     "materialize a\n"
     "tile a y x 5 3\n"
     "materialize b\n"
     "reorder b.y b.x\n"
     "tile b x y 16 3\n"
     "unroll b.xo 2\n"
     "compute_at c out.y\n"
     "materialize d\n"
     "vectorize b.xi 8\n",
     ref_narrow_i32, {0}, {0}, false},
    {"store_as",
     "# narrow_i32 with each buffer's type chosen by store_as instead: a (i32 values of [0,\n"
     "# 65535]) as u32, the same bits of the other signedness; b as i16, wider than its i8;\n"
     "# c (a sliding window) as i32, its own type; d as i64, wider than its own type\n"
     "input in: u8[2]\n"
     "input s: i8[2]\n"
     "func a(x, y) = i32(in(x, y)) * 257\n"
     "func b(x, y) = i32(in(x, y)) - 128\n"
     "func c(x, y) = i32(s(x, y)) * 256 + 255\n"
     "func d(x, y) = i32(in(x, y)) * 65536\n"
     "output out(x, y): i32 = a(x, y + 1) - b(x - 1, y) * 3 + c(x + 1, y) + d(x, y) / 7\n"
     "schedule\n"
     "materialize a\n"
     "store_as a u32\n"
     "store_as b i16\n"
     "materialize b\n"
     "compute_at c out.y\n"
     "store_as c i32\n"
     "materialize d\n"
     "store_as d i64\n",
     ref_narrow_i32, {0}, {0}, false},
    {"stages_u8",
     "# materialized stages: a separable blur (v read by h, h by the output), a per-row\n"
     "# loop reduction computed once per row, a stage vectorized at its own width, and a\n"
     "# materialized function nobody reads (never computed)\n"
     "input in: u8[2]\n"
     "param K: i32\n"
     "func v(x, y) = u16(in(x, y - 1)) + 2 * u16(in(x, y)) + u16(in(x, y + 1))\n"
     "func h(x, y) = v(x - 1, y) + 2 * v(x, y) + v(x + 2, y)\n"
     "func rows(y) = sum(k in 0..K) u32(in(k - 3, y))\n"
     "func unused(x, y) = in(x, y) * 2\n"
     "output out(x, y): u8 = u8((h(x, y) + 8) >> 4) ^ u8(rows(y + 1)) + u8(v(x + 1, y - 1))\n"
     "schedule\n"
     "materialize v\n"
     "materialize h\n"
     "materialize rows\n"
     "materialize unused\n"
     "vectorize h.x 8\n",
     NULL, {-1}, {9}, false},
    {"sched_u8",
     "# unroll (vector loop and rows), tiles, parallel rows: every schedule directive\n"
     "input in: u8[2]\n"
     "param K: i32\n"
     "func v(x, y) = u16(in(x, y - 1)) + 2 * u16(in(x, y)) + u16(in(x, y + 1))\n"
     "func rs(y) = sum(k in 0..K) u32(in(k - 2, y))\n"
     "output out(x, y): u8 = u8((v(x - 1, y) + 2 * v(x, y) + v(x + 1, y) + 8) >> 4) + u8(rs(y))\n"
     "schedule\n"
     "materialize v\n"
     "materialize rs\n"
     "unroll v.x 3\n"
     "unroll v.y 2\n"
     "tile out x y 40 3\n"
     "unroll out.x 2\n"
     "parallel out.y\n",
     NULL, {-1}, {9}, false},
    {"sched_3d",
     "# a 3-D output: unrolled middle coordinate, parallel last coordinate\n"
     "input in: i16[3]\n"
     "output out(x, y, z): i16 = in(x, y, z) * 3 - in(x + 1, y - 1, z)\n"
     "schedule\n"
     "unroll out.y 3\n"
     "unroll out.x 4\n"
     "parallel out.z\n",
     NULL, {0}, {0}, false},
    {"stages_i32",
     "# a materialized stage with an edge() boundary and a 3-D loop-reduction stage\n"
     "input in: i16[3]\n"
     "param K: i32\n"
     "func e = edge(in)\n"
     "func sq(x, y, z) = i32(e(x, y, z)) * i32(e(x + 1, y, z))\n"
     "func acc(x, y, z) = sum(k in 0..K) sq(x, y + k - 2, z)\n"
     "output out(x, y, z): i32 = acc(x, y, z) - sq(x - 1, y, z) + z\n"
     "schedule\n"
     "materialize sq\n"
     "materialize acc\n",
     NULL, {-1}, {5}, true},
    {"slide_u16",
     "# compute_at: a horizontal pass slid down the output's rows (a window of 3, folded to\n"
     "# 4 rows), its rows unrolled by 2 and partitioned always; edge() reads\n"
     "input in: u8[2]\n"
     "func b = edge(in)\n"
     "func h(x, y) = u16(b(x - 1, y)) + 2 * u16(b(x, y)) + u16(b(x + 1, y))\n"
     "output out(x, y): u16 = h(x, y - 1) + 2 * h(x, y) + h(x, y + 1)\n"
     "schedule\n"
     "compute_at h out.y\n"
     "store_at h out.y\n"
     "unroll out.y 2\n"
     "partition out.y always\n",
     NULL, {0}, {0}, true},
    {"slide_pool",
     "# compute_at with stride-2 reads (rows 2y - 1 .. 2y + 1: a window of 3 sliding by 2)\n"
     "# and a parameter in the rows (the window's base), constant() reads\n"
     POOL_KERNEL
     "schedule\n"
     "compute_at h out.y\n"
     "vectorize h.x 8\n",
     NULL, {-3}, {3}, true},
    {"slide_chain",
     "# compute_at chained: f slides along g's rows, g along the output's (nested nests)\n"
     "input in: i16[2]\n"
     "func e = edge(in)\n"
     "func f(x, y) = i32(e(x, y)) * 3 - i32(e(x + 2, y))\n"
     "func g(x, y) = f(x, y - 2) + f(x + 1, y + 1)\n"
     "output out(x, y): i32 = g(x, y) - g(x - 1, y + 3) + y\n"
     "schedule\n"
     "compute_at g out.y\n"
     "compute_at f g.y\n"
     "unroll g.y 3\n",
     NULL, {0}, {0}, true},
    {"slide_3d",
     "# compute_at at a middle coordinate: the window restarts for each z (an outer\n"
     "# coordinate, which also picks f's rows of its middle coordinate); store_at outside\n"
     "input in: u8[3]\n"
     "func e = edge(in)\n"
     "func f(x, c, y) = u16(e(x, y, c)) * 3 + u16(e(x + 1, y, c))\n"
     "output out(x, y, z): u16 = f(x, z, y - 1) + f(x + 2, z, y + 1) + u16(y)\n"
     "schedule\n"
     "compute_at f out.y\n"
     "store_at f out.z\n",
     NULL, {0}, {0}, true},
    {"slide_mid",
     "# compute_at folding a middle coordinate (a pool's (c, x, y, b)): h's rows are its\n"
     "# third coordinate, its last a slice read at b + k (one kept at a time, the window\n"
     "# restarting with each b); chained (pr at out.y, h at pr.j), stride 2, rows unrolled\n"
     "input in: u8[4]\n"
     "param k: i32\n"
     "func z = constant(in, 7)\n"
     "func h(c, x, y, b) = max(z(c, 2 * x, y, b + k), z(c, 2 * x + 1, y - 1, b + k))\n"
     "func pr(c, x, j, b) = h(c, x, 2 * j - 1, b) - h(c, x + 1, 2 * j, b)\n"
     "output out(x, u, y, b): u8 = pr(x, u, y - 1, b) + pr(x, u + 1, y + 1, b) * 3\n"
     "schedule\n"
     "compute_at pr out.y\n"
     "compute_at h pr.j\n"
     "unroll out.y 3\n"
     "vectorize h.c 8\n",
     NULL, {-1}, {1}, true},
    {"slide_slice",
     "# compute_at folding the middle coordinate of a 3-D f whose last is read at one\n"
     "# constant slice (2) by a 2-D output; partitioned rows\n"
     "input in: i16[3]\n"
     "func e = edge(in)\n"
     "func f(x, y, s) = e(x, y, s) * 5 - e(x + 1, y, s - 1)\n"
     "output out(x, y): i16 = f(x, y - 1, 2) + f(x - 1, y + 2, 2)\n"
     "schedule\n"
     "compute_at f out.y\n"
     "partition out.y always\n",
     NULL, {0}, {0}, true},
    {"strip_conv",
     "# compute_at at a split's outer loop: the boundary of a 3x3 stencil computed for a whole\n"
     "# strip of 5 rows (its window of 7 rows, folded to 8) before the strip's rows, which are\n"
     "# unrolled by 2 and partitioned always; the strips do not divide the extents; edge() reads\n"
     "input in: u8[2]\n"
     "func e = edge(in)\n"
     "func b(x, y) = i16(e(x, y)) * 3 - 7\n"
     "output out(x, y): i16 = b(x - 1, y - 1) + b(x, y) * 2 - b(x + 1, y + 1) + b(x, y + 1)\n"
     "schedule\n"
     "split out.y yo yi 5\n"
     "compute_at b out.yo\n"
     "unroll out.yi 2\n"
     "partition out.yi always\n"
     "vectorize b.x 8\n",
     NULL, {0}, {0}, true},
    {"strip_pool",
     "# compute_at at a split's outer loop with stride-2 reads and a parameter in the rows: strips\n"
     "# of 3 rows read 2 * 3 + 2 rows of h; the strips unrolled by 2 (the second one guarded);\n"
     "# constant() reads\n"
     POOL_KERNEL
     "schedule\n"
     "split out.y yo yi 3\n"
     "compute_at h out.yo\n"
     "unroll out.yo 2\n",
     NULL, {-3}, {3}, true},
    {"strip_3d",
     "# compute_at at a split's outer loop of a 3-D output, reordered (z, yo, x, yi: the strip's\n"
     "# rows inside the vector loop); the window restarts for each z (f's slice)\n"
     "input in: u8[3]\n"
     "func e = edge(in)\n"
     "func f(x, y, c) = u16(e(x, y, c)) * 3 + u16(e(x + 1, y, c))\n"
     "output out(x, y, z): u16 = f(x, y - 1, z) + f(x + 2, y + 1, z) + u16(y)\n"
     "schedule\n"
     "split out.y yo yi 4\n"
     "reorder out.yi out.x out.yo out.z\n"
     "compute_at f out.yo\n",
     NULL, {0}, {0}, true},
    {"ctile_pool",
     "# channel tiles: the output split along its first coordinate into tiles of 13 (the last\n"
     "# shorter), the tiles outside its rows; p computed at out.y per tile and h at p.j per\n"
     "# p's tile, each shifted by its reads (p at x - 1 .. x, h at x .. x + 2), stride-2 rows,\n"
     "# constant() reads\n"
     "input in: u8[3]\n"
     "func z = constant(in, 7)\n"
     "func h(x, u, y) = u16(z(x, 2 * u, y)) + 3 * u16(z(x + 1, 2 * u + 1, y))\n"
     "func p(x, u, j) = h(x, u, 2 * j - 1) * 5 + h(x + 2, u, 2 * j)\n"
     "output out(x, u, y): u16 = p(x, u, y) + 7 * p(x - 1, u, y + 1) + u16(x)\n"
     "schedule\n"
     "split out.x xo xi 13\n"
     "reorder out.xi out.u out.y out.xo\n"
     "compute_at p out.y\n"
     "vectorize p.x 8\n"
     "compute_at h p.j\n",
     NULL, {0}, {0}, true},
    {"ctile_strip",
     "# channel tiles of 16 outside strips of 3 rows, a 4-D output (its last coordinate a\n"
     "# slice outside the tiles): f computed per tile and strip\n"
     "input in: u8[4]\n"
     "func e = edge(in)\n"
     "func f(x, u, y, b) = u16(e(x, u, y, b)) * 3 + u16(e(x + 1, u + 1, y, b))\n"
     "output out(x, u, y, b): u16 = f(x, u, y - 1, b) + 2 * f(x + 1, u, y + 1, b) + u16(b)\n"
     "schedule\n"
     "split out.y yo yi 3\n"
     "split out.x xo xi 16\n"
     "reorder out.xi out.u out.yi out.yo out.xo out.b\n"
     "compute_at f out.yo\n"
     "vectorize f.x 8\n",
     NULL, {0}, {0}, true},
    {"reshaped_at_y",
     "# compute_at at a whole row loop of a reshaped stage (x split into strips inside it,\n"
     "# the channels whole: every row computes all of them)\n"
     "input in: i16[2]\n"
     "func e = edge(in)\n"
     "func f(x, y) = i32(e(x, y)) * 3 - i32(e(x + 2, y))\n"
     "output out(x, y): i32 = f(x, y - 1) + f(x + 1, y + 2) * 5\n"
     "schedule\n"
     "split out.x xo xi 20\n"
     "compute_at f out.y\n",
     NULL, {0}, {0}, true},
    {"at_y_channels_inside",
     "# compute_at at out.y with out's channel loop inside its rows (reorder out.x out.c out.y,\n"
     "# camera_pipe): cv keeps every channel of its rows (c before its row coordinate), and g, read\n"
     "# by cv and d alone without c, runs once per row for all channels (several readers)\n"
     "input in: i16[2]\n"
     "input m: i16[1]\n"
     "func e = edge(in)\n"
     "func g(x, y) = i32(e(x, y)) * 3 - i32(e(x + 1, y / 2))\n"
     "func d(x, y) = g(x, y - 1) + g(x + 1, y)\n"
     "func cv(x, c, y) = i32(m(c)) * d(x, y) + g(x, y + 1) * c\n"
     "output out(x, y, c): i32 = cv(x, c, y - 1) + cv(x + 1, c, y + 1) * 5 + c\n"
     "schedule\n"
     "reorder out.x out.c out.y\n"
     "compute_at cv out.y\n"
     "compute_at d out.y\n"
     "compute_at g out.y\n",
     NULL, {0}, {0}, false},
    {"multi_dag",
     "# compute_at of a function with two readers: f read by g and by the output, both\n"
     "# computed at out.y (f's window the union of out's rows y + 2 and g's y - 1 .. y + 2,\n"
     "# through g's window y .. y + 1); the output's rows unrolled by 3 and partitioned\n"
     "input in: i16[2]\n"
     "func e = edge(in)\n"
     "func f(x, y) = e(x, y) * 3 - e(x + 1, y - 1)\n"
     "func g(x, y) = f(x, y - 1) + f(x + 1, y + 1)\n"
     "output out(x, y): i16 = g(x, y) - f(x, y + 2) + g(x - 1, y + 1)\n"
     "schedule\n"
     "compute_at g out.y\n"
     "compute_at f out.y\n"
     "unroll out.y 3\n"
     "partition out.y always\n"
     "vectorize f.x 8\n",
     NULL, {0}, {0}, true},
    {"multi_quads",
     "# camera_pipe's shape: d read by q (its 2x2 quads) and by the output, q by r and the\n"
     "# output at rows y / 2 (q's window moves every other row), all computed at out.y\n"
     "input in: u8[2]\n"
     "func e = edge(in)\n"
     "func d(x, y) = u16(e(x, y)) * 3 + u16(e(x + 1, y))\n"
     "func q(x, y) = d(2 * x, 2 * y) - d(2 * x + 1, 2 * y + 1)\n"
     "func r(x, y) = q(x, y - 1) + q(x + 1, y) * 5\n"
     "output out(x, y): u16 = select(y % 2 == 0, q(x / 2, y / 2), r(x / 2, y / 2)) + d(x, y - 1)\n"
     "schedule\n"
     "compute_at r out.y\n"
     "compute_at q out.y\n"
     "compute_at d out.y\n"
     "unroll out.y 2\n",
     NULL, {0}, {0}, true},
    {"multi_rows",
     "# softmax's shape: one-coordinate row reductions computed per row of the output (mx\n"
     "# read by ev, ev by s and the output, s by the output), vectorized along the row\n"
     "input in: u8[2]\n"
     "param W: i32\n"
     "func z = constant(in, 3)\n"
     "func mx(y) = max(k in 0..W) z(k, y)\n"
     "func ev(x, y) = i16(z(x, y)) - i16(mx(y))\n"
     "func s(y) = sum(k in 0..W) i32(ev(k, y))\n"
     "output out(x, y): i32 = i32(ev(x, y)) * 3 + s(y)\n"
     "schedule\n"
     "compute_at mx out.y\n"
     "compute_at ev out.y\n"
     "compute_at s out.y\n"
     "vectorize mx.k 16\n"
     "vectorize s.k 8\n"
     "vectorize ev.x 8\n",
     NULL, {1}, {9}, true},
    {"row_value",
     "# a one-coordinate function computed at out.y with no directive of its own: one value\n"
     "# per row, its window 9 rows (folded to 16), wider than its natural 8 lanes (issue 30)\n"
     "input in: u8[2]\n"
     "param W: i32\n"
     "func s(y) = sum(k in 0..W) i32(in(k, y))\n"
     "output out(x, y): i32 = s(y - 7) + s(y + 1) + i32(in(x, y))\n"
     "schedule\n"
     "compute_at s out.y\n",
     NULL, {1}, {9}, false},
    {"multi_strip",
     "# several readers at a split's outer loop: f read by g and the output, both computed\n"
     "# for strips of 3 rows (f's window for a strip: 3 + 4 rows); g's rows stride 2\n"
     "input in: i16[2]\n"
     "func e = edge(in)\n"
     "func f(x, y) = e(x, y) * 7 - e(x - 1, y + 1)\n"
     "func g(x, y) = f(x, 2 * y) + f(x + 1, 2 * y + 1)\n"
     "output out(x, y): i16 = g(x, y) - f(x, 2 * y + 3)\n"
     "schedule\n"
     "split out.y yo yi 3\n"
     "compute_at g out.yo\n"
     "compute_at f out.yo\n"
     "unroll out.yi 2\n",
     NULL, {0}, {0}, true},
    {"split_y",
     "# split rows into blocks of 3 (the last block shorter), the inner rows unrolled by 2,\n"
     "# the blocks partitioned; a materialized m with its first coordinate split into strips\n"
     "# of 5 (narrower than its vector: one element at a time) and the strips unrolled\n"
     "input in: i16[2]\n"
     "func e = edge(in)\n"
     "func m(x, y) = e(x - 1, y) * 3 - e(x + 1, y + 1)\n"
     "output out(x, y): i16 = m(x, y - 1) + m(x + 2, y + 1)\n"
     "schedule\n"
     "materialize m\n"
     "split m.x xo xi 5\n"
     "vectorize m.xi 4\n"
     "unroll m.xo 2\n"
     "split out.y yo yi 3\n"
     "unroll out.yi 2\n"
     "partition out.yo always\n"
     "parallel out.yo\n",
     NULL, {0}, {0}, true},
    {"reorder_fuse",
     "# a 3-D stage reordered (x outside y: the vector loop with a row loop inside it; z\n"
     "# innermost), then a materialized m with y and z fused, the fused loop unrolled and parallel\n"
     "input in: u8[3]\n"
     "param k: u8\n"
     "func z = constant(in, 9)\n"
     "func m(x, y, c) = z(x, y + 1, c) + z(x + 1, y, c - 1) * k\n"
     "output out(x, y, c): u8 = m(x, y, c) - m(x + 1, y - 1, c + 1)\n"
     "schedule\n"
     "materialize m\n"
     "fuse m.y m.c yc\n"
     "unroll m.yc 3\n"
     "parallel m.yc\n"
     "reorder out.c out.y out.x\n",
     NULL, {0}, {0}, true},
    {"split_reorder",
     "# split x into strips of 24 and y into blocks of 2, reordered to (yo, xo, yi, xi) outermost\n"
     "# first: tiles of any size, written out; f inlined explicitly\n"
     "input in: u16[2]\n"
     "func f(x, y) = in(x, y) + 1\n"
     "func m(x, y) = f(x, y) >> 1\n"
     "output out(x, y): u16 = m(x, y) + m(x + 1, y + 1)\n"
     "schedule\n"
     "materialize m\n"
     "split m.x xo xi 24\n"
     "split m.y yo yi 2\n"
     "reorder m.xi m.yi m.xo m.yo\n"
     "inline f\n",
     NULL, {0}, {0}, false},
};
#define NKERNELS (int)(sizeof KERNELS / sizeof KERNELS[0])

/* ---- targets ---------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    bool ok;
    const char *why; /* why it does not run, when it does not */
} target_t;

static target_t TARGETS[] = {
    {"host", true, NULL},
    {"x86-64-sse2", false, NULL},
    {"x86-64-sse41", false, NULL},
    {"x86-64-avx2", false, NULL},
    {"x86-64-avx512", false, NULL},
};
#define NTARGETS (int)(sizeof TARGETS / sizeof TARGETS[0])

static void detect_targets(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    TARGETS[1].ok = true;
    TARGETS[2].ok = __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("x86-64-v2");
    TARGETS[3].ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("x86-64-v3");
    TARGETS[4].ok = __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("x86-64-v4") &&
                    __builtin_cpu_supports("avx512vnni");
#endif
    /* TINE_TEST_LEVELS=a,b (the sanitizer build): only these x86 levels of the ones this CPU
     * runs -- the compiler's code is the same at every level, the rule sets differ */
    const char *only = getenv("TINE_TEST_LEVELS");
    for (int i = 1; i < NTARGETS && only; i++) {
        size_t n = strlen(TARGETS[i].name);
        const char *p = strstr(only, TARGETS[i].name);
        bool listed = p && (p == only || p[-1] == ',') && (p[n] == ',' || p[n] == 0);
        if (TARGETS[i].ok && !listed) TARGETS[i].ok = false, TARGETS[i].why = " (skipped: not in TINE_TEST_LEVELS)";
    }
    printf("targets:");
    for (int i = 0; i < NTARGETS; i++)
        printf(" %s%s", TARGETS[i].name, TARGETS[i].ok ? "" : TARGETS[i].why ? TARGETS[i].why : " (skipped: not this CPU)");
    printf("\n");
}

/* ---- one run: inputs, params and the reference output for one output shape ---------------- */

typedef struct {
    int64_t min[4], ext[4], pad;
} shape_t;

/* Output shapes: widths not multiples of the vector widths, and narrower than them. */
static const shape_t SHAPES[] = {
    {{0, 0, 0, 0}, {1, 1, 1, 1}, 0},
    {{-3, 5, 1, -2}, {3, 2, 2, 1}, 2},
    {{7, -4, 0, 1}, {13, 3, 1, 2}, 0},
    {{0, 1, -1, 0}, {16, 2, 2, 1}, 1},
    {{-5, 0, 2, 0}, {29, 2, 3, 1}, 3},
    {{100, -9, 0, 0}, {67, 4, 2, 1}, 0},
    {{-64, 3, 0, 1}, {131, 2, 1, 2}, 5},
};
#define NSHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

typedef struct {
    char what[96];
    int nin, np;
    buf_t in[8];
    tine_buffer_t *inp[8];
    int64_t pv[16];
    const void *params[16];
    buf_t ref; /* the interpreter's output */
    buf_t got;
} run_t;

static void free_run(run_t *r) {
    for (int i = 0; i < r->nin; i++) free_buf(&r->in[i]);
    free_buf(&r->ref);
    free_buf(&r->got);
}

#define MARGIN 8
#define SENTINEL 0xA5

/* Inputs covering the output with a margin (tight: a region inside the output's, smaller
 * than it, so boundary conditions clamp and fill). Params random in their ranges. */
static void make_run(const tine_kernel_t *k, const kernel_spec *spec, const shape_t *s, bool tight, uint64_t *seed,
                     run_t *r) {
    memset(r, 0, sizeof *r);
    int dims = tine_kernel_dims(k);
    r->nin = tine_kernel_ninputs(k);
    TINE_ASSERT(r->nin <= 8);
    for (int i = 0; i < r->nin; i++) {
        tine_type_t et;
        int id;
        tine_kernel_input(k, i, &et, &id);
        int64_t mn[4], ex[4];
        for (int d = 0; d < id; d++) {
            int64_t omin = d < dims ? s->min[d] : 0, omax = d < dims ? s->min[d] + s->ext[d] - 1 : 0;
            if (tight) {
                mn[d] = omin + (omax > omin ? 1 : 0);
                ex[d] = (omax - omin + 2) / 2;
            } else {
                mn[d] = (omin < 0 ? omin : 0) - MARGIN;
                ex[d] = (omax > 0 ? omax : 0) + MARGIN - mn[d] + 1;
            }
        }
        r->in[i] = make_buf(et, id, mn, ex, (int64_t)(tine_rand64(seed) % 3));
        fill_random(&r->in[i], seed);
        r->inp[i] = &r->in[i].b;
    }
    r->np = tine_kernel_nparams(k);
    TINE_ASSERT(r->np <= 4);
    for (int i = 0; i < r->np; i++) {
        tine_type_t pt;
        tine_kernel_param(k, i, &pt);
        uint64_t v = tine_rand64(seed);
        int64_t lo = spec ? spec->plo[i] : 0, hi = spec ? spec->phi[i] : 0;
        if (lo < hi) r->pv[i] = lo + (int64_t)(v % (uint64_t)(hi - lo + 1));
        else if (pt.kind == TINE_INT) r->pv[i] = pt.bits == 64 ? (int64_t)v : (int64_t)(v << (64 - pt.bits)) >> (64 - pt.bits);
        else r->pv[i] = pt.bits == 64 ? (int64_t)v : (int64_t)(v & ((1ull << pt.bits) - 1));
        r->params[i] = &r->pv[i]; /* little-endian: the value's low bytes come first */
    }
    tine_type_t ot = tine_kernel_output_type(k);
    r->ref = make_buf(ot, dims, s->min, s->ext, s->pad);
    r->got = make_buf(ot, dims, s->min, s->ext, s->pad);
    memset(r->ref.b.data, SENTINEL, buf_bytes(&r->ref));
}

/* The output elements that are not padding. */
static bool is_padding(const buf_t *b, size_t i) {
    if (b->b.dims < 2) return false;
    return (int64_t)(i % (size_t)b->b.stride[1]) >= b->b.extent[0];
}

static void print_element(const buf_t *b, size_t i, const char *label, const void *data) {
    char *p = (char *)data + i * (size_t)(b->t.bits / 8);
    if (b->t.kind == TINE_FLOAT) {
        float f;
        memcpy(&f, p, 4);
        printf("    %s: %.9g\n", label, (double)f);
        return;
    }
    uint64_t v = 0;
    memcpy(&v, p, (size_t)(b->t.bits / 8));
    printf("    %s: %" PRIu64 " (0x%" PRIx64 ")\n", label, v, v);
}

/* The coordinate of flattened element i of b. */
static void coord_of(const buf_t *b, size_t i, int64_t *c) {
    for (int d = b->b.dims - 1; d >= 0; d--) {
        c[d] = b->b.min[d] + (int64_t)(i / (size_t)b->b.stride[d]);
        i %= (size_t)b->b.stride[d];
    }
}

/* Compares a against b (whole allocations); reports the first difference. */
static bool same_output(const buf_t *a, const void *bdata, const char *what, const char *alabel, const char *blabel) {
    size_t es = (size_t)(a->t.bits / 8);
    if (!memcmp(a->b.data, bdata, buf_bytes(a))) return true;
    size_t ndiff = 0, first = 0;
    for (size_t i = 0; i < a->count; i++)
        if (memcmp((char *)a->b.data + i * es, (const char *)bdata + i * es, es) && ndiff++ == 0) first = i;
    int64_t c[4] = {0};
    coord_of(a, first, c);
    fail("%s: %zu of %zu elements differ; the first at index %zu%s, coordinate (%lld, %lld, %lld, %lld)", what, ndiff,
         a->count, first, is_padding(a, first) ? " (row padding)" : "", (long long)c[0],
         (long long)(a->b.dims > 1 ? c[1] : 0), (long long)(a->b.dims > 2 ? c[2] : 0),
         (long long)(a->b.dims > 3 ? c[3] : 0));
    print_element(a, first, alabel, a->b.data);
    print_element(a, first, blabel, bdata);
    return false;
}

static void describe_run(const run_t *r) {
    printf("    output min (%lld, %lld, %lld, %lld) extent (%lld, %lld, %lld, %lld) stride1 %lld; params",
           (long long)r->ref.b.min[0], (long long)r->ref.b.min[1], (long long)r->ref.b.min[2], (long long)r->ref.b.min[3],
           (long long)r->ref.b.extent[0], (long long)r->ref.b.extent[1], (long long)r->ref.b.extent[2],
           (long long)r->ref.b.extent[3], (long long)r->ref.b.stride[1]);
    for (int i = 0; i < r->np; i++) printf(" %lld", (long long)r->pv[i]);
    printf("\n");
}

/* ---- a kernel over every shape, width, target and selection -------------------------------- */

static int compiles, runs_compared;
static double t_compile, t_interpret, t_run; /* seconds in each */

/* The interpreter's output for run r (timed); false, with the failure reported (and the
 * run described if asked), when it fails. */
static bool interpret_run(const tine_kernel_t *k, run_t *r, const char *what, bool describe) {
    double t0 = now();
    int rc = tine_kernel_interpret(k, r->inp, r->params, &r->ref.b);
    t_interpret += now() - t0;
    if (rc == 0) return true;
    fail("%s, %s: the interpreter fails: %s", what, r->what, tine_error(tine_kernel_ctx(k)));
    if (describe) describe_run(r);
    return false;
}

static tine_kernel_t *parse_ok(tine_ctx_t *ctx, const char *what, const char *text) {
    tine_kernel_t *k = tine_kernel_parse(ctx, text, what);
    if (!k) fail("%s: does not parse:\n%s\n%s", what, tine_error(ctx), text);
    return k;
}

/* runs: the prepared inputs and references. Compiles k for each target and selection and
 * requires every run's output to equal the interpreter's. */
static void compare_compiled(tine_ctx_t *ctx, tine_kernel_t *k, const char *what, run_t *runs, int nruns,
                             bool all_targets) {
    static const tine_selection_t sels[2] = {TINE_SELECT_LLVM, TINE_SELECT_TINE};
    static const char *const sel_names[2] = {"llvm", "tine"};
    /* TINE_TEST_LEVELS_ONLY (ctest sets it): "host" only where no x86 level runs */
    bool levels_only = getenv("TINE_TEST_LEVELS_ONLY") && all_targets && TARGETS[1].ok;
    /* TINE_TEST_SELECT=tine (the sanitizer build): tine's selection alone, whose path is
     * LLVM alone's with the lifting and lowering added */
    const char *only_sel = getenv("TINE_TEST_SELECT");
    for (int t = 0; t < NTARGETS; t++) {
        if (!TARGETS[t].ok || (t > 0 && !all_targets) || (t == 0 && levels_only)) continue;
        for (int s = 0; s < 2; s++) {
            if (only_sel && strcmp(only_sel, sel_names[s])) continue;
            char w[512];
            snprintf(w, sizeof w, "%s [lanes %d, %s, %s]", what, tine_kernel_lanes(k), TARGETS[t].name, sel_names[s]);
            double t0 = now();
            tine_compiled_t *c = tine_kernel_compile(k, TARGETS[t].name, sels[s]);
            t_compile += now() - t0;
            compiles++;
            if (!c) {
                fail("%s: does not compile: %s", w, tine_error(ctx));
                continue;
            }
            for (int i = 0; i < nruns; i++) {
                run_t *r = &runs[i];
                memset(r->got.b.data, SENTINEL, buf_bytes(&r->got));
                double t1 = now();
                int rc = tine_compiled_run(c, r->inp, r->params, &r->got.b);
                t_run += now() - t1;
                if (rc) {
                    fail("%s, %s: the run fails: %s", w, r->what, tine_error(ctx));
                    continue;
                }
                char ww[1024];
                snprintf(ww, sizeof ww, "%s, %s: compiled vs interpreter", w, r->what);
                runs_compared++;
                if (same_output(&r->ref, r->got.b.data, ww, "interpreter", "compiled")) pass();
                else describe_run(r);
            }
            tine_compiled_free(c);
        }
    }
}

/* Prepares the runs of kernel k (interpreter reference, checked against ref if given):
 * every shape with margins, and with tight inputs when the region check accepts them. */
static int prepare_runs(tine_ctx_t *ctx, tine_kernel_t *k, const kernel_spec *spec, cref_fn ref, bool tight_ok,
                        const char *what, uint64_t seed, run_t *runs) {
    int n = 0, ntight = 0, dims = tine_kernel_dims(k);
    for (int si = 0; si < NSHAPES; si++) {
        for (int tight = 0; tight < 2; tight++) {
            run_t *r = &runs[n];
            make_run(k, spec, &SHAPES[si], tight, &seed, r);
            snprintf(r->what, sizeof r->what, "shape %d%s", si, tight ? " (inputs smaller than the output)" : "");
            if (tight && tine_kernel_check_region(k, r->inp, r->params, &r->ref.b)) {
                /* this kernel reads an input without a boundary: not for it */
                if (tight_ok) fail("%s, %s: refused: %s", what, r->what, tine_error(ctx));
                free_run(r);
                continue;
            }
            ntight += tight;
            if (!interpret_run(k, r, what, true)) {
                free_run(r);
                continue;
            }
            /* the interpreter writes every element and nothing else */
            bool pad_ok = true;
            for (size_t i = 0; i < r->ref.count; i++) {
                unsigned char b0 = ((unsigned char *)r->ref.b.data)[i * (size_t)(r->ref.t.bits / 8)];
                if (is_padding(&r->ref, i) && b0 != SENTINEL) pad_ok = false;
            }
            check(pad_ok, "%s, %s: the interpreter writes the row padding", what, r->what);
            if (ref) {
                buf_t cr = make_buf(r->ref.t, dims, r->ref.b.min, r->ref.b.extent, SHAPES[si].pad);
                memset(cr.b.data, SENTINEL, buf_bytes(&cr));
                buf_t *inp[8];
                for (int i = 0; i < r->nin; i++) inp[i] = &r->in[i];
                ref(inp, r->pv, &cr);
                char ww[1024];
                snprintf(ww, sizeof ww, "%s, %s: interpreter vs the C reference", what, r->what);
                if (same_output(&cr, r->ref.b.data, ww, "C reference", "interpreter")) pass();
                else describe_run(r);
                free_buf(&cr);
            }
            n++;
        }
    }
    /* every kernel that reads only through boundaries ran on inputs smaller than the output */
    if (tight_ok) check(ntight == NSHAPES, "%s: %d of %d shapes ran with inputs smaller than the output", what, ntight, NSHAPES);
    return n;
}

/* Each kernel at its natural width on every target, and at three of the fixed widths on
 * the host (kernel i: widths i, i + 1 and i + 3 of the six, cyclically: each width is run
 * by half the kernels, with different partners). Compilation is most of the test's time. */
static void test_inline_kernels(void) {
    static const int fixed[6] = {1, 4, 8, 16, 32, 64};
    int width_runs[6] = {0};
    const char *only = getenv("TEST_KERNEL_ONLY"); /* one kernel of KERNELS by name (debugging) */
    for (int ki = 0; ki < NKERNELS; ki++) {
        const kernel_spec *spec = &KERNELS[ki];
        if (only && strcmp(only, spec->name)) continue;
        tine_ctx_t *ctx = tine_ctx_new();
        run_t runs[2 * NSHAPES];
        int nruns = 0;
        const int widths[4] = {fixed[ki % 6], fixed[(ki + 1) % 6], fixed[(ki + 3) % 6], 0};
        for (int i = 0; i < 3; i++) width_runs[(ki + (i == 2 ? 3 : i)) % 6]++;
        for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
            char text[2048], what[128];
            const char *sched = strstr(spec->text, "schedule\n") ? "" : "schedule\n";
            const char *xl = strstr(spec->text, "split out.x xo xi") ? "xi" : "x"; /* the vector loop */
            if (widths[wi]) snprintf(text, sizeof text, "%s%svectorize out.%s %d\n", spec->text, sched, xl, widths[wi]);
            else snprintf(text, sizeof text, "%s%svectorize out.%s natural\n", spec->text, sched, xl);
            snprintf(what, sizeof what, "%s", spec->name);
            tine_kernel_t *k = parse_ok(ctx, what, text);
            if (!k) continue;
            if (widths[wi]) check(tine_kernel_lanes(k) == widths[wi], "%s: lanes %d, want %d", what, tine_kernel_lanes(k), widths[wi]);
            else {
                tine_type_t ot = tine_kernel_output_type(k);
                check(tine_kernel_lanes(k) == 256 / ot.bits, "%s: natural lanes %d, want %d", what, tine_kernel_lanes(k),
                      256 / ot.bits);
            }
            if (nruns == 0) nruns = prepare_runs(ctx, k, spec, spec->ref, spec->tight, what, 1000 + (uint64_t)ki, runs);
            /* every width on the host; the natural width on every target */
            compare_compiled(ctx, k, what, runs, nruns, widths[wi] == 0);
            tine_kernel_free(k);
        }
        for (int i = 0; i < nruns; i++) free_run(&runs[i]);
        tine_ctx_free(ctx);
    }
    for (int i = 0; i < 6 && !only; i++) check(width_runs[i] >= 4, "vector width %d: only %d kernels", fixed[i], width_runs[i]);
}

/* The buffers of narrow_i32's stages have the narrowest types that hold their values. */
static void test_narrow_storage(void) {
    const kernel_spec *spec = NULL;
    for (int i = 0; i < NKERNELS; i++)
        if (!strcmp(KERNELS[i].name, "narrow_i32")) spec = &KERNELS[i];
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = spec ? parse_ok(ctx, "narrow_i32", spec->text) : NULL;
    char *text = k ? tine_kernel_print_stmt(k, TINE_SELECT_LLVM, "host") : NULL;
    static const char *const want[] = {"allocate a: u16[", "allocate b: i8[", "allocate c: i16[", "allocate d: i32["};
    for (int i = 0; i < 4; i++)
        check(text && strstr(text, want[i]), "narrow_i32: the statements should have \"%s\"", want[i]);
    free(text);
    if (k) tine_kernel_free(k);
    /* store_as overrides the narrowing (its values against the interpreter: KERNELS) */
    spec = NULL;
    for (int i = 0; i < NKERNELS; i++)
        if (!strcmp(KERNELS[i].name, "store_as")) spec = &KERNELS[i];
    k = spec ? parse_ok(ctx, "store_as", spec->text) : NULL;
    text = k ? tine_kernel_print_stmt(k, TINE_SELECT_LLVM, "host") : NULL;
    static const char *const want2[] = {"allocate a: u32[", "allocate b: i16[", "allocate c: i32[", "allocate d: i64["};
    for (int i = 0; i < 4; i++)
        check(text && strstr(text, want2[i]), "store_as: the statements should have \"%s\"", want2[i]);
    free(text);
    if (k) tine_kernel_free(k);
    tine_ctx_free(ctx);
}

/* A reduction kernel `text` under each of `scheds` (appended to it), compiled once per
 * schedule (K, its first parameter, and R, its second when rhi >= 0, are parameters: one
 * compile serves them all) and compared with the interpreter on runs with K = base[i] or
 * base[i] + 1 for every base (R in 0..rhi); on every target for schedule all_si, on the
 * host for the others. Each run's name says its K. */
static void check_k_schedules(const char *name, const char *text, const char *const *scheds, int nsched,
                              const int64_t *base, int nb, int64_t rhi, uint64_t seed, int all_si) {
    tine_ctx_t *ctx = tine_ctx_new();
    for (int si = 0; si < nsched; si++) {
        char what[96], full[2048];
        snprintf(what, sizeof what, "%s (schedule %d)", name, si);
        snprintf(full, sizeof full, "%s%s", text, scheds[si]);
        tine_kernel_t *k = parse_ok(ctx, what, full);
        if (!k) continue;
        run_t *runs = calloc((size_t)nb * 2 * NSHAPES, sizeof *runs);
        TINE_ASSERT(runs != NULL);
        int nruns = 0;
        for (int i = 0; i < nb; i++) {
            kernel_spec spec = {.name = what, .text = full, .plo = {base[i], 0}, .phi = {base[i] + 1, rhi}};
            int n = prepare_runs(ctx, k, &spec, NULL, true, what, seed + (uint64_t)(i * 8 + si), runs + nruns);
            for (int r = nruns; r < nruns + n; r++) {
                size_t l = strlen(runs[r].what);
                snprintf(runs[r].what + l, sizeof runs[r].what - l, ", K = %lld", (long long)runs[r].pv[0]);
            }
            nruns += n;
        }
        compare_compiled(ctx, k, what, runs, nruns, si == all_si);
        for (int r = 0; r < nruns; r++) free_run(&runs[r]);
        free(runs);
        tine_kernel_free(k);
    }
    tine_ctx_free(ctx);
}

/* Loop reductions vectorized along their variable (`vectorize out.k N`): sums of i16 and
 * of u8 x i8 products, a min, and a materialized per-row max, at widths 8 to 32, for K
 * around the edges of the vector loop (no vector step: K = 0, 1, 7 < 8; exactly one or
 * two: 8, 15, 16, 31, 32; with a remainder: 9, 17, 33; many: 100, 101). Each base gives
 * K = base or base + 1 (random per shape). Reads go through edge(), so any K is covered. */
static void test_vectorized_reductions(void) {
    static const char *const text =
        "input a: i16[2]\n"
        "input b: u8[2]\n"
        "input c: i8[2]\n"
        "param K: i32\n"
        "func ea = edge(a)\n"
        "func eb = edge(b)\n"
        "func ec = edge(c)\n"
        "func rowmax(y) = max(k in 0..K) eb(k, y)\n"
        "func dot(x, y) = sum(k in 0..K) (i32(ea(x + k, y)) * i32(ea(k, y + 1)))\n"
        "output out(x, y): i32 = dot(x, y) + sum(j in 0..K) (i32(eb(j, y)) * i32(ec(j + x, y)))\n"
        "    + i32(min(m in 1..K + 1) u16(eb(x - m, y))) + i32(rowmax(y)) * 3\n"
        "schedule\n"
        "materialize rowmax\n"
        "vectorize rowmax.k 32\n"
        "vectorize out.k 16\n"
        "vectorize out.j 32\n"
        "vectorize out.m 8\n";
    static const char *const scheds[] = {""};
    static const int64_t base[] = {0, 7, 8, 15, 16, 31, 32, 100};
    check_k_schedules("vectorized reductions", text, scheds, 1, base, sizeof base / sizeof base[0], -1, 4000, 0);
}

/* Dot products in k pairs (matmul's and conv_nn's pmaddwd layout): a function stored with
 * each pair adjacent (bp(2x + j, kk) = b(x, 2kk + j), zero past K) read as its two halves,
 * which selection interleaves and stmt/interleave.c loads as one vector. Odd K (the zero
 * term), K = 0 and 1, tails of x and y, against the interpreter. */
static void test_pair_reductions(void) {
    static const char *const text =
        "input a: u8[2]\n"
        "input b: i8[2]\n"
        "param K: i32\n"
        "func ea = edge(a)\n"
        "func eb = edge(b)\n"
        "func bp(i, kk) = select(2 * kk + i % 2 < K, i16(select(i % 2 == 0, eb(i / 2, 2 * kk), eb(i / 2, 2 * kk + 1))), i16(0))\n"
        "func ap(k, y) = i16(ea(k, y)) - 7\n"
        "output out(x, y): i32 = sum(kk in 0..(K + 1) / 2) (widening_mul(bp(2 * x, kk), ap(2 * kk, y))\n"
        "    + widening_mul(bp(2 * x + 1, kk), ap(2 * kk + 1, y)))\n"
        "schedule\n"
        "materialize bp\n"
        "materialize ap\n";
    static const char *const scheds[] = {
        "vectorize out.x 8\nunroll out.x 2\nunroll out.y 3\n",
        "vectorize out.x natural\n",
        "vectorize out.x 4\nunroll out.y 2\n",
    };
    static const int64_t base[] = {0, 6, 17};
    check_k_schedules("pair reductions", text, scheds, sizeof scheds / sizeof scheds[0], base, sizeof base / sizeof base[0],
                      -1, 6000, -1);
}

/* Sibling sums chained into one accumulator (build.c chain_sums): a 3x3 tap nest of i16
 * sums (its constant taps unrolled: 9 loop reductions whose results one add tree sums,
 * wrapping in i16), two i32 sums added in one tree, beside a sum that must not chain (read
 * through a multiply after a subtraction) and a max. K = 0, 1, odd and larger, tails of x
 * and y, against the interpreter. One compile per schedule (each takes seconds: edge()
 * splits every nest into dozens of copies), its runs with every K. */
static void test_chained_sums(void) {
    static const char *const text =
        "input a: u8[2]\n"
        "input b: i8[2]\n"
        "param K: i32\n"
        "func ea = edge(a)\n"
        "func eb = edge(b)\n"
        "func c(x, y) = sum(fy in 0..3) (sum(fx in 0..3) (sum(ci in 0..K)\n"
        "    (i16(ea(x + fx + ci, y + fy)) * i16(eb(ci, fx - fy)) * i16(97))))\n"
        "func s(x, y) = sum(t in 0..K) i32(ea(x, y + t))\n"
        "output out(x, y): i32 = i32(c(x, y)) * 3 + (sum(j in 0..K) i32(eb(j, x)) + s(x, y)) - s(x, y + 1) * 2\n"
        "    + i32(max(m in 0..K) u8(ea(x - m, y)))\n"
        "schedule\n";
    static const char *const scheds[] = {
        "vectorize out.x 8\nunroll out.x 2\nunroll out.y 2\n",
        "vectorize out.x natural\nunroll out.x 4\n",
        "vectorize out.x 1\nunroll out.y 2\n",
    };
    static const int64_t base[] = {0, 1, 6, 17};
    check_k_schedules("chained sums", text, scheds, sizeof scheds / sizeof scheds[0], base, sizeof base / sizeof base[0],
                      -1, 7000, -1);
}

/* Unrolled points whose loop reductions share one loop nest (unroll-and-jam, build.c):
 * a dot product, a 3-deep nest (conv_nn's fy, fx, ci), a sum whose terms read the dot's
 * result, and a max, under unrolls of vectors, of rows and of both, at several widths
 * (one lane: the rows jammed at one element), for K = 0, 1, odd and larger, R (the nest's
 * outer extents) 0 to 3. The shapes' extents leave rows and vectors over (tails). */
static void test_jammed_reductions(void) {
    static const char *const text =
        "input a: u8[2]\n"
        "input b: i8[2]\n"
        "param K: i32\n"
        "param R: i32\n"
        "func ea = edge(a)\n"
        "func eb = edge(b)\n"
        "func dot(x, y) = sum(k in 0..K) (i32(ea(k, y)) * i32(eb(x, k)))\n"
        "func conv(x, y) = sum(fy in 0..R) (sum(fx in 0..R) (sum(ci in 0..K)\n"
        "    (i32(ea(x + fx + ci, y + fy)) * i32(eb(ci, fx - fy)))))\n"
        "output out(x, y): i32 = let d = dot(x, y) in d + conv(x, y) + sum(j in 0..K) (d * i32(eb(j, y + x)))\n"
        "    + i32(max(m in 0..K) u8(ea(x - m, y)))\n"
        "schedule\n";
    static const char *const scheds[] = {
        "vectorize out.x 8\nunroll out.x 3\nunroll out.y 2\n",
        "vectorize out.x natural\nunroll out.y 3\n",
        "vectorize out.x 4\nunroll out.x 2\n",
        "vectorize out.x 1\nunroll out.y 2\n",
    };
    static const int64_t base[] = {0, 1, 6, 17};
    check_k_schedules("jammed reductions", text, scheds, sizeof scheds / sizeof scheds[0], base, sizeof base / sizeof base[0],
                      3, 5000, 0);
}

/* A run of a benchmark kernel from its harness case (bench/ref/cases.h): the case's
 * buffers copied into exactly-sized ones, its parameters, an output padded by `pad`. */
static bool case_run(const tine_kernel_t *k, const bench_case *c, int pad, run_t *r) {
    memset(r, 0, sizeof *r);
    r->nin = c->ninputs;
    r->np = c->nparams;
    if (r->nin != tine_kernel_ninputs(k) || r->np != tine_kernel_nparams(k) || r->np > 16) return false;
    for (int i = 0; i < r->nin; i++) {
        tine_type_t et;
        tine_kernel_input(k, i, &et, NULL);
        const ref_buffer *b = &c->in[i];
        r->in[i] = make_buf(et, b->dims, b->min, b->extent, 0);
        int64_t at[4] = {0};
        size_t bytes = (size_t)(et.bits / 8);
        for (size_t e = 0; e < r->in[i].count; e++) {
            size_t q = e;
            for (int d = 0; d < b->dims; d++) {
                at[d] = b->min[d] + (int64_t)(q % (size_t)b->extent[d]);
                q /= (size_t)b->extent[d];
            }
            memcpy((char *)r->in[i].b.data + e * bytes, case_at(b, (int)bytes, at[0], at[1], at[2], at[3]), bytes);
        }
        r->inp[i] = &r->in[i].b;
    }
    for (int i = 0; i < r->np; i++) {
        tine_type_t pt;
        tine_kernel_param(k, i, &pt);
        r->pv[i] = 0;
        memcpy(&r->pv[i], &c->params[i], (size_t)(pt.bits / 8)); /* little-endian */
        r->params[i] = &r->pv[i];
    }
    tine_type_t ot = tine_kernel_output_type(k);
    r->ref = make_buf(ot, c->out.dims, c->out.min, c->out.extent, pad);
    r->got = make_buf(ot, c->out.dims, c->out.min, c->out.extent, pad);
    memset(r->ref.b.data, SENTINEL, buf_bytes(&r->ref));
    return true;
}

/* A kernel's text with its schedule replaced by `sched` (the declarations kept). */
static char *with_schedule(const char *text, const char *sched) {
    const char *end = text + strlen(text);
    for (const char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : end)
        if (!strncmp(p, "schedule", 8) && (p[8] == '\n' || p[8] == ' ' || !p[8])) {
            end = p;
            break;
        }
    tine_buf b = {0};
    tine_buf_printf(&b, "%.*s%s", (int)(end - text), text, sched);
    return b.p;
}

/* `schedule auto` on a benchmark kernel: the compiled code (host, both selections) against
 * the interpreter's output of the hand-scheduled kernel on the same runs; and the schedule
 * auto chose, printed (--emit schedule) and pasted in place of `auto`, parses back to the
 * same statement. */
static void check_auto(tine_ctx_t *ctx, const char *path, const char *text, run_t *runs, int nruns) {
    char *atext = with_schedule(text, "schedule auto\n");
    char what[600];
    snprintf(what, sizeof what, "%s (schedule auto)", path);
    tine_kernel_t *ka = parse_ok(ctx, what, atext);
    if (ka) {
        compare_compiled(ctx, ka, what, runs, nruns, false);
        /* the host's schedule: auto chooses per level (natural is the host's width) */
        char *sched = tine_kernel_print_schedule(tine_kernel_for_target(ka, "host")), *rtext = with_schedule(text, sched);
        tine_kernel_t *kr = parse_ok(ctx, what, rtext);
        char *s1 = tine_kernel_print_stmt(ka, TINE_SELECT_TINE, "host"), *s2 = kr ? tine_kernel_print_stmt(kr, TINE_SELECT_TINE, "host") : NULL;
        check(s1 && s2 && !strcmp(s1, s2), "%s: the printed schedule does not give the same statement:\n%s", what, sched);
        free(s1);
        free(s2);
        tine_kernel_free(kr);
        free(rtext);
        free(sched);
        tine_kernel_free(ka);
    }
    free(atext);
}

/* Every benchmark kernel (bench/ref/cases.h's entries: bench/kernels and the user
 * kernels of bench/user; every file of the two directories must have one) on its harness
 * cases: the interpreter's output against the compiled code on every target and both
 * selections. (test_refs checks them against the C references.) */
static void test_bench_kernels(const char *bench) {
    int n = 0;
    for (int sub = 0; sub < 2; sub++) {
        char dir[512];
        snprintf(dir, sizeof dir, "%s/%s", bench, sub ? "user" : "kernels");
        DIR *d = opendir(dir);
        if (!d) {
            fail("cannot open %s (the test runs in tests/)", dir);
            return;
        }
        for (struct dirent *e; (e = readdir(d)) != NULL;) {
            size_t l = strlen(e->d_name);
            if (l <= 5 || strcmp(e->d_name + l - 5, ".tine")) continue;
            char *name = tine_strdup(e->d_name);
            name[l - 5] = 0;
            const bench_entry *be = bench_entry_find(name);
            check(be && !strcmp(bench_entry_dir(be), sub ? "user" : "kernels"),
                  "%s/%s.tine has no harness entry in bench/ref (user kernels: user.c)", dir, name);
            free(name);
            n++;
        }
        closedir(d);
    }
    int nk = 0;
    for (const bench_entry *be = bench_entries(); be->name; be++, nk++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s/%s.tine", bench, bench_entry_dir(be), be->name);
        char *text = read_file(path);
        if (!text) {
            fail("cannot read %s", path);
            continue;
        }
        tine_ctx_t *ctx = tine_ctx_new();
        double t_start = now();
        tine_kernel_t *k = parse_ok(ctx, path, text);
        if (k) {
            run_t runs[3];
            int nruns = 0;
            static const struct {
                case_size size;
                case_pattern p;
                int pad;
            } which[3] = {{CASE_TEST0, PAT_RANDOM, 3}, {CASE_TEST1, PAT_MAX, 0}, {CASE_TEST2, PAT_CHECKER, 1}};
            uint64_t seed = 77 + (uint64_t)nk;
            for (int w = 0; w < 3; w++) {
                bench_case bc = {.name = be->name};
                if (be->make(&bc, which[w].size, which[w].p, &seed) || !case_run(k, &bc, which[w].pad, &runs[nruns])) {
                    fail("%s: the harness case does not fit the kernel", path);
                    bench_case_free(&bc);
                    continue;
                }
                bench_case_free(&bc);
                run_t *r = &runs[nruns];
                snprintf(r->what, sizeof r->what, "harness case %d", w);
                if (!interpret_run(k, r, path, false)) {
                    free_run(r);
                    continue;
                }
                nruns++;
            }
            double ti = now() - t_start;
            compare_compiled(ctx, k, path, runs, nruns, true);
            check_auto(ctx, path, text, runs, nruns);
            printf("  %-16s interpreter %6.2f s, compile and run %6.2f s\n", be->name, ti, now() - t_start - ti);
            fflush(stdout);
            for (int r = 0; r < nruns; r++) free_run(&runs[r]);
            tine_kernel_free(k);
        }
        tine_ctx_free(ctx);
        free(text);
    }
    check(nk >= 9, "only %d benchmark kernels", nk);
    printf("benchmark kernels: %d files, %d harness entries\n", n, nk);
}

/* The schedules `schedule auto` chooses for some benchmark kernels, pinned: a heuristic
 * that regresses fails here (docs/KERNELS.md, The automatic scheduler). */
static void test_auto_schedules(const char *dir) {
    static const struct {
        const char *kernel, *want[4], *not[2];
    } pins[] = {
        /* per-row reductions computed once per row, not once per element; reductions
           along a dense row vectorized (pmaddwd for the i32 sums of i16 products) */
        {"l2norm", {"materialize inv\n", "vectorize inv.k 16\n", "vectorize out.x natural\n"}, {"materialize z\n"}},
        {"softmax", {"materialize mx\n", "materialize inv\n", "vectorize mx.k 32\n", "vectorize inv.k 16\n"}, {"materialize e\n"}},
        {"matmul", {"materialize rowsum_a\n", "materialize colsum_b\n"}, {"materialize p\n", "vectorize out.k"}},
        {"fully_connected", {"vectorize out.c natural\n", "vectorize out.k 16\n", "materialize xi\n"}, {"materialize acc"}},
        {"depthwise_conv", {"materialize offset\n"}, {NULL}},
        /* stencil producers: read at 3, 5 or 7 taps, worth a sliding window of rows (its
           rows priced in L1: dilate3x3's horizontal max v too) */
        {"gaussian5x5", {"compute_at r out.y\n", "vectorize out.x natural\n"}, {"materialize"}},
        {"gaussian7x7", {"compute_at r out.y\n"}, {"materialize"}},
        {"blur3x3", {"compute_at bx out.y\n"}, {"materialize"}},
        {"dilate3x3", {"compute_at v out.y\n", "vectorize out.x natural\n"}, {"materialize"}},
        {"sobel3x3", {"vectorize out.x natural\n", "unroll out.y 2\n"}, {"materialize", "compute_at"}},
        {"camera_pipe", {"materialize curved\n", "materialize denoised\n", "compute_at red curved.y\n", "compute_at blur_y out.y\n"}, {NULL}},
        {"add", {"schedule\nvectorize out.c natural\n"}, {"materialize", "unroll"}},
    };
    for (size_t i = 0; i < sizeof pins / sizeof *pins; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.tine", dir, pins[i].kernel);
        char *text = read_file(path);
        if (!text) {
            fail("cannot read %s", path);
            continue;
        }
        tine_ctx_t *ctx = tine_ctx_new();
        char *atext = with_schedule(text, "schedule auto\n"), *none = with_schedule(text, "");
        tine_kernel_t *k = parse_ok(ctx, path, atext), *kn = parse_ok(ctx, path, none), *kh = parse_ok(ctx, path, text);
        char *sched = k ? tine_kernel_print_schedule(k) : NULL, *sn = kn ? tine_kernel_print_schedule(kn) : NULL;
        for (int w = 0; sched && w < 4 && pins[i].want[w]; w++)
            check(strstr(sched, pins[i].want[w]) != NULL, "%s: schedule auto should have \"%s\"; it chose:\n%s", path,
                  pins[i].want[w], sched);
        for (int w = 0; sched && w < 2 && pins[i].not[w]; w++)
            check(strstr(sched, pins[i].not[w]) == NULL, "%s: schedule auto should not have \"%s\"; it chose:\n%s", path,
                  pins[i].not[w], sched);
        /* no schedule at all is schedule auto; a hand schedule prints as written */
        check(sched && sn && !strcmp(sched, sn), "%s: a kernel without a schedule should get schedule auto's", path);
        char *sh = kh ? tine_kernel_print_schedule(kh) : NULL;
        const char *hs = strstr(text, "\nschedule\n");
        bool same = sh && hs;
        for (const char *p = hs ? hs + 1 : NULL, *q = sh; same && *p; p = strchr(p, '\n') + 1) {
            if (*p == '#' || *p == '\n') continue; /* comments and blank lines */
            size_t len = (size_t)(strchr(p, '\n') - p);
            same = !strncmp(p, q, len) && q[len] == '\n';
            q += len + 1;
        }
        check(same, "%s: the hand schedule should print as written:\n%s", path, sh ? sh : "(none)");
        free(sh);
        free(sched);
        free(sn);
        tine_kernel_free(k);
        tine_kernel_free(kn);
        tine_kernel_free(kh);
        free(atext);
        free(none);
        free(text);
        tine_ctx_free(ctx);
    }
    /* auto chooses every directive: no others beside it */
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = tine_kernel_parse(ctx, "input in: u8[2]\noutput out(x, y): u8 = in(x, y)\nschedule auto\nunroll out.y 2\n", "k.tine");
    const char *e = tine_error(ctx);
    check(!k && e && strstr(e, "k.tine:4:1: 'schedule auto' chooses every directive"), "schedule auto with a directive: %s",
          e ? e : "(accepted)");
    tine_kernel_free(k);
    tine_ctx_free(ctx);
    printf("automatic schedules: %zu pinned\n", sizeof pins / sizeof *pins);
}

/* ==== 2. buffers too small for the output ================================================== */

static const char *GAUSS3 =
    "input in: u8[2]\n"
    "func r(x, y) = i16(in(x, y - 1)) + 2 * i16(in(x, y)) + i16(in(x, y + 1))\n"
    "output out(x, y): u8 = u8((r(x - 1, y) + 2 * r(x, y) + r(x + 1, y) + 8) >> 4)\n"
    "schedule\n"
    "vectorize out.x 16\n";

/* Every entry point must refuse (-1, an error containing `needle`) and leave out untouched. */
static void expect_rejected(tine_ctx_t *ctx, tine_kernel_t *k, tine_compiled_t *const *cs, int ncs, run_t *r,
                            const char *what, const char *needle) {
    const char *api[3] = {"tine_kernel_check_region", "tine_kernel_interpret", "tine_compiled_run"};
    for (int a = 0; a < 2 + ncs; a++) {
        tine_clear_error(ctx);
        memset(r->ref.b.data, SENTINEL, buf_bytes(&r->ref));
        int rc = a == 0   ? tine_kernel_check_region(k, r->inp, r->params, &r->ref.b)
                 : a == 1 ? tine_kernel_interpret(k, r->inp, r->params, &r->ref.b)
                          : tine_compiled_run(cs[a - 2], r->inp, r->params, &r->ref.b);
        const char *e = tine_error(ctx);
        if (rc != -1) {
            fail("%s: %s returns %d, want -1 (too small)", what, api[a < 2 ? a : 2], rc);
            continue;
        }
        check(e && strstr(e, needle), "%s: %s: the error should contain \"%s\", it is: %s", what, api[a < 2 ? a : 2],
              needle, e ? e : "(none)");
        bool untouched = true;
        for (size_t i = 0; i < buf_bytes(&r->ref); i++) untouched &= ((unsigned char *)r->ref.b.data)[i] == SENTINEL;
        check(untouched, "%s: %s writes the output although it refuses", what, api[a < 2 ? a : 2]);
    }
}

/* Every entry point must accept; the interpreter must give ref's values (if given) and
 * every compiled version the interpreter's. */
static void expect_accepted(tine_ctx_t *ctx, tine_kernel_t *k, tine_compiled_t *const *cs, int ncs, run_t *r,
                            cref_fn ref, const char *what) {
    check(tine_kernel_check_region(k, r->inp, r->params, &r->ref.b) == 0, "%s: the region check refuses: %s", what,
          tine_error(ctx));
    memset(r->ref.b.data, SENTINEL, buf_bytes(&r->ref));
    if (tine_kernel_interpret(k, r->inp, r->params, &r->ref.b)) {
        fail("%s: tine_kernel_interpret refuses: %s", what, tine_error(ctx));
        return;
    }
    char w[200];
    if (ref) {
        buf_t cr = make_buf(r->ref.t, r->ref.b.dims, r->ref.b.min, r->ref.b.extent, 0);
        memset(cr.b.data, SENTINEL, buf_bytes(&cr));
        buf_t *inp[8];
        for (int i = 0; i < r->nin; i++) inp[i] = &r->in[i];
        ref(inp, r->pv, &cr);
        snprintf(w, sizeof w, "%s: interpreter vs the C reference", what);
        if (same_output(&cr, r->ref.b.data, w, "C reference", "interpreter")) pass();
        free_buf(&cr);
    }
    r->got = make_buf(r->ref.t, r->ref.b.dims, r->ref.b.min, r->ref.b.extent, 0);
    for (int a = 0; a < ncs; a++) {
        memset(r->got.b.data, SENTINEL, buf_bytes(&r->got));
        if (tine_compiled_run(cs[a], r->inp, r->params, &r->got.b)) {
            fail("%s: tine_compiled_run refuses: %s", what, tine_error(ctx));
            continue;
        }
        snprintf(w, sizeof w, "%s: compiled (%s) vs the interpreter", what, a ? "tine" : "llvm");
        if (same_output(&r->ref, r->got.b.data, w, "interpreter", "compiled")) pass();
    }
}

/* A run with explicit input regions (dense, no padding) and an output at min/ext. */
static void region_run(const tine_kernel_t *k, int nin, const int64_t (*imin)[4], const int64_t (*iext)[4],
                       const int64_t *omin, const int64_t *oext, const int64_t *pv, uint64_t *seed, run_t *r) {
    memset(r, 0, sizeof *r);
    r->nin = nin;
    for (int i = 0; i < nin; i++) {
        tine_type_t et;
        int id;
        tine_kernel_input(k, i, &et, &id);
        r->in[i] = make_buf(et, id, imin[i], iext[i], 0);
        fill_random(&r->in[i], seed);
        r->inp[i] = &r->in[i].b;
    }
    r->np = tine_kernel_nparams(k);
    for (int i = 0; i < r->np; i++) {
        r->pv[i] = pv[i];
        r->params[i] = &r->pv[i];
    }
    r->ref = make_buf(tine_kernel_output_type(k), tine_kernel_dims(k), omin, oext, 0);
}

static tine_kernel_t *with_compiled(tine_ctx_t *ctx, const char *text, tine_compiled_t **cs, int *ncs) {
    tine_kernel_t *k = parse_ok(ctx, "<region kernel>", text);
    *ncs = 0;
    if (!k) return NULL;
    for (int s = 0; s < 2; s++) {
        cs[*ncs] = tine_kernel_compile(k, "host", s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
        if (cs[*ncs]) ++*ncs;
        else fail("region kernel does not compile: %s", tine_error(ctx));
    }
    return k;
}

static void free_compiled(tine_kernel_t *k, tine_compiled_t **cs, int ncs) {
    for (int i = 0; i < ncs; i++) tine_compiled_free(cs[i]);
    tine_kernel_free(k);
}

static void test_regions(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    uint64_t seed = 4242;
    tine_compiled_t *cs[2];
    int ncs;
    run_t r;
    const int64_t W = 37, H = 5, no[4] = {0};

    /* gaussian3x3 reads one pixel beyond the output on every side */
    tine_kernel_t *k = with_compiled(ctx, GAUSS3, cs, &ncs);
    if (k) {
        const int64_t omin[4] = {0, 0}, oext[4] = {W, H};
        const struct {
            const char *what;
            int64_t min[4], ext[4];
            bool ok;
        } cases[] = {
            {"gaussian3x3, input exactly the output", {0, 0}, {W, H}, false},
            {"gaussian3x3, margin of 1", {-1, -1}, {W + 2, H + 2}, true},
            {"gaussian3x3, margin of 1, min shifted +1 in x", {0, -1}, {W + 2, H + 2}, false},
            {"gaussian3x3, margin of 1, min shifted +1 in y", {-1, 0}, {W + 2, H + 2}, false},
            {"gaussian3x3, margin of 1, min shifted -1 in y", {-1, -2}, {W + 2, H + 2}, false},
            {"gaussian3x3, one row short", {-1, -1}, {W + 2, H + 1}, false},
            {"gaussian3x3, one column short", {-1, -1}, {W + 1, H + 2}, false},
            /* rows wrap: x - 1 at the left edge and x + 1 at the right edge fall in the
               neighbouring rows of a buffer that has extra rows but no extra columns */
            {"gaussian3x3, margin in y only (2 rows each side)", {0, -2}, {W, H + 4}, false},
            {"gaussian3x3, margin of 1 in y, 2 in x, min shifted +2 in x", {1, -1}, {W + 2, H + 2}, false},
        };
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            region_run(k, 1, &cases[i].min, &cases[i].ext, omin, oext, no, &seed, &r);
            if (cases[i].ok) expect_accepted(ctx, k, cs, ncs, &r, ref_gaussian3x3, cases[i].what);
            else expect_rejected(ctx, k, cs, ncs, &r, cases[i].what, "input 'in'");
            free_run(&r);
        }
        /* the message, in full: the coordinates read against those the input covers */
        region_run(k, 1, &cases[0].min, &cases[0].ext, omin, oext, no, &seed, &r);
        tine_kernel_check_region(k, r.inp, r.params, &r.ref.b);
        const char *want = "input 'in' is too small for this output: the kernel reads it at [-1, 37] x [-1, 5], "
                           "but it covers [0, 36] x [0, 4]";
        check(tine_error(ctx) && !strcmp(tine_error(ctx), want), "gaussian3x3, input exactly the output: the error is\n  %s\nwant\n  %s",
              tine_error(ctx) ? tine_error(ctx) : "(none)", want);
        free_run(&r);
        /* an output at a negative min: the input must follow it */
        const int64_t nmin[4] = {-20, -7};
        const int64_t imin_ok[4] = {-21, -8}, iext_ok[4] = {W + 2, H + 2};
        region_run(k, 1, &imin_ok, &iext_ok, nmin, oext, no, &seed, &r);
        expect_accepted(ctx, k, cs, ncs, &r, ref_gaussian3x3, "gaussian3x3, output at (-20, -7), margin of 1");
        free_run(&r);
        region_run(k, 1, &iext_ok, &iext_ok, nmin, oext, no, &seed, &r); /* input at (39, 7): nowhere near */
        expect_rejected(ctx, k, cs, ncs, &r, "gaussian3x3, output at (-20, -7), input elsewhere", "input 'in'");
        free_run(&r);
        /* coordinates beyond i32 (the bodies' coordinate type): refused, after a run that
           was accepted (no range of that run may linger) */
        const int64_t bmin[4] = {INT32_MAX - 10, 0}, bimin[4] = {INT32_MAX - 11, -1}, biext[4] = {W + 2, H + 2};
        region_run(k, 1, &bimin, &biext, bmin, oext, no, &seed, &r);
        expect_rejected(ctx, k, cs, ncs, &r, "gaussian3x3, output x beyond INT32_MAX",
                        "output 'out': min[0] + extent[0] - 1 = 2147483673 does not fit in i32");
        free_run(&r);
        const int64_t simin[4] = {-1, -1}, siext[4] = {W + 2, H + 2};
        region_run(k, 1, &simin, &siext, omin, oext, no, &seed, &r);
        expect_accepted(ctx, k, cs, ncs, &r, ref_gaussian3x3, "gaussian3x3, margin of 1 (before the next)");
        free_run(&r);
        region_run(k, 1, &simin, &siext, bmin, oext, no, &seed, &r); /* the input where the last run's was */
        expect_rejected(ctx, k, cs, ncs, &r, "gaussian3x3, output x beyond INT32_MAX, input at 0",
                        "output 'out': min[0] + extent[0] - 1 = 2147483673 does not fit in i32");
        free_run(&r);
        const int64_t bmin2[4] = {0, INT32_MIN}, bimin2[4] = {-1, INT32_MIN}, biext2[4] = {W + 2, H + 2};
        region_run(k, 1, &bimin2, &biext2, bmin2, oext, no, &seed, &r);
        expect_rejected(ctx, k, cs, ncs, &r, "gaussian3x3, input y below INT32_MIN", "input 'in'");
        free_run(&r);
        /* hostile geometry (tine.h's rules): refused by every entry point with exactly
           this message, before anything is read or written */
        {
            const struct {
                const char *what;
                int buf, field, dim; /* buf 0: out, 1: in; field 0 min, 1 extent, 2 stride, 3 dims, 4 data NULL, 5 out = in */
                int64_t value;
                const char *msg;
            } hostile[] = {
                {"out extent[1] -3", 0, 1, 1, -3, "output 'out' has an empty extent: extent[1] = -3 must be at least 1"},
                {"out extent[0] 2^31", 0, 1, 0, (int64_t)1 << 31, "output 'out': extent[0] = 2147483648 does not fit in i32"},
                {"out min[1] INT64_MIN", 0, 0, 1, INT64_MIN, "output 'out': min[1] = -9223372036854775808 does not fit in i32"},
                {"out stride[1] 0", 0, 2, 1, 0, "output 'out': stride[1] = 0 must be positive"},
                {"out stride[1] -37", 0, 2, 1, -37, "output 'out': stride[1] = -37 must be positive"},
                {"out stride[1] 2^32", 0, 2, 1, (int64_t)1 << 32, "output 'out': stride[1] = 4294967296 does not fit in i32"},
                {"out stride[1] 36", 0, 2, 1, 36,
                 "output 'out': stride[1] = 36 is less than extent[0] x stride[0] = 37 (its rows would overlap)"},
                {"out stride[1] 2^29", 0, 2, 1, (int64_t)1 << 29,
                 "output 'out' spans more than 2^31 elements (its largest index must fit in i32)"},
                {"out dims 3", 0, 3, 0, 3, "output 'out' has 3 dimensions; the kernel expects 2"},
                {"in dims 1", 1, 3, 0, 1, "input 'in' has 1 dimension; the kernel expects 2"},
                {"in min[0] INT64_MAX", 1, 0, 0, INT64_MAX, "input 'in': min[0] = 9223372036854775807 does not fit in i32"},
                {"in min[1] INT32_MAX - 2", 1, 0, 1, INT32_MAX - 2,
                 "input 'in': min[1] + extent[1] - 1 = 2147483651 does not fit in i32"},
                {"in stride[1] 0", 1, 2, 1, 0, "input 'in': stride[1] = 0 must be positive"},
                {"in extent[0] 0", 1, 1, 0, 0, "input 'in' has an empty extent: extent[0] = 0 must be at least 1"},
                {"in data NULL", 1, 4, 0, 0, "input 'in' has no data (data is NULL)"},
                {"out on in's memory", 0, 5, 0, 0, "output 'out' overlaps input 'in' in memory; an output must not alias an input"},
            };
            const int64_t imin[4] = {-1, -1}, iext[4] = {W + 2, H + 2};
            for (size_t i = 0; i < sizeof hostile / sizeof hostile[0]; i++) {
                region_run(k, 1, &imin, &iext, omin, oext, no, &seed, &r);
                tine_buffer_t *b = hostile[i].buf ? &r.in[0].b : &r.ref.b, saved = *b;
                void *outdata = r.ref.b.data;
                switch (hostile[i].field) {
                case 0: b->min[hostile[i].dim] = hostile[i].value; break;
                case 1: b->extent[hostile[i].dim] = hostile[i].value; break;
                case 2: b->stride[hostile[i].dim] = hostile[i].value; break;
                case 3: b->dims = (int)hostile[i].value; break;
                case 4: b->data = NULL; break;
                default: r.ref.b.data = r.in[0].b.data; break;
                }
                char what[96];
                snprintf(what, sizeof what, "gaussian3x3, %s", hostile[i].what);
                if (hostile[i].field != 5) expect_rejected(ctx, k, cs, ncs, &r, what, hostile[i].msg);
                for (int a = 0; a < 2 + ncs; a++) { /* the exact message from each */
                    tine_clear_error(ctx);
                    int rc = a == 0   ? tine_kernel_check_region(k, r.inp, r.params, &r.ref.b)
                             : a == 1 ? tine_kernel_interpret(k, r.inp, r.params, &r.ref.b)
                                      : tine_compiled_run(cs[a - 2], r.inp, r.params, &r.ref.b);
                    check(rc == -1 && tine_error(ctx) && !strcmp(tine_error(ctx), hostile[i].msg),
                          "%s: entry point %d: rc %d, error\n  %s\nwant\n  %s", what, a, rc,
                          tine_error(ctx) ? tine_error(ctx) : "(none)", hostile[i].msg);
                }
                *b = saved;
                r.ref.b.data = outdata;
                free_run(&r);
            }
        }
        /* an empty output extent: refused, naming the output */
        for (int d = 0; d < 2; d++) {
            int64_t e[4] = {W, H};
            e[d] = 0;
            const int64_t imin[4] = {-1, -1}, iext[4] = {W + 2, H + 2};
            region_run(k, 1, &imin, &iext, omin, e, no, &seed, &r);
            char what[96];
            snprintf(what, sizeof what, "gaussian3x3, output extent 0 in dimension %d", d);
            expect_rejected(ctx, k, cs, ncs, &r, what, "output 'out' has an empty extent");
            free_run(&r);
        }
        free_compiled(k, cs, ncs);
    }

    /* a 1-D kernel reading in(x + 5), and one reading in(x + k) for a parameter k */
    k = with_compiled(ctx,
                      "input in: u8[1]\n"
                      "param k: i32\n"
                      "output out(x): u8 = in(x + 5) + in(x + k)\n"
                      "schedule\n"
                      "vectorize out.x 8\n",
                      cs, &ncs);
    if (k) {
        const int64_t omin[4] = {3}, oext[4] = {W};
        for (int extra = 3; extra <= 6; extra++)
            for (int64_t kv = -1; kv <= 1; kv++) {
                const int64_t imin[4] = {omin[0] + (kv < 0 ? kv : 0)}, iext[4] = {W + extra - (kv < 0 ? kv : 0)};
                region_run(k, 1, &imin, &iext, omin, oext, &kv, &seed, &r);
                char what[96];
                snprintf(what, sizeof what, "in(x + 5) + in(x + k), k = %lld, input %d longer than the output",
                         (long long)kv, extra);
                if (extra >= 5) expect_accepted(ctx, k, cs, ncs, &r, NULL, what);
                else expect_rejected(ctx, k, cs, ncs, &r, what, "input 'in'");
                free_run(&r);
            }
        /* a parameter reaching past the input: k = 9 needs 9 more */
        const int64_t imin[4] = {3}, iext[4] = {W + 5};
        int64_t kv = 9;
        region_run(k, 1, &imin, &iext, omin, oext, &kv, &seed, &r);
        expect_rejected(ctx, k, cs, ncs, &r, "in(x + k), k = 9, input 5 longer", "input 'in'");
        free_run(&r);
        kv = -1000000;
        region_run(k, 1, &imin, &iext, omin, oext, &kv, &seed, &r);
        expect_rejected(ctx, k, cs, ncs, &r, "in(x + k), k = -1000000", "input 'in'");
        free_run(&r);
        free_compiled(k, cs, ncs);
    }

    /* two inputs: only the second is too small, and the error names it */
    k = with_compiled(ctx,
                      "input in: u8[2]\n"
                      "input m: i8[2]\n"
                      "output out(x, y): i16 = i16(in(x, y)) * i16(m(x + 1, y + 1))\n",
                      cs, &ncs);
    if (k) {
        const int64_t omin[4] = {0, 0}, oext[4] = {W, H};
        const int64_t imin[2][4] = {{0, 0}, {0, 0}}, iext[2][4] = {{W, H}, {W + 1, H}};
        region_run(k, 2, imin, iext, omin, oext, no, &seed, &r);
        expect_rejected(ctx, k, cs, ncs, &r, "second input one row short", "input 'm'");
        free_run(&r);
        const int64_t iext2[2][4] = {{W, H}, {W + 1, H + 1}};
        region_run(k, 2, imin, iext2, omin, oext, no, &seed, &r);
        expect_accepted(ctx, k, cs, ncs, &r, NULL, "second input large enough");
        free_run(&r);
        free_compiled(k, cs, ncs);
    }

    /* scalars are typed data, not names: two inputs whose names, at the 64-character
       limit, agree in their first 63 (a fixed name buffer once made long names one), and a
       parameter named like an input's geometry (in_min0 against in's min[0]) */
    {
        char text[1024], l1[128], l2[128];
        memset(l1, 'L', 63);
        memcpy(l2, l1, 63);
        l1[63] = '1';
        l2[63] = '2';
        l1[64] = l2[64] = 0;
        snprintf(text, sizeof text,
                 "input %s: u8[2]\ninput %s: u8[2]\ninput in: u8[2]\nparam in_min0: i32\n"
                 "output out(x, y): i16 = i16(%s(x, y)) - i16(%s(x + 1, y)) + i16(in(x, y + in_min0))\n",
                 l1, l2, l1, l2);
        k = with_compiled(ctx, text, cs, &ncs);
        if (k) {
            const int64_t omin[4] = {0, 0}, oext[4] = {W, H};
            const int64_t imin[3][4] = {{0, 0}, {1, 0}, {0, 2}}, iext[3][4] = {{W, H}, {W, H}, {W, H}};
            for (int64_t kv = 2; kv <= 3; kv++) {
                region_run(k, 3, imin, iext, omin, oext, &kv, &seed, &r);
                if (kv == 2) expect_accepted(ctx, k, cs, ncs, &r, NULL, "long names and a parameter named in_min0");
                else expect_rejected(ctx, k, cs, ncs, &r, "in_min0 = 3 reads past in", "input 'in' is too small");
                free_run(&r);
            }
            free_compiled(k, cs, ncs);
        }
    }

    /* 3-D: the z extent one short */
    k = with_compiled(ctx,
                      "input in: u16[3]\n"
                      "output out(x, y, z): u16 = in(x, y, z) + in(x, y, z + 1)\n",
                      cs, &ncs);
    if (k) {
        const int64_t omin[4] = {0, 0, 0}, oext[4] = {W, H, 3};
        const int64_t imin[4] = {0, 0, 0}, ishort[4] = {W, H, 3}, iok[4] = {W, H, 4};
        region_run(k, 1, &imin, &ishort, omin, oext, no, &seed, &r);
        expect_rejected(ctx, k, cs, ncs, &r, "3-D, z one short", "input 'in'");
        free_run(&r);
        region_run(k, 1, &imin, &iok, omin, oext, no, &seed, &r);
        expect_accepted(ctx, k, cs, ncs, &r, NULL, "3-D, z large enough");
        free_run(&r);
        free_compiled(k, cs, ncs);
    }

    /* boundary conditions need no margin: a 1x1 input under a large output */
    k = with_compiled(ctx,
                      "input in: u8[2]\n"
                      "func e = edge(in)\n"
                      "func c = constant(in, 9)\n"
                      "output out(x, y): u8 = e(x - 40, y + 3) + c(x * 2, y - 1)\n",
                      cs, &ncs);
    if (k) {
        const int64_t omin[4] = {-10, -4}, oext[4] = {W, H};
        const int64_t imin[4] = {2, 1}, iext[4] = {1, 1};
        region_run(k, 1, &imin, &iext, omin, oext, no, &seed, &r);
        expect_accepted(ctx, k, cs, ncs, &r, NULL, "edge and constant of a 1x1 input");
        /* the values: in(2, 1) clamped, plus in(2, 1) where (2x, y - 1) = (2, 1), else 9 */
        if (tine_kernel_interpret(k, r.inp, r.params, &r.ref.b) == 0) {
            int64_t c[4] = {0};
            bool ok = true;
            uint8_t v = *(uint8_t *)r.in[0].b.data;
            FOR_EACH(c, 2, omin, oext) {
                uint8_t want = (uint8_t)(v + (c[0] * 2 == 2 && c[1] - 1 == 1 ? v : 9));
                ok &= get_i(&r.ref, c) == want;
            }
            check(ok, "edge and constant of a 1x1 input: wrong values");
        }
        free_run(&r);
        free_compiled(k, cs, ncs);
    }
    printf("region checks: done\n");
    tine_ctx_free(ctx);
}

/* ==== kernels with many inputs and parameters ================================================ */

/* 16 inputs and 64 parameters (the checker's limits) once gave more scalars than codegen's
 * fixed arrays held: compile refused the kernel and emit wrote past its arrays. Arrays are
 * now sized by the kernel: both must take it, and the values must be the sums. */
static void test_many_scalars(void) {
    enum { NIN = 16, NP = 64, W = 21 };
    tine_ctx_t *ctx = tine_ctx_new();
    tine_buf t = {0};
    for (int i = 0; i < NIN; i++) tine_buf_printf(&t, "input i%d: u8[1]\n", i);
    for (int i = 0; i < NP; i++) tine_buf_printf(&t, "param p%d: i32\n", i);
    tine_buf_puts(&t, "output out(x): i32 = ");
    for (int i = 0; i < NIN; i++) tine_buf_printf(&t, "i32(i%d(x + %d)) + ", i, i % 3);
    for (int i = 0; i < NP; i++) tine_buf_printf(&t, "p%d%s", i, i + 1 < NP ? " + " : "\n");
    tine_kernel_t *k = parse_ok(ctx, "16 inputs, 64 parameters", t.p);
    free(t.p);
    if (!k) {
        tine_ctx_free(ctx);
        return;
    }
    uint8_t data[NIN][W + 2];
    int32_t pv[NP], out[W], want[W];
    tine_buffer_t in[NIN], ob = {.data = out, .dims = 1, .min = {0}, .extent = {W}, .stride = {1}};
    tine_buffer_t *inp[NIN];
    const void *params[NP];
    uint64_t seed = 7;
    for (int i = 0; i < NIN; i++) {
        for (int x = 0; x < W + 2; x++) data[i][x] = (uint8_t)tine_rand64(&seed);
        in[i] = (tine_buffer_t){.data = data[i], .dims = 1, .min = {0}, .extent = {W + 2}, .stride = {1}};
        inp[i] = &in[i];
    }
    for (int i = 0; i < NP; i++) {
        pv[i] = 3 * i - 50;
        params[i] = &pv[i];
    }
    for (int x = 0; x < W; x++) {
        want[x] = 0;
        for (int i = 0; i < NIN; i++) want[x] += data[i][x + i % 3];
        for (int i = 0; i < NP; i++) want[x] += pv[i];
    }
    memset(out, 0, sizeof out);
    check(tine_kernel_interpret(k, inp, params, &ob) == 0 && !memcmp(out, want, sizeof out),
          "16 inputs, 64 parameters: the interpreter's sums are wrong (%s)", tine_error(ctx) ? tine_error(ctx) : "");
    for (int s = 0; s < 2; s++) {
        tine_compiled_t *c = tine_kernel_compile(k, "host", s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
        check(c != NULL, "16 inputs, 64 parameters: does not compile: %s", tine_error(ctx) ? tine_error(ctx) : "");
        if (!c) continue;
        memset(out, 0, sizeof out);
        check(tine_compiled_run(c, inp, params, &ob) == 0 && !memcmp(out, want, sizeof out),
              "16 inputs, 64 parameters: compiled (selection %d) sums are wrong (%s)", s,
              tine_error(ctx) ? tine_error(ctx) : "");
        tine_compiled_free(c);
    }
    size_t size = 0;
    void *obj = tine_kernel_emit(k, "host", TINE_SELECT_TINE, "many", "obj", &size);
    check(obj && size > 0, "16 inputs, 64 parameters: no object file: %s", tine_error(ctx) ? tine_error(ctx) : "");
    free(obj);
    tine_kernel_free(k);
    tine_ctx_free(ctx);
}

/* `--part inline` and `--part sched` split the run in two (ctest runs them as two tests,
 * side by side on two cores); no argument runs both. */
int main(int argc, char **argv) {
    bool bless = argc > 1 && !strcmp(argv[1], "--bless");
    bool bad_only = argc > 1 && !strcmp(argv[1], "--malformed"); /* the error corpus alone: seconds, not minutes */
    const char *part = argc > 2 && !strcmp(argv[1], "--part") ? argv[2] : "all";
    bool first = strcmp(part, "sched") != 0, second = strcmp(part, "inline") != 0;
    double t0 = now();
    if (first) test_bad_kernels("data/bad_kernels.txt", bless);
    double t1 = now();
    if (bless || bad_only) {
        printf("test_kernel: %lld checks passed, %lld failed\n", g_pass, g_fail);
        return g_fail ? 1 : 0;
    }
    detect_targets();
    if (!strcmp(part, "pairs") || !strcmp(part, "chained")) { /* one test alone (debugging): seconds */
        if (!strcmp(part, "pairs")) test_pair_reductions();
        else test_chained_sums();
        printf("test_kernel: %lld checks passed, %lld failed\n", g_pass, g_fail);
        return g_fail ? 1 : 0;
    }
    if (first) {
        test_regions();
        test_many_scalars();
    }
    double t2 = now();
    if (first) {
        test_inline_kernels();
        test_narrow_storage();
    }
    if (getenv("TEST_KERNEL_ONLY")) {
        printf("test_kernel: %lld checks passed, %lld failed\n", g_pass, g_fail);
        return g_fail ? 1 : 0;
    }
    if (second) {
        test_vectorized_reductions();
        test_jammed_reductions();
        test_chained_sums();
        test_pair_reductions();
    }
    double t3 = now();
    if (second) {
        test_auto_schedules("../bench/kernels");
        test_bench_kernels("../bench");
    }
    double t4 = now();
    printf("%d compilations (%.2f s), %d compiled runs compared with the interpreter (%.2f s); interpreter %.2f s\n",
           compiles, t_compile, runs_compared, t_run, t_interpret);
    printf("times: malformed %.2f s, regions %.2f s, inline kernels and reductions %.2f s, benchmark kernels %.2f s\n",
           t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    printf("test_kernel: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
