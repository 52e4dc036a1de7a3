/* test_codegen.c — the LLVM backend (src/codegen/llvm.c) against the reference interpreter.
 *
 * Design note
 * -----------
 * Expressions are compiled with tine_jit_expr for the host and run on many random input
 * vectors; the interpreter (tine_eval on the ORIGINAL expression) is the reference. Every
 * compiled function is built twice: TINE_SELECT_LLVM on the expression as written (the
 * emitter expands FPIR to its definitions) and TINE_SELECT_TINE on tine_lift() of it (the
 * FPIR ops the lifter finds, some emitted as LLVM intrinsics). A "check" is one expression
 * on one input vector in one selection: every lane must agree. Each call also verifies that
 * the bytes after the result are untouched (a canary: the JIT'd code is not instrumented
 * by ASan, so an out-of-bounds store would otherwise go unseen).
 *
 * Parts (numbered as in main()):
 *   1. Every primitive op on every type it accepts, at 16 lanes, and the elementwise ops
 *      again at 7 and 1 lanes: add sub mul div mod min max neg and or xor not, shl and shr
 *      with both signednesses of the count, eq ne lt le gt ge (half the lanes compare equal
 *      operands), select, cast (all 121 ordered pairs of the 11 element types), sqrt, fma, float abs; at 16
 *      lanes also reinterpret (all 16 same-width non-bool pairs), broadcast, ramp, concat
 *      (of 16 + 7 + 1 lanes), slice, interleave, deinterleave, vector_reduce_add (to 8
 *      groups and to 1), loads (in_T[ramp(x_i32, 3, 16) & 1023], a true gather
 *      in_T[i_i32 & 1023], two loads of one buffer, two buffers) and per-lane constants
 *      (alone, as a function without arguments, and as an operand). Reinterprets to
 *      lanes of other bits: every non-bool pair at 64, 128 and 256 bits, and inside
 *      larger expressions ((reinterpret<u16x8>(a_u8x16) >> 3) + b_u16x8, FPIR around and
 *      under them).
 *   2. Every FPIR op on every type combination its signature allows at 8, 16, 32 and 64
 *      bits (rounding_mul_shr on 64 bits must be refused), at 16, 1, 7 and 64 lanes: 288
 *      combinations. The 64-bit widening ops have 128-bit results, which a compiled
 *      function cannot return (part 4 checks the refusal); they are checked through their
 *      halves, concat(T64(r), T64(r >> 64)), which keep every bit of r.
 *   3. NRANDOM_DEFAULT (2000) random well-typed integer expressions of height <= 4 (mixed
 *      ops and widths, casts, reinterprets, selects on comparisons, bool-to-int casts,
 *      gathers, FPIR ops including 64-bit widening ops cast back, and shapes the lifter
 *      turns into FPIR ops), at 16, 8, 7 or 1 lanes, each on RANDOM_VECTORS (8) input
 *      vectors in both selections.
 *   4. tine_emit_expr: u8((u16(a_u8) + u16(b_u8) + 1) >> 1) gives vpavgb on ymm at 32 lanes
 *      on x86-64-avx2 and pavgb on xmm at 16 lanes on x86-64-sse2 (both selections); LLVM
 *      text holds `define void @tine_expr`; every known target emits; an unknown target
 *      gives NULL and an error naming it and listing the known ones (emit and JIT); a
 *      128-bit result or input is refused with an error; single-lane saturating_shl,
 *      rounding_shr and rounding_shl on i64 emit on every target (they aborted LLVM once,
 *      see the regression note there); two pinned single-lane expressions that LLVM 19
 *      miscompiles for AVX-512 (see the note there) are checked on the host. Then the
 *      fixed targets this CPU can run are JIT'd on a few mixed expressions (1 and 16
 *      lanes) and checked as above.
 *   5. Cost: per part, the JIT count, the time per tine_jit_expr and the total (wall and
 *      CPU) are printed.
 *
 * Bundles. A tine_jit_expr costs ~5 ms whatever the expression (target machine, LLJIT, the
 * O3 and code generation pipelines) plus a time that grows faster than linearly with the
 * function (one basic block): ~20 ms for an FPIR op on 16 lanes of 64 bits, ~100 ms on 64
 * lanes (its definition works on 128-bit lanes, which LLVM scalarizes). Compiling every
 * check alone took ~2 minutes. So several checks share one compiled function: members of
 * one element type are concatenated (concat adds shuffles of the results; each member
 * keeps its own nodes, lanes and operand types, so the emitter emits it exactly as it
 * would alone), and each member's lanes are compared and reported separately. Bundle
 * sizes are the measured optimum per part: 16 members for the cheap primitive ops, fewer
 * as members grow; 64-lane 64-bit FPIR members are compiled alone; 8 random expressions
 * (at most 64 lanes) per function. All input vectors of a check run through one compiled
 * function. A run takes ~1540 compilations: ~42 s on this 2-core machine when it is idle
 * (a third of it the 64-lane 64-bit FPIR ops), ~80 s under ASan.
 *
 * Inputs are edge-biased: integers take 0, ±1, ±2, the type's min and max and their
 * neighbours, powers of two and their neighbours, small values and uniform bits; variables
 * whose name starts with 's' are shift counts (mostly in [-(w+2), 2w+2], plus w - 1, w,
 * 2w, 127, 128, 255, 256, -128, the type's min, ...). Floats take ±0, ±inf, quiet and
 * signalling NaNs with random payloads and signs, denormals, the smallest and largest
 * finite values, halves (rounding ties), the integer types' limits and the values next to
 * them (±2^(b-1), 2^b, -2^(b-1) - 1, ± 0.5, and the adjacent floats), ordinary values with
 * fractions and uniform bits. Buffers hold BUF_ELEMS (1031) elements; every load index is
 * masked with & 1023, so every load is in bounds.
 *
 * Float comparison: a NaN result of arithmetic (add sub mul div sqrt, float casts,
 * vector_reduce_add) matches any NaN: IEEE 754 leaves the payload open, and the two sides
 * do differ — x86 propagates the first operand's NaN and the compilers order the operands
 * of commutative ops differently (measured: add and mul of two NaNs, e.g. f32 lanes
 * 0x7fc00000 vs 0xffc4889e). Every other float result is compared by its bits, the sign of
 * zero included. Ops that only move bits — select, float min/max (which tine defines as
 * select(a < b, a, b) / select(a > b, a, b), so the result is one operand's exact bits;
 * a NaN first operand yields the second), neg (a sign flip in both), reinterpret,
 * broadcast, shuffles, loads and constants — are compared exactly, NaN payloads included.
 *
 * Usage: test_codegen [seed]. Environment: TINE_CODEGEN_N overrides the number of random
 * expressions of part 3; TINE_CODEGEN_PARTS (e.g. "13") runs only some parts.
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPORT 40
#include "testutil.h"
#include "fpir_typings.h"

#define BUF_ELEMS 1031
#define CANARY 64
#define MAX_INPUTS 64
#define NRANDOM_DEFAULT 2000
#define RANDOM_VECTORS 8
#define RANDOM_BUNDLE 8        /* random expressions per compiled function, */
#define RANDOM_BUNDLE_LANES 64 /* and lanes (see "bundles") */
#define MAX_HEIGHT 4

static tine_ctx_t *g_ctx;
static uint64_t g_seed = 0x74696e65434f4445ull; /* "tineCODE" */
static uint64_t g_rng;
static long long g_jits, g_exprs;
static double g_jit_sec;
static const char *g_target = "host";

static uint64_t rng(void) { return tine_rand64(&g_rng); }
static uint64_t rnd(uint64_t n) { return n ? rng() % n : 0; }

/* A printed expression (truncated), in a rotating set of static buffers. */
static const char *P(const tine_expr_t *e) {
    static char bufs[4][1024];
    static int k;
    char *b = bufs[k++ & 3];
    if (!e) {
        snprintf(b, sizeof bufs[0], "(null: %s)", tine_error(g_ctx) ? tine_error(g_ctx) : "no error");
        return b;
    }
    char *s = tine_print(g_ctx, e);
    snprintf(b, sizeof bufs[0], "%s", s ? s : "(print failed)");
    if (s && strlen(s) >= sizeof bufs[0]) strcpy(b + sizeof bufs[0] - 5, "...");
    free(s);
    return b;
}

/* ---- types ------------------------------------------------------------------------ */

enum { NELEMS = 11 };
static tine_type_t elem(int i) { /* u8 u16 u32 u64 i8 i16 i32 i64 f32 f64 bool */
    if (i < 4) return tine_type(TINE_UINT, 8 << i, 1);
    if (i < 8) return tine_type(TINE_INT, 8 << (i - 4), 1);
    if (i < 10) return tine_type(TINE_FLOAT, 32 << (i - 8), 1);
    return tine_type(TINE_BOOL, 1, 1);
}
static tine_type_t ity(int bits, int sgn, int lanes) { return tine_type(sgn ? TINE_INT : TINE_UINT, bits, lanes); }
static tine_type_t WL(tine_type_t t, int lanes) { return tine_type_with_lanes(t, lanes); }
static const char *tn(tine_type_t t, char buf[32]) { return tine_type_str(WL(t, 1), buf, 32); }
static int elem_bytes(tine_type_t t) { return t.kind == TINE_BOOL ? 1 : t.bits / 8; }
static uint64_t mask_of(int bits) { return bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1); }
static uint64_t sext(uint64_t v, int bits) {
    v &= mask_of(bits);
    if (bits < 64 && (v >> (bits - 1)) & 1) v |= ~mask_of(bits);
    return v;
}

/* ---- edge-biased values ------------------------------------------------------------- */

static uint64_t gen_int(tine_type_t t) {
    int b = t.bits;
    uint64_t sign = (uint64_t)1 << (b - 1), v;
    switch (rnd(16)) {
    case 0: v = 0; break;
    case 1: v = 1; break;
    case 2: v = ~(uint64_t)0; break;   /* -1, unsigned max */
    case 3: v = sign; break;           /* signed min, 2^(b-1) */
    case 4: v = sign - 1; break;       /* signed max */
    case 5: v = sign + 1; break;
    case 6: v = ~(uint64_t)1; break;   /* -2, unsigned max - 1 */
    case 7: v = rnd(16); break;
    case 8: v = (uint64_t)-(int64_t)(1 + rnd(16)); break;
    case 9: v = (uint64_t)1 << rnd((uint64_t)b); break;
    case 10: v = ((uint64_t)1 << rnd((uint64_t)b)) - 1; break;
    case 11: v = (uint64_t)-(int64_t)((uint64_t)1 << rnd((uint64_t)b - 1)); break;
    case 12: v = 2; break;
    default: v = rng(); break;
    }
    return v & mask_of(b);
}

static uint64_t gen_shift(tine_type_t t) {
    int b = t.bits, sg = t.kind == TINE_INT;
    uint64_t v;
    switch (rnd(8)) {
    case 0: case 1: case 2: v = rnd((uint64_t)b + 3); break;
    case 3: {
        const uint64_t c[] = {(uint64_t)b - 1, (uint64_t)b, (uint64_t)b + 1, 2 * (uint64_t)b - 1, 2 * (uint64_t)b,
                              2 * (uint64_t)b + 1, 2 * (uint64_t)b + 2, 127, 128, 255, 256};
        v = c[rnd(sizeof c / sizeof *c)];
        break;
    }
    case 4: v = sg ? (uint64_t)-(int64_t)(1 + rnd((uint64_t)b + 2)) : rnd(2 * (uint64_t)b + 3); break;
    case 5: {
        if (sg) {
            const uint64_t c[] = {(uint64_t)-(int64_t)b, (uint64_t)-(int64_t)(b + 1), (uint64_t)-(int64_t)(2 * b),
                                  (uint64_t)-(int64_t)(2 * b + 1), (uint64_t)-128, (uint64_t)1 << (b - 1),
                                  ((uint64_t)1 << (b - 1)) + 1};
            v = c[rnd(sizeof c / sizeof *c)];
        } else {
            v = rnd(2) ? ~(uint64_t)0 : ~(uint64_t)1;
        }
        break;
    }
    default: return gen_int(t);
    }
    return v & mask_of(b);
}

static uint64_t fbits(float f) {
    uint32_t w;
    memcpy(&w, &f, 4);
    return w;
}
static uint64_t dbits(double d) {
    uint64_t w;
    memcpy(&w, &d, 8);
    return w;
}
static float bitsf(uint64_t v) {
    uint32_t w = (uint32_t)v;
    float f;
    memcpy(&f, &w, 4);
    return f;
}
static double bitsd(uint64_t v) {
    double d;
    memcpy(&d, &v, 8);
    return d;
}

/* A double as f32 or f64 bits, sometimes moved to the next float up or down. */
static uint64_t near(double d, int bits) {
    int k = (int)rnd(3);
    if (bits == 32) {
        float f = (float)d;
        if (k == 1) f = nextafterf(f, INFINITY);
        if (k == 2) f = nextafterf(f, -INFINITY);
        return fbits(f);
    }
    if (k == 1) d = nextafter(d, INFINITY);
    if (k == 2) d = nextafter(d, -INFINITY);
    return dbits(d);
}

static uint64_t gen_float(int bits) {
    int mb = bits == 32 ? 23 : 52, eb = bits == 32 ? 8 : 11;
    uint64_t sign = rnd(2) << (bits - 1), expmask = mask_of(eb) << mb, mant = mask_of(mb);
    switch (rnd(24)) {
    case 0: return 0;
    case 1: return (uint64_t)1 << (bits - 1); /* -0 */
    case 2: return expmask;                   /* +inf */
    case 3: return expmask | (uint64_t)1 << (bits - 1);
    case 4: return expmask | (uint64_t)1 << (mb - 1); /* the default quiet NaN */
    case 5: { /* NaN: random sign and payload, quiet or signalling */
        uint64_t m = rng() & mant;
        if (!m) m = 1;
        return sign | expmask | m;
    }
    case 6: { /* denormal */
        uint64_t m = (rng() & mant) >> rnd((uint64_t)mb);
        return sign | (m ? m : 1);
    }
    case 7: {
        const uint64_t c[] = {1, mant, (uint64_t)1 << mb}; /* min denormal, max denormal, min normal */
        return sign | c[rnd(3)];
    }
    case 8: return sign | (expmask - ((uint64_t)1 << mb)) | mant; /* +-max */
    case 9: {
        const double c[] = {1, 0.5, 1.5, 2.5, 3, 0.49999999999999994, 0.99999999999999989, 100.5, 1e-3, -0.5, -1.5};
        double d = c[rnd(sizeof c / sizeof *c)];
        return bits == 32 ? fbits((float)d) ^ sign : dbits(d) ^ sign;
    }
    case 10: case 11: case 12: case 13: { /* integer types' limits, their neighbours, halves */
        int b = 8 << rnd(4);
        double p = ldexp(1.0, b - 1), q = ldexp(1.0, b);
        const double c[] = {p, q, -p, -p - 1, p - 1, q - 1, -1, p - 0.5, q - 0.5, -p - 0.5, -0.5, -p + 0.5, q + 1};
        return near(c[rnd(sizeof c / sizeof *c)], bits);
    }
    case 14: case 15: case 16: case 17: { /* ordinary values with fractions */
        double d = (double)(int64_t)(rng() >> rnd(64)) * ldexp(1.0, -(int)rnd(12));
        if (rnd(2)) d = -d;
        return bits == 32 ? fbits((float)d) : dbits(d);
    }
    default: return rng() & mask_of(bits);
    }
}

static uint64_t gen_value(tine_type_t t, int shift) {
    if (t.kind == TINE_BOOL) return rnd(2);
    if (t.kind == TINE_FLOAT) return gen_float(t.bits);
    return shift ? gen_shift(t) : gen_int(t);
}

static int is_nan_bits(tine_type_t t, uint64_t v) {
    return t.bits == 32 ? isnan(bitsf(v)) : isnan(bitsd(v));
}

/* A lane value for messages. */
static const char *show(tine_type_t t, uint64_t v, char *buf, size_t n) {
    v &= mask_of(t.kind == TINE_BOOL ? 8 : t.bits);
    if (t.kind == TINE_FLOAT)
        snprintf(buf, n, "0x%" PRIx64 " (%.17g)", v, t.bits == 32 ? (double)bitsf(v) : bitsd(v));
    else if (t.kind == TINE_INT)
        snprintf(buf, n, "0x%" PRIx64 " (%" PRId64 ")", v, (int64_t)sext(v, t.bits));
    else
        snprintf(buf, n, "0x%" PRIx64 " (%" PRIu64 ")", v, v);
    return buf;
}

/* ---- inputs --------------------------------------------------------------------------- */

typedef struct {
    const tine_expr_t *leaf; /* a variable, or the first load of a buffer */
    const char *buf;         /* buffer name (interned), NULL for a variable */
    tine_type_t t;           /* element type, 1 lane */
    size_t count, bytes;     /* lanes of the variable or elements of the buffer; bytes each */
    unsigned char *data;     /* nvec blocks of count * bytes */
} input;

typedef struct {
    input in[MAX_INPUTS];
    int n, nvec;
} inputs;

static uint64_t get_lane(const unsigned char *p, size_t bytes) {
    uint64_t v = 0;
    memcpy(&v, p, bytes); /* little-endian host */
    return v;
}

static const unsigned char *block(const input *in, int v) { return in->data + (size_t)v * in->count * in->bytes; }

/* Leaves of e, with nvec random vectors for each; returns -1 if there are too many. */
static int make_inputs(const tine_expr_t *e, int nvec, inputs *ins) {
    uint32_t n;
    tine_expr_t **order = tine_topo(g_ctx, e, &n);
    ins->n = 0;
    ins->nvec = nvec;
    int rc = 0;
    for (uint32_t k = 0; k < n && rc == 0; k++) {
        const tine_expr_t *x = order[k];
        tine_op_t op = tine_expr_op(x);
        if (op != TINE_OP_VAR && op != TINE_OP_LOAD) continue;
        if (op == TINE_OP_LOAD) {
            bool seen = false;
            for (int i = 0; i < ins->n; i++) seen |= ins->in[i].buf == tine_expr_name(x);
            if (seen) continue;
        }
        if (ins->n == MAX_INPUTS) {
            rc = -1;
            break;
        }
        input *in = &ins->in[ins->n++];
        in->leaf = x;
        in->buf = op == TINE_OP_LOAD ? tine_expr_name(x) : NULL;
        in->t = WL(tine_expr_type(x), 1);
        in->count = op == TINE_OP_LOAD ? BUF_ELEMS : tine_expr_type(x).lanes;
        in->bytes = (size_t)elem_bytes(in->t);
        in->data = malloc((size_t)nvec * in->count * in->bytes);
        TINE_ASSERT(in->data != NULL);
        int shift = op == TINE_OP_VAR && tine_expr_name(x)[0] == 's';
        for (size_t i = 0; i < (size_t)nvec * in->count; i++) {
            uint64_t v = gen_value(in->t, shift);
            memcpy(in->data + i * in->bytes, &v, in->bytes);
        }
    }
    free(order);
    return rc;
}

static void free_inputs(inputs *ins) {
    for (int i = 0; i < ins->n; i++) free(ins->in[i].data);
    ins->n = 0;
}

static int bind_vector(tine_env_t *env, const inputs *ins, int v) {
    for (int i = 0; i < ins->n; i++) {
        const input *in = &ins->in[i];
        if (in->buf) {
            if (tine_env_bind_buffer(env, in->buf, in->t, block(in, v), in->count)) return -1;
        } else {
            uint64_t lanes[TINE_MAX_LANES];
            for (size_t l = 0; l < in->count; l++) lanes[l] = get_lane(block(in, v) + l * in->bytes, in->bytes);
            if (tine_env_bind(env, in->leaf, lanes)) return -1;
        }
    }
    return 0;
}

/* ---- the check ----------------------------------------------------------------------- */

static const char *sel_name(tine_selection_t s) { return s == TINE_SELECT_LLVM ? "llvm" : "tine"; }

/* One expression checked as part of a compiled function: lanes [begin, begin + lanes) of
 * the function's result. `exact`: float NaN results must match bit for bit too. */
typedef struct {
    char label[200];
    tine_expr_t *e;
    int exact;
    int begin, lanes;
} member;

static void report(const member *m, tine_selection_t sel, const inputs *ins, int v, int lane, uint64_t got,
                   uint64_t want, const char *what) {
    if (!fail_reported()) return;
    tine_type_t rt = tine_expr_type(m->e);
    char b1[64], b2[64];
    fprintf(stderr, "FAIL %s [%s, %s]: ", m->label, sel_name(sel), g_target);
    if (what) fprintf(stderr, "%s (vector %d)\n", what, v);
    else
        fprintf(stderr, "vector %d lane %d: compiled %s, interpreter %s\n", v, lane, show(rt, got, b1, sizeof b1),
                show(rt, want, b2, sizeof b2));
    fprintf(stderr, "    expression: %s\n", P(m->e));
    if (sel == TINE_SELECT_TINE) {
        tine_expr_t *c = tine_lift(g_ctx, m->e);
        if (c != m->e) {
            fprintf(stderr, "    lifted:     %s\n", P(c));
            if (!what && c) { /* is it the lift or the emitter? */
                tine_env_t *env = tine_env_new(g_ctx);
                uint64_t out[TINE_MAX_LANES];
                if (bind_vector(env, ins, v) == 0 && tine_eval(g_ctx, c, env, out) == 0)
                    fprintf(stderr, "    the interpreter on the lifted form gives %s\n",
                            show(rt, out[lane], b1, sizeof b1));
                tine_env_free(env);
            }
        }
    }
    if (!what) {
        fprintf(stderr, "    inputs (lane %d, or lane 0 of a scalar):", lane);
        uint32_t n;
        tine_expr_t **order = tine_topo(g_ctx, m->e, &n);
        for (int i = 0; i < ins->n; i++) {
            const input *in = &ins->in[i];
            bool mine = false; /* a leaf of this member (a bundle has the others' too) */
            for (uint32_t k = 0; k < n && !mine; k++) mine = order[k] == in->leaf;
            if (in->buf || !mine) continue;
            size_t l = (size_t)lane < in->count ? (size_t)lane : 0;
            char tb[32];
            fprintf(stderr, " %s_%s=%s", tine_expr_name(in->leaf), tn(in->t, tb),
                    show(in->t, get_lane(block(in, v) + l * in->bytes, in->bytes), b1, sizeof b1));
        }
        free(order);
        fprintf(stderr, "\n");
    }
}

/* Compiles e (the concatenation of the members, in order) as written with
 * TINE_SELECT_LLVM and tine_lift(e) with TINE_SELECT_TINE, runs nvec random input vectors
 * through each, and compares every member's lanes with the interpreter's on e. */
static void check_core(tine_expr_t *e, const member *ms, int nm, int nvec, const inputs *from) {
    tine_type_t rt = tine_expr_type(e);
    int L = rt.lanes;
    size_t rb = (size_t)elem_bytes(rt);
    inputs *ins = calloc(1, sizeof *ins);
    int *bad = calloc(2 * (size_t)nm, sizeof *bad); /* failures per member and selection */
    TINE_ASSERT(ins != NULL && bad != NULL);
    if (make_inputs(e, nvec, ins)) {
        fail("%s: more than %d leaves", ms[0].label, MAX_INPUTS);
        free_inputs(ins);
        free(ins);
        free(bad);
        return;
    }
    for (int i = 0; from && i < ins->n; i++) /* the same input values as in `from` */
        for (int k = 0; k < from->n; k++)
            if (from->in[k].leaf == ins->in[i].leaf || (from->in[k].buf && from->in[k].buf == ins->in[i].buf))
                memcpy(ins->in[i].data, from->in[k].data, (size_t)nvec * ins->in[i].count * ins->in[i].bytes);
    uint64_t *want = malloc(sizeof *want * (size_t)nvec * (size_t)L);
    TINE_ASSERT(want != NULL);
    tine_env_t *env = tine_env_new(g_ctx);
    int ok = 1;
    for (int v = 0; v < nvec && ok; v++) {
        if (bind_vector(env, ins, v) || tine_eval(g_ctx, e, env, want + (size_t)v * L)) {
            fail("%s: the interpreter refused input vector %d: %s (%s)", ms[0].label, v, tine_error(g_ctx), P(e));
            tine_clear_error(g_ctx);
            ok = 0;
        }
    }
    tine_env_free(env);
    for (int s = 0; s < 2 && ok; s++) {
        tine_selection_t sel = s ? TINE_SELECT_TINE : TINE_SELECT_LLVM;
        tine_expr_t *c = sel == TINE_SELECT_TINE ? tine_lift(g_ctx, e) : e;
        if (!c || !tine_type_eq(tine_expr_type(c), rt)) {
            fail("%s: tine_lift failed or changed the type: %s -> %s", ms[0].label, P(e), P(c));
            continue;
        }
        double t0 = now();
        tine_jit_t *j = tine_jit_expr(g_ctx, c, g_target, sel);
        g_jit_sec += now() - t0;
        g_jits++;
        if (!j) {
            fail("%s%s [%s]: tine_jit_expr failed: %s (%s)", ms[0].label, nm > 1 ? " (and the rest of its bundle)" : "",
                  sel_name(sel), tine_error(g_ctx), P(c));
            tine_clear_error(g_ctx);
            continue;
        }
        int na = tine_jit_nargs(j), map[MAX_INPUTS], mapped = na <= MAX_INPUTS;
        for (int a = 0; a < na && mapped; a++) {
            const tine_expr_t *leaf = tine_jit_arg(j, a);
            map[a] = -1;
            for (int i = 0; i < ins->n && map[a] < 0; i++) {
                const input *in = &ins->in[i];
                if (tine_expr_op(leaf) == TINE_OP_VAR ? in->leaf == leaf
                                                      : in->buf && in->buf == tine_expr_name(leaf) &&
                                                            tine_type_eq(in->t, WL(tine_expr_type(leaf), 1)))
                    map[a] = i;
            }
            if (map[a] < 0) {
                fail("%s [%s]: argument %d of the compiled function (%s) is not a leaf of %s", ms[0].label,
                      sel_name(sel), a, P(leaf), P(e));
                mapped = 0;
            }
        }
        for (int v = 0; v < nvec && mapped; v++) {
            const void *args[MAX_INPUTS + 1];
            for (int a = 0; a < na; a++) args[a] = block(&ins->in[map[a]], v);
            uint64_t outw[(TINE_MAX_LANES * 8 + CANARY) / 8];
            unsigned char *out = (unsigned char *)outw;
            memset(out, 0xA5, sizeof outw);
            tine_jit_call(j, args, out);
            int past = -1;
            for (size_t i = (size_t)L * rb; i < sizeof outw && past < 0; i++)
                if (out[i] != 0xA5) past = (int)i;
            if (past >= 0) {
                char msg[128];
                snprintf(msg, sizeof msg, "the compiled code wrote byte %d past its %zu result bytes",
                         past - (int)((size_t)L * rb), (size_t)L * rb);
                report(&ms[nm - 1], sel, ins, v, 0, 0, 0, msg);
                continue;
            }
            for (int k = 0; k < nm; k++) {
                const member *m = &ms[k];
                int lane = -1;
                uint64_t got = 0, w = 0;
                for (int i = 0; i < m->lanes && lane < 0; i++) {
                    size_t at = (size_t)(m->begin + i);
                    got = get_lane(out + at * rb, rb);
                    w = want[(size_t)v * L + at] & mask_of(8 * (int)rb);
                    bool same = got == w;
                    if (!same && !m->exact && rt.kind == TINE_FLOAT) same = is_nan_bits(rt, got) && is_nan_bits(rt, w);
                    if (!same) lane = i;
                }
                if (lane < 0) {
                    g_pass++;
                } else if (bad[2 * k + s]++ >= 2) { /* two messages per member and selection */
                    g_fail++;
                } else {
                    report(m, sel, ins, v, lane, got, w, NULL);
                }
            }
        }
        tine_jit_free(j);
    }
    /* a member that failed in a bundle: is it the member, or the bundle around it? */
    for (int k = 0; k < nm && nm > 1; k++) {
        if (!bad[2 * k] && !bad[2 * k + 1]) continue;
        char *all = tine_print(g_ctx, e);
        fprintf(stderr, "    %s was compiled in a bundle of %d: %s\n", ms[k].label, nm, all);
        free(all);
        member alone = ms[k];
        alone.begin = 0;
        snprintf(alone.label, sizeof alone.label, "%.150s, compiled alone on the same inputs", ms[k].label);
        long long f0 = g_fail;
        check_core(alone.e, &alone, 1, nvec, ins);
        fprintf(stderr, "    %s alone: %s\n", ms[k].label, g_fail == f0 ? "agrees" : "fails too");
    }
    free(bad);
    free(want);
    free_inputs(ins);
    free(ins);
}

/* ---- bundles: several members in one compiled function (see the design note) ------------
 *
 * add() collects members; flush() compiles them in bundles of one element type, at most
 * g_bundle_max members and g_bundle_lanes lanes each, in the order they were added. A
 * bundle of one is the member itself. */

#define BUNDLE_MAX 16
static member *g_pending;
static int g_npending, g_cappending, g_bundle_max = BUNDLE_MAX, g_bundle_lanes = TINE_MAX_LANES;

static void set_bundle(int max_members, int max_lanes) {
    g_bundle_max = max_members < 1 ? 1 : max_members > BUNDLE_MAX ? BUNDLE_MAX : max_members;
    g_bundle_lanes = max_lanes < 1 ? 1 : max_lanes > TINE_MAX_LANES ? TINE_MAX_LANES : max_lanes;
}

static void flush_group(member *ms, int nm, int nvec) {
    if (nm == 1) {
        ms[0].begin = 0;
        check_core(ms[0].e, ms, 1, nvec, NULL);
        return;
    }
    tine_expr_t *parts[BUNDLE_MAX];
    int at = 0;
    for (int k = 0; k < nm; k++) {
        parts[k] = ms[k].e;
        ms[k].begin = at;
        at += ms[k].lanes;
    }
    tine_expr_t *e = tine_concat(g_ctx, nm, parts);
    if (!e) {
        fail("%s: bundling failed: %s", ms[0].label, tine_error(g_ctx));
        tine_clear_error(g_ctx);
        return;
    }
    check_core(e, ms, nm, nvec, NULL);
}

/* Compiles and checks every pending member (grouped by element type, in order). */
static void flush(int nvec) {
    bool *done = calloc((size_t)g_npending + 1, sizeof *done);
    member group[BUNDLE_MAX];
    TINE_ASSERT(done != NULL);
    for (int i = 0; i < g_npending; i++) {
        if (done[i]) continue;
        tine_type_t t = tine_expr_type(g_pending[i].e);
        int n = 0, lanes = 0;
        for (int k = i; k < g_npending && n < g_bundle_max; k++) {
            tine_type_t u = tine_expr_type(g_pending[k].e);
            if (done[k] || u.kind != t.kind || u.bits != t.bits || (n && lanes + u.lanes > g_bundle_lanes)) continue;
            group[n++] = g_pending[k];
            lanes += u.lanes;
            done[k] = true;
        }
        flush_group(group, n, nvec);
    }
    free(done);
    g_npending = 0;
}

/* A member for e; -1 (a failure) if e could not be built or is not compilable. */
static int make_member(const char *label, tine_expr_t *e, int exact, member *m) {
    if (!e) {
        fail("%s: building the expression failed: %s", label, tine_error(g_ctx) ? tine_error(g_ctx) : "?");
        tine_clear_error(g_ctx);
        return -1;
    }
    if (tine_expr_type(e).bits > 64) {
        fail("%s: a %d-bit result cannot be compiled", label, tine_expr_type(e).bits);
        return -1;
    }
    g_exprs++;
    snprintf(m->label, sizeof m->label, "%s", label);
    m->e = e;
    m->exact = exact;
    m->lanes = tine_expr_type(e).lanes;
    m->begin = 0;
    return 0;
}

/* Adds e to the pending members (checked at the next flush). */
static void add(const char *label, tine_expr_t *e, int exact) {
    if (g_npending == g_cappending) {
        g_cappending = g_cappending ? 2 * g_cappending : 256;
        g_pending = realloc(g_pending, sizeof *g_pending * (size_t)g_cappending);
        TINE_ASSERT(g_pending != NULL);
    }
    if (make_member(label, e, exact, &g_pending[g_npending]) == 0) g_npending++;
}

/* One expression compiled on its own, now. */
static void check_expr(const char *label, tine_expr_t *e, int nvec, int exact) {
    member m;
    if (make_member(label, e, exact, &m) == 0) check_core(e, &m, 1, nvec, NULL);
}

static tine_expr_t *var(const char *name, tine_type_t t, int lanes) { return tine_var(g_ctx, name, WL(t, lanes)); }
static tine_expr_t *bin(tine_op_t op, tine_expr_t *a, tine_expr_t *b) { return tine_binary(g_ctx, op, a, b); }
static tine_expr_t *cuint(tine_type_t t, uint64_t v) {
    uint64_t lanes[TINE_MAX_LANES];
    for (int i = 0; i < t.lanes; i++) lanes[i] = t.kind == TINE_INT ? sext(v, t.bits) : v & mask_of(t.bits);
    return tine_const_lanes(g_ctx, t, lanes);
}

/* ---- part 1: primitive ops -------------------------------------------------------------- */

static int is_int(tine_type_t t) { return tine_type_is_int(t); }
static int is_float(tine_type_t t) { return t.kind == TINE_FLOAT; }
static int is_bool(tine_type_t t) { return t.kind == TINE_BOOL; }

/* The elementwise ops at `lanes` lanes (nvec vectors each). */
static void prim_elementwise(int lanes, int nvec) {
    char lb[160], t1[32], t2[32];
    static const tine_op_t arith[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD,
                                      TINE_OP_MIN, TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
    for (size_t o = 0; o < sizeof arith / sizeof *arith; o++) {
        tine_op_t op = arith[o];
        for (int i = 0; i < NELEMS; i++) {
            tine_type_t t = elem(i);
            bool ok = op == TINE_OP_MOD ? is_int(t)
                      : (op == TINE_OP_AND || op == TINE_OP_OR || op == TINE_OP_XOR) ? !is_float(t)
                                                                                      : !is_bool(t);
            if (!ok) continue;
            snprintf(lb, sizeof lb, "%s %sx%d", tine_op_name(op), tn(t, t1), lanes);
            add(lb, bin(op, var("a", t, lanes), var("b", t, lanes)), op == TINE_OP_MIN || op == TINE_OP_MAX);
        }
    }
    for (int i = 0; i < NELEMS; i++) {
        tine_type_t t = elem(i);
        if (!is_bool(t)) {
            snprintf(lb, sizeof lb, "neg %sx%d", tn(t, t1), lanes);
            add(lb, tine_unary(g_ctx, TINE_OP_NEG, var("a", t, lanes)), 1);
        }
        if (!is_float(t)) {
            snprintf(lb, sizeof lb, "not %sx%d", tn(t, t1), lanes);
            add(lb, tine_unary(g_ctx, TINE_OP_NOT, var("a", t, lanes)), 1);
        }
        if (is_float(t)) {
            snprintf(lb, sizeof lb, "sqrt %sx%d", tn(t, t1), lanes);
            add(lb, tine_unary(g_ctx, TINE_OP_SQRT, var("a", t, lanes)), 0);
            snprintf(lb, sizeof lb, "fma %sx%d", tn(t, t1), lanes); /* llvm.fma: one rounding */
            add(lb, tine_fma(g_ctx, var("a", t, lanes), var("b", t, lanes), var("c", t, lanes)), 0);
            snprintf(lb, sizeof lb, "abs %sx%d", tn(t, t1), lanes); /* the sign bit: NaNs kept bit for bit */
            add(lb, tine_abs(g_ctx, var("a", t, lanes)), 1);
        }
    }
    for (int i = 0; i < 8; i++) { /* shifts: both signednesses of the count */
        tine_type_t t = elem(i);
        for (int sg = 0; sg < 2; sg++) {
            tine_type_t ts = ity(t.bits, sg, 1);
            for (int left = 0; left < 2; left++) {
                tine_op_t op = left ? TINE_OP_SHL : TINE_OP_SHR;
                snprintf(lb, sizeof lb, "%s %sx%d by %s", tine_op_name(op), tn(t, t1), lanes, tn(ts, t2));
                add(lb, bin(op, var("a", t, lanes), var("s", ts, lanes)), 1);
            }
        }
    }
    static const tine_op_t cmps[] = {TINE_OP_EQ, TINE_OP_NE, TINE_OP_LT, TINE_OP_LE, TINE_OP_GT, TINE_OP_GE};
    for (int c = 0; c < 6; c++)
        for (int i = 0; i < NELEMS; i++) {
            tine_type_t t = elem(i);
            snprintf(lb, sizeof lb, "%s %sx%d", tine_op_name(cmps[c]), tn(t, t1), lanes);
            /* half the time b = a (equal operands: == and <= must see them) */
            tine_expr_t *a = var("a", t, lanes), *b = var("b", t, lanes);
            tine_expr_t *b2 = tine_select(g_ctx, var("c", tine_type(TINE_BOOL, 1, 1), lanes), a, b);
            add(lb, bin(cmps[c], a, b2), 1);
        }
    for (int i = 0; i < NELEMS; i++) {
        tine_type_t t = elem(i);
        snprintf(lb, sizeof lb, "select %sx%d", tn(t, t1), lanes);
        add(lb, tine_select(g_ctx, var("c", tine_type(TINE_BOOL, 1, 1), lanes), var("a", t, lanes), var("b", t, lanes)),
            1);
    }
    for (int i = 0; i < NELEMS; i++)
        for (int k = 0; k < NELEMS; k++) {
            tine_type_t from = elem(i), to = elem(k);
            snprintf(lb, sizeof lb, "cast %s -> %s x%d", tn(from, t1), tn(to, t2), lanes);
            add(lb, tine_cast(g_ctx, to, var("a", from, lanes)), !is_float(from) || !is_float(to));
        }
    flush(nvec);
}

static void prim_other(int nvec) {
    char lb[160], t1[32], t2[32];
    const int L = 16;
    for (int i = 0; i < NELEMS; i++) /* reinterpret: every non-bool pair of one width */
        for (int k = 0; k < NELEMS; k++) {
            tine_type_t from = elem(i), to = elem(k);
            if (is_bool(from) || is_bool(to) || from.bits != to.bits) continue;
            snprintf(lb, sizeof lb, "reinterpret %s -> %s x%d", tn(from, t1), tn(to, t2), L);
            add(lb, tine_reinterpret(g_ctx, to, var("a", from, L)), 1);
        }
    for (int i = 0; i < NELEMS; i++) {
        tine_type_t t = elem(i);
        tn(t, t1);
        snprintf(lb, sizeof lb, "broadcast %s to %d", t1, L);
        add(lb, tine_broadcast(g_ctx, var("a", t, 1), L), 1);
        if (is_int(t)) {
            snprintf(lb, sizeof lb, "ramp %s x%d", t1, L);
            add(lb, tine_ramp(g_ctx, var("a", t, 1), var("b", t, 1), L), 1);
            snprintf(lb, sizeof lb, "ramp %s x7 by a constant", t1);
            add(lb, tine_ramp(g_ctx, var("a", t, 1), cuint(t, 3), 7), 1);
        }
        tine_expr_t *parts[3] = {var("a", t, 16), var("b", t, 7), var("c", t, 1)};
        snprintf(lb, sizeof lb, "concat %s x16 x7 x1", t1);
        add(lb, tine_concat(g_ctx, 3, parts), 1);
        snprintf(lb, sizeof lb, "slice(%s x16, 3, 2, 6)", t1);
        add(lb, tine_slice(g_ctx, var("a", t, 16), 3, 2, 6), 1);
        snprintf(lb, sizeof lb, "slice(%s x16, 1, 1, 15)", t1);
        add(lb, tine_slice(g_ctx, var("a", t, 16), 1, 1, 15), 1);
        tine_expr_t *il[3] = {var("a", t, 8), var("b", t, 8), var("c", t, 8)};
        snprintf(lb, sizeof lb, "interleave 3 x %s x8", t1);
        add(lb, tine_interleave(g_ctx, 3, il), 1);
        snprintf(lb, sizeof lb, "interleave 2 x %s x8", t1);
        add(lb, tine_interleave(g_ctx, 2, il), 1);
        snprintf(lb, sizeof lb, "deinterleave(%s x24, 3, 1)", t1);
        add(lb, tine_deinterleave(g_ctx, var("a", t, 24), 3, 1), 1);
        snprintf(lb, sizeof lb, "deinterleave(%s x32, 2, 0)", t1);
        add(lb, tine_deinterleave(g_ctx, var("a", t, 32), 2, 0), 1);
        if (!is_bool(t)) {
            snprintf(lb, sizeof lb, "vector_reduce_add(%s x32, 8)", t1);
            add(lb, tine_vector_reduce_add(g_ctx, var("a", t, 32), 8), 0);
            snprintf(lb, sizeof lb, "vector_reduce_add(%s x16, 1)", t1);
            add(lb, tine_vector_reduce_add(g_ctx, var("a", t, 16), 1), 0);
        }
        /* per-lane constants, alone and as an operand */
        uint64_t lanes[TINE_MAX_LANES];
        for (int l = 0; l < L; l++) {
            uint64_t v = gen_value(t, 0);
            if (is_float(t) && l < 6) { /* sNaN and qNaN with payloads and signs, -0, a denormal */
                uint64_t sgn = (uint64_t)1 << (t.bits - 1), inf = t.bits == 32 ? 0x7f800000 : 0x7ff0000000000000;
                uint64_t q = t.bits == 32 ? 0x400000 : 0x8000000000000;
                const uint64_t special[6] = {inf | 5, sgn | inf | (q >> 3), inf | q | 9, sgn | inf | q, sgn, 3};
                v = special[l];
            }
            lanes[l] = t.kind == TINE_INT ? sext(v, t.bits) : v;
        }
        tine_expr_t *k = tine_const_lanes(g_ctx, WL(t, L), lanes);
        snprintf(lb, sizeof lb, "per-lane constant %s x%d", t1, L);
        check_expr(lb, k, 4, 1); /* a function without arguments */
        snprintf(lb, sizeof lb, "a %s per-lane constant %s x%d", is_bool(t) ? "^" : "+", t1, L);
        add(lb, bin(is_bool(t) ? TINE_OP_XOR : TINE_OP_ADD, var("a", t, L), k), 0);
        /* loads (gathers) from bound buffers */
        if (!is_bool(t)) {
            tine_type_t i32 = tine_type(TINE_INT, 32, 1);
            tine_expr_t *m = cuint(WL(i32, L), 1023);
            tine_expr_t *iramp = bin(TINE_OP_AND, tine_ramp(g_ctx, var("x", i32, 1), cuint(i32, 3), L), m);
            tine_expr_t *igather = bin(TINE_OP_AND, var("i", i32, L), m);
            snprintf(lb, sizeof lb, "in_%s[ramp(x_i32, 3, %d) & 1023]", t1, L);
            add(lb, tine_load(g_ctx, "in", t, iramp), 1);
            tine_expr_t *two[2] = {tine_load(g_ctx, "in", t, igather), tine_load(g_ctx, "in", t, iramp)};
            snprintf(lb, sizeof lb, "concat(in_%s[i_i32 & 1023], in_%s[ramp & 1023])", t1, t1);
            add(lb, tine_concat(g_ctx, 2, two), 1);
            tine_expr_t *tw[2] = {tine_load(g_ctx, "tab", t, igather), tine_load(g_ctx, "in", t, iramp)};
            snprintf(lb, sizeof lb, "interleave(tab_%s[i_i32 & 1023], in_%s[ramp & 1023])", t1, t1);
            add(lb, tine_interleave(g_ctx, 2, tw), 1);
        }
    }
    flush(nvec);
}

/* Reinterprets to lanes of other bits (tine_bitcast, repacked little-endian): every pair of
 * non-bool types of other bits at 64, 128 and 256 bits, then inside larger expressions,
 * where the lifter finds FPIR around them (a rounding average of a repacked operand) and
 * inside them. */
static void prim_repack(int nvec) {
    char lb[160], t1[32], t2[32];
    static const int totals[3] = {64, 128, 256};
    for (int w = 0; w < 3; w++)
        for (int i = 0; i < NELEMS; i++)
            for (int k = 0; k < NELEMS; k++) {
                tine_type_t from = elem(i), to = elem(k);
                if (is_bool(from) || is_bool(to) || from.bits == to.bits) continue;
                int lf = totals[w] / from.bits, lt = totals[w] / to.bits;
                snprintf(lb, sizeof lb, "reinterpret %sx%d -> %sx%d", tn(from, t1), lf, tn(to, t2), lt);
                add(lb, tine_bitcast(g_ctx, WL(to, lt), var("a", from, lf)), 1);
            }
    static const char *const larger[] = {
        "(reinterpret<u16x8>(a_u8) >> 3) + b_u16x8",
        "reinterpret<u8x16>(a_u16x8 * b_u16x8) + c_u8",
        "reinterpret<i32x4>(a_i8) - reinterpret<i32x4>(b_u16x8 >> 1)",
        "u8((u16(reinterpret<u8x16>(a_u16x8)) + u16(b_u8) + 1) >> 1)",
        "reinterpret<u16x8>(u8((u16(a_u8) + u16(b_u8) + 1) >> 1)) + reinterpret<u16x8>(saturating_add(a_u8, c_u8))",
        "reinterpret<u64x2>(reinterpret<u32x4>(a_u8) + 1) ^ reinterpret<u64x2>(b_u16x8)",
        "select(reinterpret<i16x8>(a_u8) < 0, reinterpret<i16x8>(b_u8), c_i16x8)",
        "reinterpret<u8x32>(widening_mul(a_u8, b_u8)) + c_u8x32",
        "reinterpret<f32x4>(reinterpret<u16x8>(a_u8) & 32767)",
    };
    tine_set_lanes(g_ctx, 16);
    for (size_t i = 0; i < sizeof larger / sizeof *larger; i++) {
        tine_expr_t *e = tine_parse(g_ctx, larger[i], "test");
        if (!e) {
            fail("%s does not parse: %s", larger[i], tine_error(g_ctx));
            continue;
        }
        add(larger[i], e, 1); /* integer arithmetic, or bits only moved (the f32x4): exact */
    }
    flush(nvec);
}

/* ---- part 2: FPIR ops ------------------------------------------------------------------ */

/* A 128-bit value as its halves: concat(T64(r), T64(r >> 64)) holds every bit of r. */
static tine_expr_t *halves(tine_expr_t *r) {
    if (!r) return NULL;
    tine_type_t wt = tine_expr_type(r), h = tine_type((tine_kind_t)wt.kind, 64, 1);
    tine_expr_t *lo = tine_cast(g_ctx, h, r);
    tine_expr_t *hi = tine_cast(g_ctx, h, bin(TINE_OP_SHR, r, cuint(wt, 64)));
    tine_expr_t *p[2] = {lo, hi};
    return tine_concat(g_ctx, 2, p);
}

static long long g_fpir_combos;

static void fpir_case(int L, tine_op_t op, int n, const tine_type_t *ts, tine_type_t tparam) {
    tine_fpir_sig sig = tine_fpir_table[op - TINE_FPIR_FIRST].sig;
    char lb[160];
    g_fpir_combos += L == 16;
    tine_expr_t *args[3];
    for (int i = 0; i < n; i++) {
        /* counts and shifts are named s... (shift-count values) */
        const char *name = i == 0 ? "x" : (i == 2 || sig == TINE_SIG_SHIFT || sig == TINE_SIG_SHIFT_WIDE) ? "s" : "y";
        args[i] = var(name, ts[i], L);
    }
    tine_expr_t *e = tine_fpir(g_ctx, op, n, args, tparam);
    int wide = e && tine_expr_type(e).bits > 64;
    if (wide) e = halves(e);
    fpir_typing_label(lb, sizeof lb, op, n, ts, tparam, L, wide);
    add(lb, e, 0);
}

/* One typing at `L` lanes: built, or, for rounding_mul_shr on 64 bits (its definition
 * cannot compute it), checked to be refused (once, at 16 lanes). */
static void fpir_typing(void *user, tine_op_t op, int n, const tine_type_t *ts, tine_type_t tparam) {
    int L = *(const int *)user;
    if (op != TINE_OP_ROUNDING_MUL_SHR || ts[0].bits < 64) {
        fpir_case(L, op, n, ts, tparam);
    } else if (L == 16) { /* not defined on 64 bits: refused */
        tine_expr_t *a[3] = {var("x", ts[0], L), var("y", ts[0], L), var("s", ts[2], L)};
        tine_expr_t *e = tine_fpir(g_ctx, TINE_OP_ROUNDING_MUL_SHR, 3, a, tparam);
        CHECK(!e && tine_error(g_ctx), "rounding_mul_shr on %s is not refused", ts[0].kind == TINE_INT ? "i64" : "u64");
        tine_clear_error(g_ctx);
    }
}

/* Every op and type combination at `L` lanes with operands of bits_lo..bits_hi bits. */
static void fpir_some(int L, int bits_lo, int bits_hi) { fpir_typings(bits_lo, bits_hi, fpir_typing, &L); }

/* Every op and type combination at `L` lanes: about 1000 lanes per member and selection at
 * every width. Bundles as measured best (see "bundles"): compile time grows faster than
 * linearly in a function's size, so at 64 lanes 64-bit members (their definitions work on
 * 128-bit lanes, which LLVM scalarizes) are compiled alone and the others in pairs. */
static void fpir_all(int L) {
    int nvec = L == 1 ? 256 : L == 7 ? 128 : L == 16 ? 64 : 16;
    fpir_some(L, 8, 32);
    set_bundle(L == 1 ? 16 : L == 7 ? 16 : L == 16 ? 8 : 2, TINE_MAX_LANES);
    flush(nvec);
    fpir_some(L, 64, 64);
    set_bundle(L == 1 ? 16 : L == 7 ? 4 : L == 16 ? 2 : 1, TINE_MAX_LANES);
    flush(nvec);
    set_bundle(BUNDLE_MAX, TINE_MAX_LANES);
}

/* ---- part 3: random expressions --------------------------------------------------------- */

static long long g_rand_fpir, g_rand_shapes, g_rand_loads, g_rand_lifted;

static tine_type_t rand_itype(int lanes) { return ity(8 << rnd(4), (int)rnd(2), lanes); }

static tine_expr_t *rleaf(tine_type_t t) {
    uint64_t r = rnd(24);
    if (r < 5) return cuint(t, gen_int(t));
    if (r == 5) {
        uint64_t lanes[TINE_MAX_LANES];
        for (int i = 0; i < t.lanes; i++) lanes[i] = t.kind == TINE_INT ? sext(gen_int(t), t.bits) : gen_int(t);
        return tine_const_lanes(g_ctx, t, lanes);
    }
    if (r == 6 && t.lanes > 1) return tine_broadcast(g_ctx, var("p", t, 1), t.lanes);
    char name[2] = {(char)('a' + rnd(4)), 0};
    return tine_var(g_ctx, name, t);
}

static tine_expr_t *rexpr(tine_type_t t, int d);

/* A shift count for a value of `bits` bits: a constant, a count variable, or an expression. */
static tine_expr_t *ramount(int bits, int sgn, int lanes, int d) {
    tine_type_t at = ity(bits, sgn, lanes);
    uint64_t r = rnd(10);
    if (r < 5 || d <= 0) return r < 8 ? cuint(at, gen_shift(at)) : var("s", at, lanes);
    if (r < 8) return var("s", at, lanes);
    return rexpr(at, d);
}

static tine_op_t rand_cmp(void) {
    static const tine_op_t c[] = {TINE_OP_EQ, TINE_OP_NE, TINE_OP_LT, TINE_OP_LE, TINE_OP_GT, TINE_OP_GE};
    return c[rnd(6)];
}

static tine_expr_t *rcond(int lanes, int d) {
    if (d < 2) return var("c", tine_type(TINE_BOOL, 1, 1), lanes);
    tine_type_t u = rand_itype(lanes);
    return bin(rand_cmp(), rexpr(u, d - 2), rexpr(u, d - 2));
}

static tine_expr_t *fp(tine_op_t op, int n, tine_expr_t *a, tine_expr_t *b, tine_expr_t *c, tine_type_t tp) {
    tine_expr_t *args[3] = {a, b, c};
    g_rand_fpir++;
    return tine_fpir(g_ctx, op, n, args, tp);
}

/* An FPIR op with result type t; NULL if the chosen op has no form with that result. */
static tine_expr_t *rfpir(tine_type_t t, int d) {
    int b = t.bits, sg = t.kind == TINE_INT, L = t.lanes;
    tine_type_t none = {0, 0, 0}, nt = b > 8 ? ity(b / 2, sg, L) : none;
    switch (rnd(17)) {
    case 0: /* widening_add / widening_shl / widening_shr */
        if (b == 8) return NULL;
        switch (rnd(3)) {
        case 0: return fp(TINE_OP_WIDENING_ADD, 2, rexpr(nt, d - 1), rexpr(nt, d - 1), NULL, none);
        case 1: return fp(TINE_OP_WIDENING_SHL, 2, rexpr(nt, d - 1), ramount(b / 2, (int)rnd(2), L, d - 1), NULL, none);
        default: return fp(TINE_OP_WIDENING_SHR, 2, rexpr(nt, d - 1), ramount(b / 2, (int)rnd(2), L, d - 1), NULL, none);
        }
    case 1: { /* widening_sub / widening_mul */
        if (b == 8) return NULL;
        if (sg && rnd(2)) {
            tine_type_t o = ity(b / 2, (int)rnd(2), L);
            return fp(TINE_OP_WIDENING_SUB, 2, rexpr(o, d - 1), rexpr(o, d - 1), NULL, none);
        }
        int sx = sg ? (int)rnd(2) : 0, sy = sg ? (sx ? (int)rnd(2) : 1) : 0;
        return fp(TINE_OP_WIDENING_MUL, 2, rexpr(ity(b / 2, sx, L), d - 1), rexpr(ity(b / 2, sy, L), d - 1), NULL, none);
    }
    case 2: { /* extending_add/sub/mul */
        if (b == 8) return NULL;
        static const tine_op_t ops[] = {TINE_OP_EXTENDING_ADD, TINE_OP_EXTENDING_SUB, TINE_OP_EXTENDING_MUL};
        return fp(ops[rnd(3)], 2, rexpr(t, d - 1), rexpr(ity(b / 2, (int)rnd(2), L), d - 1), NULL, none);
    }
    case 3: { /* abs / absd */
        if (sg) return NULL;
        tine_type_t o = ity(b, (int)rnd(2), L);
        if (rnd(2)) return fp(TINE_OP_ABS, 1, rexpr(o, d - 1), NULL, NULL, none);
        return fp(TINE_OP_ABSD, 2, rexpr(o, d - 1), rexpr(o, d - 1), NULL, none);
    }
    case 4: return fp(TINE_OP_SATURATING_CAST, 1, rexpr(rand_itype(L), d - 1), NULL, NULL, t);
    case 5:
        if (b == 64) return NULL;
        return fp(TINE_OP_SATURATING_NARROW, 1, rexpr(ity(b * 2, sg, L), d - 1), NULL, NULL, none);
    case 6: case 7: case 8: {
        static const tine_op_t ops[] = {TINE_OP_SATURATING_ADD, TINE_OP_SATURATING_SUB, TINE_OP_HALVING_ADD,
                                        TINE_OP_HALVING_SUB, TINE_OP_ROUNDING_HALVING_ADD};
        return fp(ops[rnd(5)], 2, rexpr(t, d - 1), rexpr(t, d - 1), NULL, none);
    }
    case 9: case 10: {
        static const tine_op_t ops[] = {TINE_OP_ROUNDING_SHR, TINE_OP_ROUNDING_SHL, TINE_OP_SATURATING_SHL};
        return fp(ops[rnd(3)], 2, rexpr(t, d - 1), ramount(b, (int)rnd(2), L, d - 1), NULL, none);
    }
    case 11: case 12:
        if (b == 64 && rnd(2)) return NULL;
        return fp(b == 64 || rnd(2) ? TINE_OP_MUL_SHR : TINE_OP_ROUNDING_MUL_SHR, 3, rexpr(t, d - 1), rexpr(t, d - 1),
                  ramount(b, 0, L, d - 1), none);
    default: { /* a 64-bit widening op (128-bit result), cast back, possibly its high half */
        if (d < 2) return NULL;
        int hi = d >= 3 && rnd(2);
        int dd = d - 2 - hi;
        tine_type_t o = ity(64, (int)rnd(2), L);
        tine_expr_t *w;
        switch (rnd(5)) {
        case 0: w = fp(TINE_OP_WIDENING_ADD, 2, rexpr(o, dd), rexpr(o, dd), NULL, none); break;
        case 1: w = fp(TINE_OP_WIDENING_SUB, 2, rexpr(o, dd), rexpr(o, dd), NULL, none); break;
        case 2: w = fp(TINE_OP_WIDENING_MUL, 2, rexpr(o, dd), rexpr(ity(64, (int)rnd(2), L), dd), NULL, none); break;
        case 3: w = fp(TINE_OP_WIDENING_SHL, 2, rexpr(o, dd), ramount(64, (int)rnd(2), L, dd), NULL, none); break;
        default: w = fp(TINE_OP_WIDENING_SHR, 2, rexpr(o, dd), ramount(64, (int)rnd(2), L, dd), NULL, none); break;
        }
        if (w && hi) w = bin(TINE_OP_SHR, w, cuint(tine_expr_type(w), 64));
        return tine_cast(g_ctx, t, w);
    }
    }
}

/* Shapes the lifter rewrites into FPIR ops. */
static tine_expr_t *rshape(tine_type_t t, int d) {
    int b = t.bits, sg = t.kind == TINE_INT, L = t.lanes;
    g_rand_shapes++;
    switch (rnd(6)) {
    case 0: { /* halving add at twice the width: height 4 */
        if (b == 64 || d < 4) break;
        tine_type_t w = ity(b * 2, sg, L);
        tine_expr_t *s = bin(TINE_OP_ADD, tine_cast(g_ctx, w, rleaf(t)), tine_cast(g_ctx, w, rleaf(t)));
        return tine_cast(g_ctx, t, bin(TINE_OP_SHR, s, cuint(w, 1)));
    }
    case 1: { /* unsigned saturating add: height 4 */
        if (b == 64 || sg || d < 4) break;
        tine_type_t w = ity(b * 2, 0, L);
        tine_expr_t *s = bin(TINE_OP_ADD, tine_cast(g_ctx, w, rleaf(t)), tine_cast(g_ctx, w, rleaf(t)));
        return tine_cast(g_ctx, t, bin(TINE_OP_MIN, s, cuint(w, mask_of(b))));
    }
    case 2: { /* absd-like */
        if (d < 2) break;
        tine_expr_t *x = rexpr(t, d - 2), *y = rexpr(t, d - 2);
        return bin(TINE_OP_SUB, bin(TINE_OP_MAX, x, y), bin(TINE_OP_MIN, x, y));
    }
    case 3: { /* saturating subtract, unsigned */
        if (d < 2) break;
        tine_expr_t *x = rexpr(t, d - 2), *y = rexpr(t, d - 2);
        return tine_select(g_ctx, bin(TINE_OP_GT, x, y), bin(TINE_OP_SUB, x, y), cuint(t, 0));
    }
    case 4: { /* abs */
        if (d < 2 || !sg) break;
        tine_expr_t *x = rexpr(t, d - 2);
        return tine_select(g_ctx, bin(TINE_OP_GT, x, cuint(t, 0)), x, tine_unary(g_ctx, TINE_OP_NEG, x));
    }
    default: { /* a widening multiply */
        if (d < 2 || b == 8) break;
        tine_expr_t *x = tine_cast(g_ctx, t, rexpr(ity(b / 2, (int)rnd(2), L), d - 2));
        tine_expr_t *y = tine_cast(g_ctx, t, rexpr(ity(b / 2, (int)rnd(2), L), d - 2));
        return bin(TINE_OP_MUL, x, y);
    }
    }
    g_rand_shapes--;
    return NULL;
}

/* A random expression of type t and height at most d. */
static tine_expr_t *rexpr(tine_type_t t, int d) {
    if (d <= 0 || rnd(100) < 20) return rleaf(t);
    int b = t.bits, sg = t.kind == TINE_INT, L = t.lanes;
    tine_expr_t *e = NULL;
    switch (rnd(24)) {
    case 0: case 1: case 2: case 3: case 4: case 5: {
        static const tine_op_t ops[] = {TINE_OP_ADD, TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD,
                                        TINE_OP_MIN, TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR, TINE_OP_XOR};
        return bin(ops[rnd(sizeof ops / sizeof *ops)], rexpr(t, d - 1), rexpr(t, d - 1));
    }
    case 6: case 7:
        return bin(rnd(2) ? TINE_OP_SHL : TINE_OP_SHR, rexpr(t, d - 1), ramount(b, (int)rnd(2), L, d - 1));
    case 8: return tine_unary(g_ctx, rnd(2) ? TINE_OP_NEG : TINE_OP_NOT, rexpr(t, d - 1));
    case 9: case 10: return tine_select(g_ctx, rcond(L, d), rexpr(t, d - 1), rexpr(t, d - 1));
    case 11: case 12: return tine_cast(g_ctx, t, rexpr(rand_itype(L), d - 1));
    case 13: return tine_reinterpret(g_ctx, t, rexpr(ity(b, !sg, L), d - 1));
    case 14: return tine_cast(g_ctx, t, rcond(L, d - 1));
    case 15: { /* a gather: m<type>[index & 1023] */
        if (d < 2) break;
        g_rand_loads++;
        char name[16], tb[32];
        snprintf(name, sizeof name, "m%s", tn(t, tb));
        tine_type_t i32 = tine_type(TINE_INT, 32, L);
        return tine_load(g_ctx, name, t, bin(TINE_OP_AND, rexpr(i32, d - 2), cuint(i32, 1023)));
    }
    case 16: case 17: e = rshape(t, d); break;
    default: e = rfpir(t, d); break;
    }
    if (e) return e;
    return bin(rnd(2) ? TINE_OP_ADD : TINE_OP_XOR, rexpr(t, d - 1), rexpr(t, d - 1));
}

/* Height counting ops; a broadcast of a variable is a leaf. */
static int height(const tine_expr_t *e) {
    int n = tine_expr_nops(e);
    if (n == 0 || (tine_expr_op(e) == TINE_OP_BROADCAST && tine_expr_op(tine_expr_operand(e, 0)) == TINE_OP_VAR))
        return 0;
    int h = 0;
    for (int i = 0; i < n; i++) {
        int k = height(tine_expr_operand(e, i));
        if (k > h) h = k;
    }
    return h + 1;
}

static int has_fpir(const tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(g_ctx, e, &n);
    int f = 0;
    for (uint32_t k = 0; k < n; k++) f |= tine_op_is_fpir(tine_expr_op(order[k]));
    free(order);
    return f;
}

static void part_random(long long count) {
    static const int lanes_pick[] = {16, 16, 16, 8, 8, 7, 1, 1};
    long long with_fpir = 0, since_reset = 0;
    for (long long i = 0; i < count;) {
        if (since_reset >= 250) { /* bound the context's memory */
            tine_ctx_free(g_ctx);
            g_ctx = tine_ctx_new();
            since_reset = 0;
        }
        /* one bundle: expressions of one type at one width */
        int L = lanes_pick[rnd(sizeof lanes_pick / sizeof *lanes_pick)];
        tine_type_t t = rand_itype(L);
        long long k = RANDOM_BUNDLE_LANES / L < 1 ? 1 : RANDOM_BUNDLE_LANES / L;
        if (k > RANDOM_BUNDLE) k = RANDOM_BUNDLE;
        if (k > count - i) k = count - i;
        for (long long m = 0; m < k; m++, i++, since_reset++) {
            tine_expr_t *e = NULL;
            for (int tries = 0; tries < 20 && !e; tries++) {
                e = rexpr(t, MAX_HEIGHT);
                if (!e) {
                    fail("random #%lld: the generator built an ill-typed expression: %s", i, tine_error(g_ctx));
                    tine_clear_error(g_ctx);
                } else if (tine_expr_nops(e) == 0) {
                    e = NULL; /* a bare leaf: draw again */
                }
            }
            if (!e) continue;
            CHECK(height(e) <= MAX_HEIGHT, "random #%lld has height %d: %s", i, height(e), P(e));
            with_fpir += has_fpir(e);
            tine_expr_t *lifted = tine_lift(g_ctx, e);
            g_rand_lifted += lifted != e && lifted && has_fpir(lifted);
            char lb[64];
            snprintf(lb, sizeof lb, "random #%lld (x%d)", i, L);
            add(lb, e, 0);
        }
        set_bundle(RANDOM_BUNDLE, RANDOM_BUNDLE_LANES);
        flush(RANDOM_VECTORS);
        set_bundle(BUNDLE_MAX, TINE_MAX_LANES);
    }
    printf("  random: %lld expressions (%lld with an FPIR op as written, %lld FPIR nodes built; %lld lifted to a form "
           "with FPIR ops; %lld lifter shapes, %lld gathers)\n",
           count, with_fpir, g_rand_fpir, g_rand_lifted, g_rand_shapes, g_rand_loads);
}

/* ---- part 4: emitted text, errors, fixed targets ---------------------------------------- */

/* Whether some line of text holds both a and b. */
static int line_with(const char *text, const char *a, const char *b) {
    for (const char *p = text; p && *p;) {
        const char *end = strchr(p, '\n');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        char line[512];
        size_t m = n < sizeof line - 1 ? n : sizeof line - 1;
        memcpy(line, p, m);
        line[m] = 0;
        if (strstr(line, a) && (!b || strstr(line, b))) return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

static void part_emit(void) {
    static const char *const targets[] = {"host", "x86-64-sse2", "x86-64-sse41", "x86-64-avx2", "x86-64-avx512"};
    const char *avg = "u8((u16(a_u8) + u16(b_u8) + 1) >> 1)";
    for (int s = 0; s < 2; s++) {
        tine_selection_t sel = s ? TINE_SELECT_TINE : TINE_SELECT_LLVM;
        for (int k = 0; k < 2; k++) {
            int lanes = k ? 16 : 32;
            const char *target = k ? "x86-64-sse2" : "x86-64-avx2";
            tine_set_lanes(g_ctx, lanes);
            tine_expr_t *e = tine_parse(g_ctx, avg, "test");
            if (e && sel == TINE_SELECT_TINE) e = tine_lift(g_ctx, e);
            char *asmt = tine_emit_expr(g_ctx, e, target, sel, TINE_EMIT_ASM);
            if (!asmt) {
                fail("emit %s x%d on %s [%s] failed: %s", avg, lanes, target, sel_name(sel), tine_error(g_ctx));
                tine_clear_error(g_ctx);
                continue;
            }
            if (k) CHECK(line_with(asmt, "pavgb", "%xmm") && !strstr(asmt, "vpavgb") && !strstr(asmt, "%ymm"),
                         "%s x16 on x86-64-sse2 [%s]: no `pavgb ... %%xmm` (or AVX code):\n%s", avg, sel_name(sel), asmt);
            else CHECK(line_with(asmt, "vpavgb", "%ymm"), "%s x32 on x86-64-avx2 [%s]: no `vpavgb ... %%ymm`:\n%s", avg,
                       sel_name(sel), asmt);
            free(asmt);
            char *ll = tine_emit_expr(g_ctx, e, target, sel, TINE_EMIT_LLVM);
            CHECK(ll && strstr(ll, "define void @tine_expr"), "emit LLVM of %s [%s]: no `define void @tine_expr`: %s",
                  avg, sel_name(sel), ll ? ll : tine_error(g_ctx));
            free(ll);
        }
    }
    tine_set_lanes(g_ctx, 16);
    /* every known target emits; an unknown one is refused with the list of known ones */
    tine_expr_t *e = tine_parse(g_ctx, "saturating_add(a_i16, b_i16) * (c_i16 >> 3)", "test");
    for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
        char *t = tine_emit_expr(g_ctx, e, targets[i], TINE_SELECT_TINE, TINE_EMIT_ASM);
        CHECK(t && strstr(t, "tine_expr"), "emit asm on %s failed: %s", targets[i], t ? t : tine_error(g_ctx));
        free(t);
        tine_clear_error(g_ctx);
    }
    /* Regression, on every target whatever the host: single-lane signed 64-bit shifts whose
       definitions shift 128-bit lanes arithmetically once aborted LLVM 19's AVX2+ backend
       ("Do not know how to scalarize the result of this operator", ashr <1 x i128> by
       umin(s, 127)); an abort ends this test. */
    static const char *const v1i128[] = {"saturating_shl(a_i64, b_i64)", "rounding_shr(a_i64, b_i64)",
                                         "rounding_shl(a_i64, b_i64)"};
    tine_set_lanes(g_ctx, 1);
    for (size_t k = 0; k < sizeof v1i128 / sizeof *v1i128; k++)
        for (size_t i = 0; i < sizeof targets / sizeof *targets; i++)
            for (int s = 0; s < 2; s++) {
                tine_selection_t sel = s ? TINE_SELECT_TINE : TINE_SELECT_LLVM;
                char *t = tine_emit_expr(g_ctx, tine_parse(g_ctx, v1i128[k], "test"), targets[i], sel, TINE_EMIT_ASM);
                CHECK(t != NULL, "emit asm of %s x1 on %s [%s] failed: %s", v1i128[k], targets[i], sel_name(sel),
                      tine_error(g_ctx));
                free(t);
                tine_clear_error(g_ctx);
            }
    /* Pinned, on the host: single-lane compares of a 128-bit value whose high half is known
       to be 0 or 1 (a 64-bit widening add) against 2^64, feeding a select. LLVM 19 compiles
       `select(icmp ult <1 x i128> s, 2^64, ...)` for AVX-512 targets as if the high half
       were compared with 2 (`cmpq $2; setge`), so a sum that carries gives 0 instead of
       16384. Part 3 found the second form (in a bundle; the first is its reduction). */
    static const char *const pinned[] = {
        "select(widening_add(a_u64, b_u64) < 18446744073709551616, u64(0), u64(16384))",
        "concat(saturating_shl(d_u64, 6), 16384 / u64(widening_add(d_u64, c_u64) >> 64))"};
    /* The first is worked around by the emitter (128-bit ordered compares are emitted on
       64-bit halves) and must pass. The second reaches the same miscompile through LLVM's
       own optimizer (u64(s >> 64) / ... becomes an i128 compare), which the emitter cannot
       prevent: on an AVX-512 host it is a known LLVM 19 bug, reported here and not counted
       as a tine failure; if it ever passes, the test says so, so the note can go. */
    for (size_t k = 0; k < sizeof pinned / sizeof *pinned; k++) {
        char lb[200];
        snprintf(lb, sizeof lb, "pinned (LLVM 19 AVX-512 v1i128 compare) %s x1", pinned[k]);
        long long f0 = g_fail;
        check_expr(lb, tine_parse(g_ctx, pinned[k], "test"), 64, 0);
        if (k == 1 && __builtin_cpu_supports("avx512f")) {
            long long known = g_fail - f0;
            g_fail = f0;
            printf("known LLVM 19 miscompile (AVX-512, 1-lane i128 compare): %s on this host (%lld wrong lanes, "
                   "not counted)\n", known ? "reproduced" : "NO LONGER REPRODUCES", known);
        }
    }
    tine_set_lanes(g_ctx, 16);
    for (int jit = 0; jit < 2; jit++) {
        tine_clear_error(g_ctx);
        tine_jit_t *j = NULL;
        char *text = NULL;
        if (jit) j = tine_jit_expr(g_ctx, e, "x86-64-nope", TINE_SELECT_LLVM);
        else text = tine_emit_expr(g_ctx, e, "x86-64-nope", TINE_SELECT_LLVM, TINE_EMIT_ASM);
        const char *err = tine_error(g_ctx);
        int listed = err && strstr(err, "x86-64-nope");
        for (size_t i = 0; i < sizeof targets / sizeof *targets && listed; i++) listed = strstr(err, targets[i]) != NULL;
        CHECK(!j && !text && listed,
              "%s with an unknown target: %s, error \"%s\" (must name the target and list host, x86-64-sse2, "
              "x86-64-sse41, x86-64-avx2, x86-64-avx512)",
              jit ? "tine_jit_expr" : "tine_emit_expr", j || text ? "not NULL" : "NULL", err ? err : "(none)");
        tine_jit_free(j);
        free(text);
        tine_clear_error(g_ctx);
    }
    /* 128-bit results and inputs: refused with an error */
    tine_expr_t *w = tine_parse(g_ctx, "widening_mul(a_u64, b_u64)", "test");
    tine_expr_t *w2 = tine_cast(g_ctx, tine_type(TINE_UINT, 64, 1), var("q", tine_type(TINE_UINT, 128, 1), 16));
    tine_expr_t *cases[2] = {w, w2};
    for (int c = 0; c < 2; c++)
        for (int s = 0; s < 2; s++) {
            tine_selection_t sel = s ? TINE_SELECT_TINE : TINE_SELECT_LLVM;
            tine_clear_error(g_ctx);
            char *t = tine_emit_expr(g_ctx, cases[c], "host", sel, TINE_EMIT_ASM);
            CHECK(!t && tine_error(g_ctx) && strstr(tine_error(g_ctx), "64-bit"),
                  "emit of %s [%s]: a 128-bit %s must be refused with an error, got %s / %s", P(cases[c]),
                  sel_name(sel), c ? "input" : "result", t ? "text" : "NULL",
                  tine_error(g_ctx) ? tine_error(g_ctx) : "no error");
            free(t);
            tine_clear_error(g_ctx);
            tine_jit_t *j = tine_jit_expr(g_ctx, cases[c], "host", sel);
            CHECK(!j && tine_error(g_ctx) && strstr(tine_error(g_ctx), "64-bit"),
                  "jit of %s [%s]: a 128-bit %s must be refused with an error, got %s / %s", P(cases[c]),
                  sel_name(sel), c ? "input" : "result", j ? "a function" : "NULL",
                  tine_error(g_ctx) ? tine_error(g_ctx) : "no error");
            tine_jit_free(j);
            tine_clear_error(g_ctx);
        }
    CHECK(tine_emit_expr(g_ctx, NULL, "host", TINE_SELECT_LLVM, TINE_EMIT_ASM) == NULL &&
              tine_jit_expr(g_ctx, NULL, "host", TINE_SELECT_LLVM) == NULL,
          "a NULL expression must give NULL");

    /* the fixed targets this CPU can run: compiled and run like part 1 */
    const int supported[] = {1, __builtin_cpu_supports("x86-64-v2"),
                             __builtin_cpu_supports("x86-64-v3"),
                             __builtin_cpu_supports("x86-64-v4") && __builtin_cpu_supports("avx512vnni")};
    const char *exprs[] = {avg,
                           "saturating_sub(a_i8, b_i8) + rounding_shr(c_i8, s_u8)",
                           "i16(a_i32 / b_i32) + i16(a_i32 % b_i32) - (c_i16 << s_i16)",
                           "select(a_u64 < b_u64, widening_mul(c_u32, d_u32), u64(abs(e_i64)))",
                           "mul_shr(a_u32, b_u32, s_u32) ^ u32(rounding_mul_shr(c_i32, d_i32, s_u32))",
                           "f32(a_i64) + sqrt(b_f32) * min(c_f32, d_f32) - f32(e_f64)",
                           "i32(a_f64) + i32(b_f32) + i32(min(a_f64, f64(c_i32)) / 2.0)",
                           "select(widening_add(a_u64, b_u64) < 18446744073709551616, u64(0), u64(16384))"};
    for (size_t t = 1; t < sizeof targets / sizeof *targets; t++) {
        if (!supported[t - 1]) {
            printf("  (target %s: this CPU cannot run its code; not JIT'd)\n", targets[t]);
            continue;
        }
        g_target = targets[t];
        static const int lanes_list[] = {1, 16};
        for (size_t i = 0; i < sizeof exprs / sizeof *exprs; i++)
            for (int li = 0; li < 2; li++) {
                tine_set_lanes(g_ctx, lanes_list[li]);
                char lb[200];
                snprintf(lb, sizeof lb, "%s x%d", exprs[i], lanes_list[li]);
                add(lb, tine_parse(g_ctx, exprs[i], "test"), 0);
            }
        set_bundle(2, TINE_MAX_LANES);
        flush(32);
        set_bundle(BUNDLE_MAX, TINE_MAX_LANES);
        g_target = "host";
    }
    tine_set_lanes(g_ctx, 16);
}

int main(int argc, char **argv) {
    if (argc > 1) g_seed = strtoull(argv[1], NULL, 0);
    g_rng = g_seed;
    long long nrandom = NRANDOM_DEFAULT;
    const char *env = getenv("TINE_CODEGEN_N");
    if (env && *env) nrandom = atoll(env);
    const char *parts = getenv("TINE_CODEGEN_PARTS"); /* e.g. "23": only parts 2 and 3 */
    if (!parts || !*parts) parts = "1234";
    double t0 = now(), tp = t0;
    g_ctx = tine_ctx_new();

#define PART(name, call)                                                                                    \
    do {                                                                                                    \
        long long j0 = g_jits, x0 = g_exprs, p0 = g_pass, f0 = g_fail;                                      \
        double s0 = g_jit_sec;                                                                              \
        clock_t c0 = clock();                                                                               \
        call;                                                                                               \
        double t = now();                                                                                   \
        printf("%-36s %5lld expressions, %4lld JITs (%5.1f ms each), %6lld checks, %lld failed, %5.1f s "   \
               "(cpu %.1f s)\n",                                                                            \
               name, g_exprs - x0, g_jits - j0,                                                             \
               g_jits > j0 ? 1e3 * (g_jit_sec - s0) / (double)(g_jits - j0) : 0.0, g_pass - p0 + g_fail - f0, \
               g_fail - f0, t - tp, (double)(clock() - c0) / CLOCKS_PER_SEC);                               \
        fflush(stdout);                                                                                     \
        tp = t;                                                                                             \
    } while (0)

    printf("test_codegen: seed 0x%" PRIx64 ", %lld random expressions\n", g_seed, nrandom);
    if (strchr(parts, '1')) {
        PART("1. primitive ops x16", prim_elementwise(16, 128));
        PART("1. shuffles, loads, constants x16", prim_other(64));
        PART("1. reinterprets to lane sizes", prim_repack(64));
        PART("1. elementwise ops x7", prim_elementwise(7, 64));
        PART("1. elementwise ops x1", prim_elementwise(1, 256));
    }
    if (strchr(parts, '2')) {
        tine_ctx_free(g_ctx);
        g_ctx = tine_ctx_new();
        PART("2. FPIR ops x16", fpir_all(16));
        PART("2. FPIR ops x1", fpir_all(1));
        PART("2. FPIR ops x7", fpir_all(7));
        PART("2. FPIR ops x64", fpir_all(64));
        printf("  FPIR: %lld op and type combinations\n", g_fpir_combos);
    }
    if (strchr(parts, '3')) PART("3. random expressions", part_random(nrandom));
    if (strchr(parts, '4')) {
        tine_ctx_free(g_ctx);
        g_ctx = tine_ctx_new();
        PART("4. emit, errors, fixed targets", part_emit());
    }
    tine_ctx_free(g_ctx);
    free(g_pending);

    printf("5. %lld JIT compilations, %.1f s in tine_jit_expr (%.1f ms each); total %.1f s (cpu %.1f s)\n", g_jits,
           g_jit_sec, g_jits ? 1e3 * g_jit_sec / (double)g_jits : 0.0, now() - t0, (double)clock() / CLOCKS_PER_SEC);
    printf("test_codegen: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
