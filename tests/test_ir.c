/* test_ir.c — the IR core: types, hash-consing, constructor checks, and the interpreter's
 * semantics of every primitive op.
 *
 * Design. Every semantic check compares the interpreter against a scalar reference
 * written here, independently of src/ir/interp.c: plain C on 64-bit words, one small
 * function per op, following the conventions of DESIGN.md and the choices listed at the
 * top of interp.c (x/0 = 0, floor division and modulo, shifts by negative or too-large
 * amounts, saturating float->int, ...). Inputs are packed into vectors of up to 256
 * lanes, so one evaluation checks up to 256 cases:
 *   - 8-bit operand pairs exhaustively (256 vectors of 256 lanes per op and type);
 *   - wider types on every pair of edge values plus >= 10,240 random pairs;
 *   - floats on every pair of special values (zeros, infinities, NaNs, denormals,
 *     limits of every integer type) plus >= 10,240 random pairs, compared bit for bit
 *     with what C's float/double arithmetic gives. The one exception: when C's result is
 *     a NaN, only NaN-ness is compared for arithmetic ops (add, sub, mul, div, sqrt),
 *     since C does not pin a NaN's sign or payload (x86 returns the first operand's).
 * One "check" is one assertion: a whole vector evaluation counts once (its first
 * mismatching lane is reported), as does each type, error or identity assertion.
 * The test exits non-zero on any failure; the last line is the summary.
 */
#define _POSIX_C_SOURCE 200809L /* alarm(): a watchdog for evaluations that must be fast */
#include "internal.h"

#include <math.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* ---- checking ---------------------------------------------------------------------- */

static long g_pass, g_fail;

static int check_at(int ok, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int check_at(int ok, int line, const char *fmt, ...) {
    if (ok) {
        g_pass++;
        return 1;
    }
    if (++g_fail <= 60) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "FAIL test_ir.c:%d: ", line);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    } else if (g_fail == 61) {
        fprintf(stderr, "(further failures are counted, not shown)\n");
    }
    return 0;
}
#define CHECK(ok, ...) check_at((ok) ? 1 : 0, __LINE__, __VA_ARGS__)

static tine_ctx_t *g_ctx; /* the context most sections build in */
static tine_env_t *g_env; /* an empty environment, for expressions over constants */

static const char *err_or_none(tine_ctx_t *ctx) {
    const char *e = tine_error(ctx);
    return e ? e : "(no error)";
}

/* A constructor call that must fail: NULL and an error containing `sub`. */
#define EXPECT_ERR(ctx, call, sub)                                                          \
    do {                                                                                    \
        tine_clear_error(ctx);                                                              \
        const void *r_ = (const void *)(call);                                              \
        const char *m_ = tine_error(ctx);                                                   \
        CHECK(r_ == NULL && m_ && strstr(m_, sub), "%s: want NULL and an error with '%s', got %s / %s", \
              #call, sub, r_ ? "a node" : "NULL", err_or_none(ctx));                        \
    } while (0)

/* A constructor call that must succeed without recording an error. */
#define EXPECT_OK(ctx, call)                                                                \
    do {                                                                                    \
        tine_clear_error(ctx);                                                              \
        const void *r_ = (const void *)(call);                                              \
        CHECK(r_ != NULL && !tine_error(ctx), "%s: want a node, got %s / %s", #call,        \
              r_ ? "a node" : "NULL", err_or_none(ctx));                                    \
    } while (0)

/* ---- types and values of the reference ------------------------------------------------ */

static tine_type_t T(tine_kind_t k, int bits, int lanes) {
    tine_type_t t = {(uint8_t)k, (uint8_t)bits, (uint16_t)lanes};
    return t;
}
#define U8 T(TINE_UINT, 8, 1)
#define U16 T(TINE_UINT, 16, 1)
#define U32 T(TINE_UINT, 32, 1)
#define U64 T(TINE_UINT, 64, 1)
#define I8 T(TINE_INT, 8, 1)
#define I16 T(TINE_INT, 16, 1)
#define I32 T(TINE_INT, 32, 1)
#define I64 T(TINE_INT, 64, 1)
#define F32 T(TINE_FLOAT, 32, 1)
#define F64 T(TINE_FLOAT, 64, 1)
#define BOOL T(TINE_BOOL, 1, 1)

static const tine_type_t INT_TYPES[8] = {
    {TINE_UINT, 8, 1}, {TINE_UINT, 16, 1}, {TINE_UINT, 32, 1}, {TINE_UINT, 64, 1},
    {TINE_INT, 8, 1},  {TINE_INT, 16, 1},  {TINE_INT, 32, 1},  {TINE_INT, 64, 1},
};
static const tine_type_t FLOAT_TYPES[2] = {{TINE_FLOAT, 32, 1}, {TINE_FLOAT, 64, 1}};

static const char *tn(tine_type_t t) { /* a short-lived name; rotates through 8 buffers */
    static char b[8][32];
    static int k;
    k = (k + 1) & 7;
    return tine_type_str(t, b[k], sizeof b[k]);
}

static uint64_t mask_of(int bits) { return bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1; }

/* The canonical 64-bit lane pattern tine_eval returns: truncated to the type's bits, then
 * sign-extended for signed types, zero-extended otherwise (floats: their bits). */
static uint64_t fit(tine_type_t t, uint64_t v) {
    if (t.kind == TINE_BOOL) return v & 1;
    v &= mask_of(t.bits);
    if (t.kind == TINE_INT && t.bits < 64 && ((v >> (t.bits - 1)) & 1)) v |= ~mask_of(t.bits);
    return v;
}

static int is_signed(tine_type_t t) { return t.kind == TINE_INT; }
static uint64_t imax(tine_type_t t) { return is_signed(t) ? mask_of(t.bits - 1) : mask_of(t.bits); }
static uint64_t imin(tine_type_t t) { return is_signed(t) ? ~mask_of(t.bits - 1) : 0; }

static float f32_of(uint64_t v) {
    uint32_t w = (uint32_t)v;
    float f;
    memcpy(&f, &w, 4);
    return f;
}
static uint64_t bits_f32(float f) {
    uint32_t w;
    memcpy(&w, &f, 4);
    return w;
}
static double f64_of(uint64_t v) {
    double d;
    memcpy(&d, &v, 8);
    return d;
}
static uint64_t bits_f64(double d) {
    uint64_t w;
    memcpy(&w, &d, 8);
    return w;
}
static double fval(tine_type_t t, uint64_t v) { return t.bits == 32 ? (double)f32_of(v) : f64_of(v); }
static uint64_t fbits(tine_type_t t, double d) { return t.bits == 32 ? bits_f32((float)d) : bits_f64(d); }
static int fisnan(tine_type_t t, uint64_t v) { return t.kind == TINE_FLOAT && isnan(fval(t, v)); }

/* ---- random numbers (xorshift64*, fixed seed: the test is deterministic) ------------- */

static uint64_t g_rng = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void) {
    g_rng ^= g_rng >> 12;
    g_rng ^= g_rng << 25;
    g_rng ^= g_rng >> 27;
    return g_rng * 0x2545F4914F6CDD1Dull;
}

/* ---- the scalar reference ------------------------------------------------------------ */

static int64_t sv(uint64_t v) { return (int64_t)v; } /* canonical signed lane as a number */

static int ref_cmp(tine_type_t t, uint64_t a, uint64_t b) { /* -1, 0, 1; 2 unordered */
    if (t.kind == TINE_FLOAT) {
        double x = fval(t, a), y = fval(t, b);
        if (x < y) return -1;
        if (x > y) return 1;
        return x == y ? 0 : 2;
    }
    if (is_signed(t)) return sv(a) < sv(b) ? -1 : sv(a) > sv(b);
    return a < b ? -1 : a > b;
}

/* Floor division: the quotient rounded toward -inf; x/0 = 0; MIN / -1 wraps to MIN. */
static uint64_t ref_div(tine_type_t t, uint64_t a, uint64_t b) {
    if (b == 0) return 0;
    if (!is_signed(t)) return a / b;
    int64_t x = sv(a), y = sv(b);
    if (y == -1) return fit(t, 0 - a);
    int64_t q = x / y;
    if (q * y != x && ((x < 0) != (y < 0))) q -= 1;
    return fit(t, (uint64_t)q);
}

/* Floor modulo: x - floor(x/y)*y, which has the divisor's sign; x % 0 = 0. */
static uint64_t ref_mod(tine_type_t t, uint64_t a, uint64_t b) {
    if (b == 0) return 0;
    if (!is_signed(t)) return a % b;
    int64_t x = sv(a), y = sv(b);
    if (y == -1) return 0;
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return fit(t, (uint64_t)r);
}

/* Shifts: the amount is read by its own type's signedness; a negative amount shifts the
 * other way by its magnitude; amounts >= width give 0, or the sign fill for an
 * arithmetic right shift. */
static uint64_t ref_shift(tine_type_t t, tine_type_t ts, uint64_t a, uint64_t s, int left) {
    uint64_t mag = s;
    if (is_signed(ts) && sv(s) < 0) {
        left = !left;
        mag = 0 - s; /* exact: the magnitude of the most negative value is 2^(bits-1) */
    }
    if (left) return mag >= (uint64_t)t.bits ? 0 : fit(t, a << mag);
    if (is_signed(t) && sv(a) < 0) return mag >= (uint64_t)t.bits ? ~UINT64_C(0) : ~(~a >> mag);
    return mag >= (uint64_t)t.bits ? 0 : a >> mag;
}

static uint64_t ref_binop(tine_op_t op, tine_type_t t, tine_type_t tb, uint64_t a, uint64_t b) {
    if (t.kind == TINE_FLOAT) {
        int c = ref_cmp(t, a, b);
        if (t.bits == 32) {
            float x = f32_of(a), y = f32_of(b);
            switch (op) {
            case TINE_OP_ADD: return bits_f32(x + y);
            case TINE_OP_SUB: return bits_f32(x - y);
            case TINE_OP_MUL: return bits_f32(x * y);
            case TINE_OP_DIV: return bits_f32(x / y);
            default: break;
            }
        } else {
            double x = f64_of(a), y = f64_of(b);
            switch (op) {
            case TINE_OP_ADD: return bits_f64(x + y);
            case TINE_OP_SUB: return bits_f64(x - y);
            case TINE_OP_MUL: return bits_f64(x * y);
            case TINE_OP_DIV: return bits_f64(x / y);
            default: break;
            }
        }
        switch (op) {
        case TINE_OP_MIN: return c == -1 ? a : b; /* select(a < b, a, b) */
        case TINE_OP_MAX: return c == 1 ? a : b;  /* select(a > b, a, b) */
        case TINE_OP_EQ: return c == 0;
        case TINE_OP_NE: return c != 0;
        case TINE_OP_LT: return c == -1;
        case TINE_OP_LE: return c == -1 || c == 0;
        case TINE_OP_GT: return c == 1;
        case TINE_OP_GE: return c == 1 || c == 0;
        default: break;
        }
        abort();
    }
    switch (op) {
    case TINE_OP_ADD: return fit(t, a + b);
    case TINE_OP_SUB: return fit(t, a - b);
    case TINE_OP_MUL: return fit(t, a * b);
    case TINE_OP_DIV: return ref_div(t, a, b);
    case TINE_OP_MOD: return ref_mod(t, a, b);
    case TINE_OP_MIN: return ref_cmp(t, a, b) <= 0 ? a : b;
    case TINE_OP_MAX: return ref_cmp(t, a, b) >= 0 ? a : b;
    case TINE_OP_AND: return a & b;
    case TINE_OP_OR: return a | b;
    case TINE_OP_XOR: return a ^ b;
    case TINE_OP_SHL: return ref_shift(t, tb, a, b, 1);
    case TINE_OP_SHR: return ref_shift(t, tb, a, b, 0);
    case TINE_OP_EQ: return a == b;
    case TINE_OP_NE: return a != b;
    case TINE_OP_LT: return ref_cmp(t, a, b) < 0;
    case TINE_OP_LE: return ref_cmp(t, a, b) <= 0;
    case TINE_OP_GT: return ref_cmp(t, a, b) > 0;
    case TINE_OP_GE: return ref_cmp(t, a, b) >= 0;
    default: abort();
    }
}

static uint64_t ref_unop(tine_op_t op, tine_type_t t, uint64_t a) {
    if (t.kind == TINE_BOOL) return !a; /* not */
    if (t.kind == TINE_FLOAT) {
        if (op == TINE_OP_NEG) return t.bits == 32 ? bits_f32(-f32_of(a)) : bits_f64(-f64_of(a));
        return t.bits == 32 ? bits_f32(sqrtf(f32_of(a))) : bits_f64(sqrt(f64_of(a)));
    }
    return op == TINE_OP_NEG ? fit(t, 0 - a) : fit(t, ~a);
}

/* Casts: int->int truncates or extends by the source's signedness; float->int truncates
 * toward zero and saturates, NaN -> 0; int->float rounds to nearest (C's conversion);
 * x -> bool is x != 0; bool -> number is 0 or 1. */
static uint64_t ref_cast(tine_type_t to, tine_type_t from, uint64_t v) {
    if (to.kind == TINE_BOOL) return from.kind == TINE_FLOAT ? fval(from, v) != 0.0 : v != 0;
    if (from.kind == TINE_FLOAT) {
        double d = fval(from, v);
        if (to.kind == TINE_FLOAT && to.bits == from.bits) return v; /* a cast to its own type is the value */
        if (to.kind == TINE_FLOAT) return to.bits == 32 ? bits_f32((float)d) : bits_f64(d);
        if (isnan(d)) return 0;
        d = trunc(d);
        if (is_signed(to)) {
            double lim = ldexp(1.0, to.bits - 1); /* -lim is the minimum, lim - 1 the maximum */
            if (d <= -lim) return imin(to);
            if (d >= lim) return imax(to);
            return fit(to, (uint64_t)(int64_t)d);
        }
        if (d <= 0) return 0;
        if (d >= ldexp(1.0, to.bits)) return imax(to);
        return (uint64_t)d;
    }
    if (to.kind == TINE_FLOAT) {
        if (to.bits == 32) return bits_f32(is_signed(from) ? (float)sv(v) : (float)v);
        return bits_f64(is_signed(from) ? (double)sv(v) : (double)v);
    }
    return fit(to, v); /* v is already extended by its own signedness */
}

static uint64_t ref_reinterpret(tine_type_t to, uint64_t v) { return fit(to, v & mask_of(to.bits)); }

/* ---- operand values ------------------------------------------------------------------ */

static int int_edges(tine_type_t t, uint64_t *out) {
    int b = t.bits, n = 0;
    static const int64_t small[] = {0, 1, 2, 3, 5, 7, 8, -1, -2, -3, -7, -8};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) out[n++] = fit(t, (uint64_t)small[i]);
    const int64_t sh[] = {b - 1, b, b + 1, 2 * b, -(b - 1), -b, -(b + 1), b / 2};
    for (size_t i = 0; i < sizeof sh / sizeof sh[0]; i++) out[n++] = fit(t, (uint64_t)sh[i]);
    out[n++] = imax(t);
    out[n++] = fit(t, imax(t) - 1);
    out[n++] = imin(t);
    out[n++] = fit(t, imin(t) + 1);
    out[n++] = fit(t, 0x5555555555555555ull);
    out[n++] = fit(t, 0xAAAAAAAAAAAAAAAAull);
    out[n++] = fit(t, UINT64_C(1) << (b / 2));
    out[n++] = fit(t, (UINT64_C(1) << (b / 2)) - 1);
    /* 64-bit values that a conversion to f32 through double would round wrongly (twice) */
    out[n++] = fit(t, UINT64_C(0x8000008000000001));
    out[n++] = fit(t, UINT64_C(0x4000004000000001));
    return n;
}

/* Random lane of an integer type: full-width half the time, else small (shift amounts,
 * divisors) or near a limit. */
static uint64_t rand_int(tine_type_t t) {
    uint64_t r = rnd(), b = (uint64_t)t.bits;
    switch (r & 3) {
    case 0: case 1: return fit(t, rnd());
    case 2: return fit(t, rnd() % (4 * b + 5) - (2 * b + 2));
    default: return (r & 4) ? fit(t, imax(t) - (r >> 8) % 4) : fit(t, imin(t) + (r >> 8) % 4);
    }
}

static int float_specials(tine_type_t t, uint64_t *out) {
    int n = 0;
    static const double plain[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1,
                                   -0.1, 1e-30, -1e-30, 1e30, -1e30, 1e300, -1e300, 16777217.0,
                                   9007199254740993.0};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++) out[n++] = fbits(t, plain[i]);
    out[n++] = fbits(t, INFINITY);
    out[n++] = fbits(t, -INFINITY);
    /* the limits of every integer type, and their neighbours */
    for (int bits = 8; bits <= 64; bits *= 2) {
        double h = ldexp(1.0, bits - 1), f = ldexp(1.0, bits);
        const double lim[] = {h, h - 1, h - 0.5, h + 1, -h, -h - 1, -h - 0.5, -h + 0.5, f, f - 1, f - 0.5,
                              f + 1, nextafter(h, 0), nextafter(f, 0), -nextafter(h, 0), nextafter(-h, -INFINITY)};
        for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++) out[n++] = fbits(t, lim[i]);
    }
    if (t.bits == 32) {
        static const uint32_t w[] = {0x7fc00000, 0xffc00000, 0x7f800001, 0xff800001, 0x7fc12345, 0x00000001,
                                     0x80000001, 0x007fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x3f7fffff};
        for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) out[n++] = w[i];
    } else {
        static const uint64_t w[] = {0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                     0xfff0000000000001ull, 0x7ff8000000012345ull, 1, 0x8000000000000001ull,
                                     0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
                                     0xffefffffffffffffull, 0x3fefffffffffffffull};
        for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) out[n++] = w[i];
    }
    return n;
}

static uint64_t rand_float(tine_type_t t) {
    uint64_t r = rnd();
    if (r % 3 == 0) return t.bits == 32 ? (rnd() & 0xffffffffu) : rnd(); /* any bit pattern */
    double d = (double)(int64_t)rnd() / ldexp(1.0, (int)((r >> 8) % 80));
    if (r % 3 == 1) d = trunc(d * 4) / 4; /* near integers: exercises float->int */
    return fbits(t, d);
}

static uint64_t rand_value(tine_type_t t) {
    if (t.kind == TINE_FLOAT) return rand_float(t);
    if (t.kind == TINE_BOOL) return rnd() & 1;
    return rand_int(t);
}

static int edge_values(tine_type_t t, uint64_t *out) {
    if (t.kind == TINE_FLOAT) return float_specials(t, out);
    if (t.kind == TINE_BOOL) return out[0] = 0, out[1] = 1, 2;
    return int_edges(t, out);
}

enum { NRANDOM = 10240 };

/* Values of one operand: every value for 8-bit types and bool, else edges + random. */
static size_t unary_inputs(tine_type_t t, uint64_t **out) {
    uint64_t *v = malloc(sizeof *v * (256 + 128 + NRANDOM));
    size_t n = 0;
    if (t.kind == TINE_BOOL) {
        v[n++] = 0;
        v[n++] = 1;
    } else if (t.bits == 8 && t.kind != TINE_FLOAT) {
        for (int i = 0; i < 256; i++) v[n++] = fit(t, (uint64_t)i);
    } else {
        n = (size_t)edge_values(t, v);
        for (int i = 0; i < NRANDOM; i++) v[n++] = rand_value(t);
    }
    *out = v;
    return n;
}

/* Operand pairs: every pair for two 8-bit types, else edge x edge + NRANDOM random pairs. */
static size_t pair_inputs(tine_type_t ta, tine_type_t tb, uint64_t **pa, uint64_t **pb) {
    size_t cap = 65536 + 128 * 128 + NRANDOM, n = 0;
    uint64_t *a = malloc(sizeof *a * cap), *b = malloc(sizeof *b * cap);
    if (ta.bits == 8 && tb.bits == 8 && ta.kind != TINE_FLOAT) {
        for (int i = 0; i < 256; i++)
            for (int j = 0; j < 256; j++) a[n] = fit(ta, (uint64_t)i), b[n++] = fit(tb, (uint64_t)j);
    } else {
        uint64_t ea[128], eb[128];
        int na = edge_values(ta, ea), nb = edge_values(tb, eb);
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++) a[n] = ea[i], b[n++] = eb[j];
        for (int i = 0; i < NRANDOM; i++) a[n] = rand_value(ta), b[n++] = rand_value(tb);
    }
    *pa = a;
    *pb = b;
    return n;
}

/* ---- evaluation harness ----------------------------------------------------------------- */

static tine_expr_t *var(tine_ctx_t *ctx, const char *name, tine_type_t elem, int lanes) {
    return tine_var(ctx, name, tine_type_with_lanes(elem, lanes));
}

enum { EXACT = 0, NAN_CLASS = 1 }; /* NAN_CLASS: a NaN result only has to be a NaN */

static int lane_ok(tine_type_t t, uint64_t got, uint64_t want, int mode) {
    if (got == want) return 1;
    return mode == NAN_CLASS && fisnan(t, want) && fisnan(t, got);
}

/* Evaluates e with vars[k] bound to vals[k] and compares every lane with want; one check. */
static void eval_expect(tine_ctx_t *ctx, const char *what, const tine_expr_t *e, int nv,
                        tine_expr_t *const *vars, uint64_t *const *vals, const uint64_t *want, int mode,
                        int line) {
    if (!check_at(e != NULL, line, "%s: could not build the expression: %s", what, err_or_none(ctx))) return;
    tine_env_t *env = tine_env_new(ctx);
    for (int k = 0; k < nv; k++) tine_env_bind(env, vars[k], vals[k]);
    uint64_t got[TINE_MAX_LANES];
    int rc = tine_eval(ctx, e, env, got);
    tine_env_free(env);
    if (!check_at(rc == 0, line, "%s: tine_eval failed: %s", what, err_or_none(ctx))) return;
    tine_type_t t = tine_expr_type(e);
    int bad = -1, nbad = 0;
    for (int i = 0; i < t.lanes; i++)
        if (!lane_ok(t, got[i], want[i], mode)) {
            if (bad < 0) bad = i;
            nbad++;
        }
    if (bad < 0) {
        check_at(1, line, "%s", what);
        return;
    }
    char in[200] = "";
    for (int k = 0; k < nv && k < 3; k++)
        snprintf(in + strlen(in), sizeof in - strlen(in), "%s%s=0x%llx", k ? ", " : "", tine_expr_name(vars[k]),
                 (unsigned long long)vals[k][bad]);
    check_at(0, line, "%s: %d of %d lanes differ; lane %d (%s): got 0x%llx, want 0x%llx", what, nbad, t.lanes,
             bad, in, (unsigned long long)got[bad], (unsigned long long)want[bad]);
}

/* Runs `build` over inputs a[, b] (n lanes in all, 256 per evaluation) and compares with the
 * reference `ref`. */
typedef tine_expr_t *(*build_fn)(tine_ctx_t *ctx, const void *arg, tine_expr_t *x, tine_expr_t *y);
typedef uint64_t (*ref_fn)(const void *arg, uint64_t a, uint64_t b);

static void run_elementwise(const char *what, tine_type_t ta, tine_type_t tb, int nargs, const uint64_t *a,
                            const uint64_t *b, size_t n, build_fn build, ref_fn ref, const void *arg, int mode,
                            int line) {
    tine_ctx_t *ctx = g_ctx;
    for (size_t start = 0; start < n; start += TINE_MAX_LANES) {
        int L = (int)(n - start < TINE_MAX_LANES ? n - start : TINE_MAX_LANES);
        tine_expr_t *vars[2] = {var(ctx, "x", ta, L), nargs > 1 ? var(ctx, "y", tb, L) : NULL};
        uint64_t *vals[2] = {(uint64_t *)a + start, nargs > 1 ? (uint64_t *)b + start : NULL};
        uint64_t want[TINE_MAX_LANES];
        for (int i = 0; i < L; i++) want[i] = ref(arg, a[start + i], nargs > 1 ? b[start + i] : 0);
        tine_expr_t *e = build(ctx, arg, vars[0], vars[1]);
        eval_expect(ctx, what, e, nargs, vars, vals, want, mode, line);
        /* The same result fed into ==: values must be canonical (sign- or zero-extended
           inside the interpreter), or later ops would see garbage in the upper bits. */
        if (e && tine_expr_type(e).kind != TINE_FLOAT) {
            tine_type_t rt = tine_expr_type(e);
            tine_expr_t *zv[3] = {vars[0], nargs > 1 ? vars[1] : var(ctx, "z", rt, L), var(ctx, "z", rt, L)};
            uint64_t *zvals[3] = {vals[0], nargs > 1 ? vals[1] : want, want}, ones[TINE_MAX_LANES];
            for (int i = 0; i < L; i++) ones[i] = 1;
            char what2[128];
            snprintf(what2, sizeof what2, "%s, fed into ==", what);
            eval_expect(ctx, what2, tine_binary(ctx, TINE_OP_EQ, e, zv[2]), 3, zv, zvals, ones, EXACT, line);
        }
    }
}

/* ---- 1. types --------------------------------------------------------------------------- */

static void test_types(void) {
    /* validity */
    static const struct { int kind, bits, lanes, valid; } cases[] = {
        {TINE_UINT, 8, 1, 1},    {TINE_UINT, 16, 1, 1},  {TINE_UINT, 32, 4, 1},    {TINE_UINT, 64, 256, 1},
        {TINE_UINT, 128, 2, 1},  {TINE_INT, 8, 16, 1},   {TINE_INT, 16, 1, 1},     {TINE_INT, 32, 1, 1},
        {TINE_INT, 64, 1, 1},    {TINE_INT, 128, 1, 1},  {TINE_FLOAT, 32, 8, 1},   {TINE_FLOAT, 64, 1, 1},
        {TINE_BOOL, 1, 1, 1},    {TINE_BOOL, 1, 256, 1}, {TINE_UINT, 0, 1, 0},     {TINE_UINT, 1, 1, 0},
        {TINE_UINT, 7, 1, 0},    {TINE_UINT, 12, 1, 0},  {TINE_INT, 24, 1, 0},     {TINE_UINT, 256, 1, 0},
        {TINE_INT, 264, 1, 0},   {TINE_UINT, -248, 1, 0}, {TINE_FLOAT, 16, 1, 0},  {TINE_FLOAT, 8, 1, 0},
        {TINE_FLOAT, 128, 1, 0}, {TINE_BOOL, 8, 1, 0},   {TINE_BOOL, 0, 1, 0},     {TINE_UINT, 8, 0, 0},
        {TINE_UINT, 8, 257, 0},  {TINE_UINT, 8, -1, 0},  {TINE_UINT, 8, 65537, 0}, {TINE_INT, 8, 65536 + 4, 0},
        {4, 8, 1, 0},            {7, 32, 1, 0},          {-1, 8, 1, 0},          {259, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tine_type_t t = tine_type((tine_kind_t)cases[i].kind, cases[i].bits, cases[i].lanes);
        CHECK(!!tine_type_valid(t) == cases[i].valid, "tine_type(kind %d, %d bits, %d lanes) valid=%d, want %d",
              cases[i].kind, cases[i].bits, cases[i].lanes, tine_type_valid(t), cases[i].valid);
        if (cases[i].valid)
            CHECK(t.kind == cases[i].kind && t.bits == cases[i].bits && t.lanes == cases[i].lanes,
                  "tine_type keeps its fields (%s)", tn(t));
    }
    CHECK(!tine_type_valid(T(TINE_UINT, 8, 0)) && !tine_type_valid(T(TINE_FLOAT, 16, 1)),
          "tine_type_valid on hand-built structs");
    CHECK(tine_type_eq(tine_type(TINE_INT, 16, 4), T(TINE_INT, 16, 4)) &&
              !tine_type_eq(T(TINE_INT, 16, 4), T(TINE_UINT, 16, 4)) &&
              !tine_type_eq(T(TINE_INT, 16, 4), T(TINE_INT, 16, 8)),
          "tine_type_eq");
    CHECK(tine_type_is_int(U8) && tine_type_is_int(I64) && !tine_type_is_int(F32) && !tine_type_is_int(BOOL),
          "tine_type_is_int");

    /* derived types: result (or invalid) */
    static const struct { const char *what; tine_type_t in; int fn, arg; tine_type_t want; } der[] = {
        {"widen", {TINE_UINT, 8, 4}, 0, 0, {TINE_UINT, 16, 4}},
        {"widen", {TINE_INT, 32, 1}, 0, 0, {TINE_INT, 64, 1}},
        {"widen", {TINE_INT, 64, 8}, 0, 0, {TINE_INT, 128, 8}},
        {"widen", {TINE_UINT, 128, 1}, 0, 0, {0, 0, 0}},
        {"widen", {TINE_FLOAT, 32, 1}, 0, 0, {0, 0, 0}},
        {"widen", {TINE_BOOL, 1, 1}, 0, 0, {0, 0, 0}},
        {"narrow", {TINE_UINT, 16, 4}, 1, 0, {TINE_UINT, 8, 4}},
        {"narrow", {TINE_INT, 128, 2}, 1, 0, {TINE_INT, 64, 2}},
        {"narrow", {TINE_INT, 8, 1}, 1, 0, {0, 0, 0}},
        {"narrow", {TINE_FLOAT, 64, 1}, 1, 0, {0, 0, 0}},
        {"with_kind", {TINE_UINT, 8, 16}, 2, TINE_INT, {TINE_INT, 8, 16}},
        {"with_kind", {TINE_INT, 64, 1}, 2, TINE_UINT, {TINE_UINT, 64, 1}},
        {"with_kind", {TINE_UINT, 16, 1}, 2, TINE_UINT, {TINE_UINT, 16, 1}},
        {"with_kind", {TINE_FLOAT, 32, 1}, 2, TINE_INT, {0, 0, 0}},
        {"with_kind", {TINE_UINT, 32, 1}, 2, TINE_FLOAT, {0, 0, 0}},
        {"with_kind", {TINE_BOOL, 1, 1}, 2, TINE_UINT, {0, 0, 0}},
        {"with_lanes", {TINE_UINT, 8, 1}, 3, 256, {TINE_UINT, 8, 256}},
        {"with_lanes", {TINE_FLOAT, 64, 4}, 3, 1, {TINE_FLOAT, 64, 1}},
        {"with_lanes", {TINE_BOOL, 1, 4}, 3, 32, {TINE_BOOL, 1, 32}},
        {"with_lanes", {TINE_UINT, 8, 1}, 3, 257, {0, 0, 0}},
        {"with_lanes", {TINE_UINT, 8, 1}, 3, 0, {0, 0, 0}},
        {"with_lanes", {TINE_UINT, 8, 1}, 3, 65537, {0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof der / sizeof der[0]; i++) {
        tine_type_t t = der[i].in, r;
        switch (der[i].fn) {
        case 0: r = tine_type_widen(t); break;
        case 1: r = tine_type_narrow(t); break;
        case 2: r = tine_type_with_kind(t, (tine_kind_t)der[i].arg); break;
        default: r = tine_type_with_lanes(t, der[i].arg); break;
        }
        if (tine_type_valid(der[i].want))
            CHECK(tine_type_eq(r, der[i].want), "%s(%s, %d) = %s, want %s", der[i].what, tn(t), der[i].arg, tn(r),
                  tn(der[i].want));
        else
            CHECK(!tine_type_valid(r), "%s(%s, %d) = %s, want an invalid type", der[i].what, tn(t), der[i].arg,
                  tn(r));
    }

    /* limits */
    static const struct { tine_type_t t; int64_t min; uint64_t max; } lim[] = {
        {{TINE_UINT, 8, 1}, 0, 255},
        {{TINE_UINT, 16, 1}, 0, 65535},
        {{TINE_UINT, 32, 1}, 0, 4294967295u},
        {{TINE_UINT, 64, 4}, 0, UINT64_MAX},
        {{TINE_INT, 8, 1}, -128, 127},
        {{TINE_INT, 16, 1}, -32768, 32767},
        {{TINE_INT, 32, 8}, INT32_MIN, INT32_MAX},
        {{TINE_INT, 64, 1}, INT64_MIN, INT64_MAX},
    };
    for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
        CHECK(tine_type_min(lim[i].t) == lim[i].min && tine_type_max(lim[i].t) == lim[i].max,
              "limits of %s: [%lld, %llu], want [%lld, %llu]", tn(lim[i].t), (long long)tine_type_min(lim[i].t),
              (unsigned long long)tine_type_max(lim[i].t), (long long)lim[i].min, (unsigned long long)lim[i].max);

    /* names */
    static const struct { tine_type_t t; const char *s; } names[] = {
        {{TINE_UINT, 8, 1}, "u8"},      {{TINE_INT, 16, 32}, "i16x32"}, {{TINE_BOOL, 1, 1}, "bool"},
        {{TINE_FLOAT, 64, 4}, "f64x4"}, {{TINE_FLOAT, 32, 1}, "f32"},   {{TINE_BOOL, 1, 8}, "boolx8"},
        {{TINE_UINT, 128, 1}, "u128"},  {{TINE_INT, 64, 256}, "i64x256"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char b[32];
        char *r = tine_type_str(names[i].t, b, sizeof b);
        CHECK(r == b && strcmp(b, names[i].s) == 0, "tine_type_str = '%s', want '%s'", b, names[i].s);
    }
    {
        char b[4] = "zzz";
        tine_type_str(T(TINE_INT, 16, 32), b, 4);
        CHECK(strcmp(b, "i16") == 0, "tine_type_str truncates to the buffer: '%s'", b);
    }

    /* join: the smallest integer type holding both ranges */
    static const struct { tine_type_t a, b, want; } joins[] = {
        {{TINE_UINT, 8, 1}, {TINE_UINT, 8, 1}, {TINE_UINT, 8, 1}},
        {{TINE_UINT, 8, 1}, {TINE_UINT, 32, 1}, {TINE_UINT, 32, 1}},
        {{TINE_INT, 64, 1}, {TINE_INT, 8, 1}, {TINE_INT, 64, 1}},
        {{TINE_INT, 8, 1}, {TINE_UINT, 8, 1}, {TINE_INT, 16, 1}},
        {{TINE_UINT, 8, 1}, {TINE_INT, 16, 1}, {TINE_INT, 16, 1}},
        {{TINE_INT, 16, 1}, {TINE_UINT, 16, 1}, {TINE_INT, 32, 1}},
        {{TINE_UINT, 32, 1}, {TINE_INT, 8, 1}, {TINE_INT, 64, 1}},
        {{TINE_UINT, 16, 1}, {TINE_INT, 64, 1}, {TINE_INT, 64, 1}},
        {{TINE_UINT, 64, 1}, {TINE_INT, 64, 1}, {TINE_INT, 128, 1}},
        {{TINE_UINT, 8, 4}, {TINE_INT, 8, 4}, {TINE_INT, 16, 4}},
        {{TINE_UINT, 128, 1}, {TINE_INT, 8, 1}, {0, 0, 0}},
        {{TINE_FLOAT, 32, 1}, {TINE_UINT, 8, 1}, {0, 0, 0}},
        {{TINE_UINT, 8, 1}, {TINE_BOOL, 1, 1}, {0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof joins / sizeof joins[0]; i++) {
        tine_type_t r = tine_type_join(joins[i].a, joins[i].b), r2 = tine_type_join(joins[i].b, joins[i].a);
        if (tine_type_valid(joins[i].want))
            CHECK(tine_type_eq(r, joins[i].want) && tine_type_eq(r2, joins[i].want), "join(%s, %s) = %s / %s, want %s",
                  tn(joins[i].a), tn(joins[i].b), tn(r), tn(r2), tn(joins[i].want));
        else
            CHECK(!tine_type_valid(r) && !tine_type_valid(r2), "join(%s, %s) = %s, want invalid", tn(joins[i].a),
                  tn(joins[i].b), tn(r));
    }
}

/* ---- 2. hash-consing ------------------------------------------------------------------- */

static tine_expr_t *build_sample(tine_ctx_t *ctx) { /* (a + b) * c >> 2, select, cast, slice */
    tine_type_t t = T(TINE_INT, 16, 8);
    tine_expr_t *a = tine_var(ctx, "a", t), *b = tine_var(ctx, "b", t), *c = tine_var(ctx, "c", t);
    tine_expr_t *e = tine_binary(ctx, TINE_OP_MUL, tine_binary(ctx, TINE_OP_ADD, a, b), c);
    e = tine_binary(ctx, TINE_OP_SHR, e, tine_const_int(ctx, t, 2));
    e = tine_select(ctx, tine_binary(ctx, TINE_OP_LT, a, b), e, tine_unary(ctx, TINE_OP_NEG, a));
    e = tine_cast(ctx, T(TINE_UINT, 32, 1), e);
    return tine_slice(ctx, e, 1, 2, 3);
}

static void test_hashcons(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    CHECK(tine_ctx_nodes(ctx) == 0, "a new context has no nodes");

    tine_expr_t *s1 = build_sample(ctx);
    size_t n1 = tine_ctx_nodes(ctx);
    tine_expr_t *s2 = build_sample(ctx);
    CHECK(s1 != NULL && s1 == s2, "the same expression built twice is the same pointer");
    CHECK(tine_ctx_nodes(ctx) == n1, "building it again adds no nodes (%zu, then %zu)", n1, tine_ctx_nodes(ctx));
    /* a, b, c, a+b, *, const 2, >>, a<b, -a, select, cast, slice */
    CHECK(n1 == 12, "the sample has 12 distinct nodes, the context counts %zu", n1);

    tine_type_t u8x4 = T(TINE_UINT, 8, 4);
    /* the bits reinterpreted twice are reinterpreted once; there and back is the value */
    tine_expr_t *va = tine_var(ctx, "a", u8x4), *ra = tine_reinterpret(ctx, I8, va);
    CHECK(tine_reinterpret(ctx, U8, ra) == va, "reinterpret<u8>(reinterpret<i8>(a_u8)) is a_u8");
    CHECK(tine_reinterpret(ctx, I8, tine_reinterpret(ctx, I8, va)) == ra, "reinterpret<i8> twice is once");
    CHECK(ra && ra->op == TINE_OP_REINTERPRET && ra->ops[0] == va, "reinterpret<i8>(a_u8) is a node over a_u8");
    struct { const char *what; tine_expr_t *x, *y; } diff[] = {
        {"constants 3 and 4", tine_const_int(ctx, U8, 3), tine_const_int(ctx, U8, 4)},
        {"constants u8 and i8", tine_const_int(ctx, U8, 3), tine_const_int(ctx, I8, 3)},
        {"constants u8x4 and u8x8", tine_const_int(ctx, u8x4, 3), tine_const_int(ctx, T(TINE_UINT, 8, 8), 3)},
        {"constants 0.0 and -0.0", tine_const_float(ctx, F32, 0.0), tine_const_float(ctx, F32, -0.0)},
        {"constants f32 and f64", tine_const_float(ctx, F32, 1.0), tine_const_float(ctx, F64, 1.0)},
        {"variables a and b", tine_var(ctx, "a", u8x4), tine_var(ctx, "b", u8x4)},
        {"variables a_u8 and a_i8", tine_var(ctx, "a", u8x4), tine_var(ctx, "a", T(TINE_INT, 8, 4))},
        {"variables a_u8x4 and a_u8x8", tine_var(ctx, "a", u8x4), tine_var(ctx, "a", T(TINE_UINT, 8, 8))},
        {"a + b and b + a (no canonical order, by design)",
         tine_binary(ctx, TINE_OP_ADD, tine_var(ctx, "a", u8x4), tine_var(ctx, "b", u8x4)),
         tine_binary(ctx, TINE_OP_ADD, tine_var(ctx, "b", u8x4), tine_var(ctx, "a", u8x4))},
        {"a * b and b * a", tine_binary(ctx, TINE_OP_MUL, tine_var(ctx, "a", u8x4), tine_var(ctx, "b", u8x4)),
         tine_binary(ctx, TINE_OP_MUL, tine_var(ctx, "b", u8x4), tine_var(ctx, "a", u8x4))},
        {"a + b and a - b", tine_binary(ctx, TINE_OP_ADD, tine_var(ctx, "a", u8x4), tine_var(ctx, "b", u8x4)),
         tine_binary(ctx, TINE_OP_SUB, tine_var(ctx, "a", u8x4), tine_var(ctx, "b", u8x4))},
        {"cast to u16 and to i16", tine_cast(ctx, U16, tine_var(ctx, "a", u8x4)),
         tine_cast(ctx, I16, tine_var(ctx, "a", u8x4))},
        {"cast and reinterpret", tine_cast(ctx, I8, tine_var(ctx, "a", u8x4)),
         tine_reinterpret(ctx, I8, tine_var(ctx, "a", u8x4))},
        {"broadcast to 4 and 8 lanes", tine_broadcast(ctx, tine_var(ctx, "s", U8), 4),
         tine_broadcast(ctx, tine_var(ctx, "s", U8), 8)},
        {"slices with other strides", tine_slice(ctx, tine_var(ctx, "v", T(TINE_UINT, 8, 16)), 0, 2, 4),
         tine_slice(ctx, tine_var(ctx, "v", T(TINE_UINT, 8, 16)), 0, 3, 4)},
        {"deinterleave k=0 and k=1", tine_deinterleave(ctx, tine_var(ctx, "v", T(TINE_UINT, 8, 16)), 2, 0),
         tine_deinterleave(ctx, tine_var(ctx, "v", T(TINE_UINT, 8, 16)), 2, 1)},
        {"loads from p and q",
         tine_load(ctx, "p", U8, tine_var(ctx, "i", T(TINE_INT, 32, 4))),
         tine_load(ctx, "q", U8, tine_var(ctx, "i", T(TINE_INT, 32, 4)))},
        {"loads of u8 and i8",
         tine_load(ctx, "p", U8, tine_var(ctx, "i", T(TINE_INT, 32, 4))),
         tine_load(ctx, "p", I8, tine_var(ctx, "i", T(TINE_INT, 32, 4)))},
        {"per-lane constants [1,2,3,4] and [1,2,3,5]",
         tine_const_lanes(ctx, u8x4, (const uint64_t[]){1, 2, 3, 4}),
         tine_const_lanes(ctx, u8x4, (const uint64_t[]){1, 2, 3, 5})},
    };
    for (size_t i = 0; i < sizeof diff / sizeof diff[0]; i++)
        CHECK(diff[i].x && diff[i].y && diff[i].x != diff[i].y, "%s are different nodes", diff[i].what);

    struct { const char *what; tine_expr_t *x, *y; } same[] = {
        {"const_int and const_uint of 7", tine_const_int(ctx, U16, 7), tine_const_uint(ctx, U16, 7)},
        {"const_int(i8, -1) and const_lanes", tine_const_int(ctx, T(TINE_INT, 8, 4), -1),
         tine_const_lanes(ctx, T(TINE_INT, 8, 4), (const uint64_t[]){~0ull, ~0ull, ~0ull, ~0ull})},
        {"two NaN constants", tine_const_float(ctx, F64, NAN), tine_const_float(ctx, F64, NAN)},
        {"variables of one name and type", tine_var(ctx, "abc", u8x4), tine_var(ctx, "abc", u8x4)},
        {"loads", tine_load(ctx, "p", U8, tine_var(ctx, "i", T(TINE_INT, 32, 4))),
         tine_load(ctx, "p", U8, tine_var(ctx, "i", T(TINE_INT, 32, 4)))},
        {"per-lane constants", tine_const_lanes(ctx, u8x4, (const uint64_t[]){1, 2, 3, 4}),
         tine_const_lanes(ctx, u8x4, (const uint64_t[]){1, 2, 3, 4})},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        CHECK(same[i].x && same[i].x == same[i].y, "%s are the same node", same[i].what);

    {
        char name[] = "abc"; /* a variable's name is interned, not borrowed */
        tine_expr_t *v = tine_var(ctx, name, u8x4);
        name[0] = 'x';
        CHECK(v == tine_var(ctx, "abc", u8x4) && strcmp(tine_expr_name(v), "abc") == 0,
              "a variable's name is copied");
    }

    /* ids: dense, unique, children first */
    size_t n = tine_ctx_nodes(ctx);
    int ok_dense = 1, ok_order = 1;
    unsigned char *seen = calloc(n, 1);
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        const tine_expr_t *e = ctx->by_id[i];
        if (tine_expr_id(e) != i || seen[i]) ok_dense = 0;
        seen[i] = 1;
        for (int k = 0; k < tine_expr_nops(e); k++)
            if (tine_expr_id(tine_expr_operand(e, k)) >= tine_expr_id(e)) ok_order = 0;
    }
    free(seen);
    CHECK(ok_dense, "ids are 0..%zu, one per node", n - 1);
    CHECK(ok_order, "every operand has a smaller id than its parent");

    /* counting in a fresh context */
    tine_ctx_t *c2 = tine_ctx_new();
    tine_expr_t *a = tine_var(c2, "a", u8x4), *b = tine_var(c2, "b", u8x4);
    tine_binary(c2, TINE_OP_ADD, a, b);
    tine_binary(c2, TINE_OP_ADD, a, b);
    tine_binary(c2, TINE_OP_ADD, b, a);
    tine_var(c2, "a", u8x4);
    CHECK(tine_ctx_nodes(c2) == 4, "a, b, a+b, a+b, b+a, a: 4 distinct nodes, counted %zu", tine_ctx_nodes(c2));
    CHECK(tine_ctx_bytes(c2) > 0, "tine_ctx_bytes is positive");
    tine_ctx_free(c2);

    /* interning stays exact across table growth */
    tine_ctx_t *c3 = tine_ctx_new();
    tine_expr_t *x = tine_var(c3, "x", U32);
    tine_expr_t **made = malloc(sizeof *made * 50000);
    for (int i = 0; i < 50000; i++) made[i] = tine_binary(c3, TINE_OP_ADD, x, tine_const_int(c3, U32, i));
    int stable = 1;
    for (int i = 0; i < 50000; i++)
        if (tine_binary(c3, TINE_OP_ADD, x, tine_const_int(c3, U32, i)) != made[i]) stable = 0;
    CHECK(stable && tine_ctx_nodes(c3) == 100001, "50,000 sums re-interned to the same nodes (%zu nodes)",
          tine_ctx_nodes(c3));
    free(made);
    tine_ctx_free(c3);

    /* accessors */
    tine_expr_t *sum = tine_binary(ctx, TINE_OP_ADD, tine_var(ctx, "a", u8x4), tine_var(ctx, "b", u8x4));
    CHECK(tine_expr_op(sum) == TINE_OP_ADD && tine_expr_nops(sum) == 2 &&
              tine_expr_operand(sum, 0) == tine_var(ctx, "a", u8x4) && tine_expr_operand(sum, 2) == NULL &&
              tine_expr_operand(sum, -1) == NULL && tine_type_eq(tine_expr_type(sum), u8x4) &&
              tine_expr_name(sum) == NULL,
          "accessors of a + b");
    CHECK(tine_expr_const_lane(tine_const_int(ctx, T(TINE_INT, 8, 4), -5), 3) == (uint64_t)-5 &&
              tine_expr_const_lane(tine_const_uint(ctx, T(TINE_UINT, 8, 4), 200), 2) == 200 &&
              tine_expr_const_lane(tine_const_int(ctx, F32, 3), 0) == bits_f32(3.0f),
          "tine_expr_const_lane: sign-extended, zero-extended, float bits");
    tine_ctx_free(ctx);
}

/* ---- 3. constructor checks ------------------------------------------------------------ */

static void test_constructor_errors(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_type_t u8x4 = T(TINE_UINT, 8, 4), i8x4 = T(TINE_INT, 8, 4);
    tine_expr_t *a = tine_var(ctx, "a", u8x4), *ai = tine_var(ctx, "ai", i8x4);
    tine_expr_t *a8 = tine_var(ctx, "a8", T(TINE_UINT, 8, 8)), *h = tine_var(ctx, "h", T(TINE_UINT, 16, 4));
    tine_expr_t *f = tine_var(ctx, "f", T(TINE_FLOAT, 32, 4)), *bl = tine_var(ctx, "bl", T(TINE_BOOL, 1, 4));
    tine_expr_t *bl8 = tine_var(ctx, "bl8", T(TINE_BOOL, 1, 8)), *s = tine_var(ctx, "s", U8);
    tine_expr_t *i32 = tine_var(ctx, "i", T(TINE_INT, 32, 4)), *u32 = tine_var(ctx, "iu", T(TINE_UINT, 32, 4));
    tine_expr_t *v16 = tine_var(ctx, "v", T(TINE_UINT, 8, 16)), *big = tine_var(ctx, "big", T(TINE_UINT, 8, 200));
    tine_type_t bad_float = T(TINE_FLOAT, 16, 1);

    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_ADD, a, ai), "operand types differ: u8x4 and i8x4");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_ADD, a, a8), "operand types differ");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_MIN, a, h), "operand types differ");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_EQ, a, ai), "operand types differ");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_AND, a, h), "operand types differ");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_ADD, bl, bl), "not defined on boolx4");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_MUL, bl, bl), "not defined on bool");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_MAX, bl, bl), "not defined on bool");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_MOD, f, f), "not defined on f32x4");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_XOR, f, f), "not defined on f32");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_SHL, a, h), "shift amount must have the bits");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_SHR, a, a8), "shift amount must have the bits and lanes");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_SHL, f, f), "needs integer operands");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_SHR, a, bl), "needs integer operands, got boolx4");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_NEG, a, a), "not a binary op");
    EXPECT_ERR(ctx, tine_binary(ctx, TINE_OP_WIDENING_ADD, a, a), "not a binary op");
    EXPECT_ERR(ctx, tine_unary(ctx, TINE_OP_NEG, bl), "not defined on bool");
    EXPECT_ERR(ctx, tine_unary(ctx, TINE_OP_NOT, f), "not defined on f32x4");
    EXPECT_ERR(ctx, tine_unary(ctx, TINE_OP_SQRT, a), "sqrt is not defined on u8x4");
    EXPECT_ERR(ctx, tine_unary(ctx, TINE_OP_ADD, a), "not a unary op");
    EXPECT_ERR(ctx, tine_select(ctx, a, a, a), "condition must be bool, got u8x4");
    EXPECT_ERR(ctx, tine_select(ctx, bl8, a, a), "condition has 8 lanes, the values 4");
    EXPECT_ERR(ctx, tine_select(ctx, bl, a, ai), "operand types differ");
    EXPECT_ERR(ctx, tine_cast(ctx, bad_float, a), "cast: invalid type");
    EXPECT_ERR(ctx, tine_cast(ctx, T(TINE_UINT, 12, 1), a), "invalid type");
    EXPECT_ERR(ctx, tine_reinterpret(ctx, U16, a), "same bits: u8x4 to u16x4");
    EXPECT_ERR(ctx, tine_reinterpret(ctx, F64, tine_var(ctx, "w", T(TINE_UINT, 32, 2))), "same bits");
    EXPECT_ERR(ctx, tine_reinterpret(ctx, BOOL, a), "non-bool");
    EXPECT_ERR(ctx, tine_reinterpret(ctx, bad_float, a), "invalid type");
    EXPECT_ERR(ctx, tine_broadcast(ctx, a, 8), "needs a scalar, got 4 lanes");
    EXPECT_ERR(ctx, tine_broadcast(ctx, s, 257), "invalid type");
    EXPECT_ERR(ctx, tine_broadcast(ctx, s, 0), "invalid type");
    EXPECT_ERR(ctx, tine_broadcast(ctx, s, 65537), "invalid type");
    EXPECT_ERR(ctx, tine_ramp(ctx, a, a, 4), "ramp needs scalar integer base and stride");
    EXPECT_ERR(ctx, tine_ramp(ctx, s, tine_var(ctx, "t", U16), 4), "of one type");
    EXPECT_ERR(ctx, tine_ramp(ctx, tine_var(ctx, "g", F32), tine_var(ctx, "g", F32), 4), "integer");
    EXPECT_ERR(ctx, tine_ramp(ctx, s, s, 300), "invalid type");
    EXPECT_ERR(ctx, tine_ramp(ctx, s, s, 65537), "invalid type");
    EXPECT_ERR(ctx, tine_load(ctx, "p", U8, u32), "index must be i32, got u32x4");
    EXPECT_ERR(ctx, tine_load(ctx, "p", U8, tine_var(ctx, "j", T(TINE_INT, 64, 4))), "index must be i32");
    EXPECT_ERR(ctx, tine_load(ctx, "p", bad_float, i32), "invalid type");
    EXPECT_ERR(ctx, tine_load(ctx, "2p", U8, i32), "buffer name '2p' is not an identifier");
    EXPECT_ERR(ctx, tine_var(ctx, "a b", U8), "not an identifier");
    EXPECT_ERR(ctx, tine_var(ctx, "", U8), "not an identifier");
    EXPECT_ERR(ctx, tine_var(ctx, NULL, U8), "not an identifier");
    EXPECT_ERR(ctx, tine_var(ctx, "x", bad_float), "variable: invalid type");
    {
        tine_expr_t *two[2] = {big, big}, *mixed[2] = {a, ai}, *none[1] = {a};
        EXPECT_ERR(ctx, tine_concat(ctx, 2, two), "400 lanes is more than 256");
        EXPECT_ERR(ctx, tine_concat(ctx, 2, mixed), "operand types differ");
        EXPECT_ERR(ctx, tine_concat(ctx, 0, none), "needs 1 to 255 vectors");
        EXPECT_ERR(ctx, tine_interleave(ctx, 2, two), "more than 256");
        tine_expr_t *uneven[2] = {a, a8};
        EXPECT_ERR(ctx, tine_interleave(ctx, 2, uneven), "equal lanes");
        EXPECT_OK(ctx, tine_concat(ctx, 2, uneven)); /* concat allows unequal lanes */
    }
    EXPECT_ERR(ctx, tine_slice(ctx, v16, 0, 1, 17), "outside a vector of 16 lanes");
    EXPECT_ERR(ctx, tine_slice(ctx, v16, 15, 1, 2), "outside");
    EXPECT_ERR(ctx, tine_slice(ctx, v16, 1, 5, 4), "slice(begin 1, stride 5, count 4)");
    EXPECT_ERR(ctx, tine_slice(ctx, v16, -1, 1, 2), "outside");
    EXPECT_ERR(ctx, tine_slice(ctx, v16, 0, 0, 2), "outside");
    EXPECT_ERR(ctx, tine_slice(ctx, v16, 0, 1, 0), "outside");
    EXPECT_OK(ctx, tine_slice(ctx, v16, 1, 5, 3));
    EXPECT_ERR(ctx, tine_deinterleave(ctx, v16, 3, 0), "deinterleave(3, 0) needs 0 <= k < n and n dividing 16");
    EXPECT_ERR(ctx, tine_deinterleave(ctx, v16, 2, 2), "needs 0 <= k < n");
    EXPECT_ERR(ctx, tine_deinterleave(ctx, v16, 2, -1), "needs 0 <= k < n");
    EXPECT_ERR(ctx, tine_deinterleave(ctx, v16, 0, 0), "needs 0 <= k < n");
    EXPECT_ERR(ctx, tine_vector_reduce_add(ctx, v16, 3), "16 lanes do not divide into 3 groups");
    EXPECT_ERR(ctx, tine_vector_reduce_add(ctx, v16, 32), "do not divide");
    EXPECT_ERR(ctx, tine_vector_reduce_add(ctx, v16, 0), "do not divide");
    EXPECT_ERR(ctx, tine_vector_reduce_add(ctx, bl, 2), "not defined on bool");

    /* constants */
    EXPECT_ERR(ctx, tine_const_int(ctx, U8, 300), "constant 300 does not fit in u8");
    EXPECT_ERR(ctx, tine_const_int(ctx, U8, -1), "does not fit in u8");
    EXPECT_ERR(ctx, tine_const_int(ctx, I8, -129), "constant -129 does not fit in i8");
    EXPECT_ERR(ctx, tine_const_int(ctx, I8, 128), "does not fit in i8");
    EXPECT_ERR(ctx, tine_const_int(ctx, T(TINE_UINT, 16, 4), 65536), "does not fit in u16x4");
    EXPECT_ERR(ctx, tine_const_uint(ctx, I64, UINT64_C(1) << 63), "does not fit in i64");
    EXPECT_ERR(ctx, tine_const_uint(ctx, U32, UINT64_C(1) << 32), "does not fit in u32");
    EXPECT_ERR(ctx, tine_const_int(ctx, BOOL, 2), "does not fit in bool");
    EXPECT_ERR(ctx, tine_const_int(ctx, bad_float, 1), "constant: invalid type");
    EXPECT_ERR(ctx, tine_const_float(ctx, U8, 1.0), "needs a float type");
    EXPECT_ERR(ctx, tine_const_lanes(ctx, T(TINE_UINT, 8, 2), (const uint64_t[]){1, 256}), "lane 1");
    EXPECT_ERR(ctx, tine_const_lanes(ctx, T(TINE_INT, 8, 2), (const uint64_t[]){0xff, 0}), "does not fit in i8x2");
    EXPECT_ERR(ctx, tine_const_lanes(ctx, T(TINE_BOOL, 1, 2), (const uint64_t[]){0, 2}), "does not fit");
    EXPECT_OK(ctx, tine_const_int(ctx, U8, 255));
    EXPECT_OK(ctx, tine_const_int(ctx, I8, -128));
    EXPECT_OK(ctx, tine_const_uint(ctx, U64, UINT64_MAX));
    EXPECT_OK(ctx, tine_const_int(ctx, I64, INT64_MIN));
    EXPECT_OK(ctx, tine_const_int(ctx, BOOL, 1));
    EXPECT_OK(ctx, tine_const_int(ctx, T(TINE_UINT, 128, 1), 5));
    EXPECT_OK(ctx, tine_const_lanes(ctx, T(TINE_INT, 8, 2), (const uint64_t[]){(uint64_t)-128, 127}));

    /* valid calls record no error */
    EXPECT_OK(ctx, tine_binary(ctx, TINE_OP_SHL, a, ai)); /* amount of the other signedness */
    EXPECT_OK(ctx, tine_binary(ctx, TINE_OP_AND, bl, bl));
    EXPECT_OK(ctx, tine_unary(ctx, TINE_OP_NOT, bl));
    EXPECT_OK(ctx, tine_select(ctx, bl, f, f));
    EXPECT_OK(ctx, tine_cast(ctx, F64, a));
    EXPECT_OK(ctx, tine_reinterpret(ctx, I32, f));
    EXPECT_OK(ctx, tine_vector_reduce_add(ctx, f, 2));

    /* NULL operands: NULL out, and the earlier error stays */
    tine_clear_error(ctx);
    CHECK(tine_const_int(ctx, U8, 300) == NULL, "the first error");
    const char *first = tine_error(ctx);
    char *saved = tine_strdup(first ? first : "");
    tine_expr_t *nul = NULL, *arr[2] = {a, NULL};
    const void *results[] = {
        tine_binary(ctx, TINE_OP_ADD, nul, a), tine_binary(ctx, TINE_OP_ADD, a, nul),
        tine_binary(ctx, TINE_OP_SHL, nul, nul), tine_unary(ctx, TINE_OP_NEG, nul),
        tine_select(ctx, nul, a, a),         tine_select(ctx, bl, nul, a),
        tine_select(ctx, bl, a, nul),        tine_cast(ctx, U16, nul),
        tine_reinterpret(ctx, I8, nul),      tine_broadcast(ctx, nul, 4),
        tine_ramp(ctx, nul, s, 4),           tine_ramp(ctx, s, nul, 4),
        tine_load(ctx, "p", U8, nul),        tine_concat(ctx, 2, arr),
        tine_interleave(ctx, 2, arr),        tine_slice(ctx, nul, 0, 1, 1),
        tine_deinterleave(ctx, nul, 2, 0),   tine_vector_reduce_add(ctx, nul, 1),
        tine_binary(ctx, TINE_OP_ADD, tine_binary(ctx, TINE_OP_ADD, a, nul), a),
    };
    int all_null = 1;
    for (size_t i = 0; i < sizeof results / sizeof results[0]; i++)
        if (results[i]) all_null = 0;
    CHECK(all_null, "every constructor returns NULL for a NULL operand");
    CHECK(tine_error(ctx) && strcmp(tine_error(ctx), saved) == 0,
          "NULL operands keep the earlier error ('%s'), now '%s'", saved, err_or_none(ctx));
    tine_clear_error(ctx);
    CHECK(tine_binary(ctx, TINE_OP_ADD, nul, a) == NULL && tine_error(ctx) == NULL,
          "a NULL operand alone records no error");
    free(saved);
    tine_ctx_free(ctx);
}

/* ---- 4. element-wise semantics ----------------------------------------------------------- */

typedef struct {
    tine_op_t op;
    tine_type_t ta, tb; /* element types of the operands */
} op_arg;

static tine_expr_t *build_binary(tine_ctx_t *ctx, const void *arg, tine_expr_t *x, tine_expr_t *y) {
    return tine_binary(ctx, ((const op_arg *)arg)->op, x, y);
}
static uint64_t ref_binary(const void *arg, uint64_t a, uint64_t b) {
    const op_arg *o = arg;
    return ref_binop(o->op, o->ta, o->tb, a, b);
}
static tine_expr_t *build_unary(tine_ctx_t *ctx, const void *arg, tine_expr_t *x, tine_expr_t *y) {
    (void)y;
    return tine_unary(ctx, ((const op_arg *)arg)->op, x);
}
static uint64_t ref_unary(const void *arg, uint64_t a, uint64_t b) {
    (void)b;
    const op_arg *o = arg;
    return ref_unop(o->op, o->ta, a);
}
static tine_expr_t *build_cast(tine_ctx_t *ctx, const void *arg, tine_expr_t *x, tine_expr_t *y) {
    (void)y;
    return tine_cast(ctx, ((const op_arg *)arg)->tb, x);
}
static uint64_t ref_castfn(const void *arg, uint64_t a, uint64_t b) {
    (void)b;
    const op_arg *o = arg;
    return ref_cast(o->tb, o->ta, a);
}
static tine_expr_t *build_reinterpret(tine_ctx_t *ctx, const void *arg, tine_expr_t *x, tine_expr_t *y) {
    (void)y;
    return tine_reinterpret(ctx, ((const op_arg *)arg)->tb, x);
}
static uint64_t ref_reinterpretfn(const void *arg, uint64_t a, uint64_t b) {
    (void)b;
    return ref_reinterpret(((const op_arg *)arg)->tb, a);
}

static const tine_op_t INT_BINOPS[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD,
                                       TINE_OP_MIN, TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR,  TINE_OP_XOR,
                                       TINE_OP_SHL, TINE_OP_SHR, TINE_OP_EQ,  TINE_OP_NE,  TINE_OP_LT,
                                       TINE_OP_LE,  TINE_OP_GT,  TINE_OP_GE};
static const tine_op_t FLOAT_BINOPS[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MIN,
                                         TINE_OP_MAX, TINE_OP_EQ,  TINE_OP_NE,  TINE_OP_LT,  TINE_OP_LE,
                                         TINE_OP_GT,  TINE_OP_GE};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_int_ops(void) {
    for (size_t ti = 0; ti < COUNT(INT_TYPES); ti++) {
        tine_type_t t = INT_TYPES[ti];
        uint64_t *a, *b;
        size_t n = pair_inputs(t, t, &a, &b);
        for (size_t oi = 0; oi < COUNT(INT_BINOPS); oi++) {
            op_arg o = {INT_BINOPS[oi], t, t};
            char what[64];
            snprintf(what, sizeof what, "%s on %s", tine_op_name(o.op), tn(t));
            run_elementwise(what, t, t, 2, a, b, n, build_binary, ref_binary, &o, EXACT, __LINE__);
        }
        free(a);
        free(b);
        /* shift amounts of the other signedness, same bits */
        tine_type_t ts = tine_type_with_kind(t, is_signed(t) ? TINE_UINT : TINE_INT);
        n = pair_inputs(t, ts, &a, &b);
        for (int left = 0; left < 2; left++) {
            op_arg o = {left ? TINE_OP_SHL : TINE_OP_SHR, t, ts};
            char what[64];
            snprintf(what, sizeof what, "%s on %s by %s", tine_op_name(o.op), tn(t), tn(ts));
            run_elementwise(what, t, ts, 2, a, b, n, build_binary, ref_binary, &o, EXACT, __LINE__);
        }
        free(a);
        free(b);
        /* unary */
        n = unary_inputs(t, &a);
        for (int k = 0; k < 2; k++) {
            op_arg o = {k ? TINE_OP_NOT : TINE_OP_NEG, t, t};
            char what[64];
            snprintf(what, sizeof what, "%s on %s", tine_op_name(o.op), tn(t));
            run_elementwise(what, t, t, 1, a, NULL, n, build_unary, ref_unary, &o, EXACT, __LINE__);
        }
        free(a);
    }
}

/* A few results written out by hand, so the reference itself is pinned too. */
static void test_int_spot(void) {
    tine_ctx_t *ctx = g_ctx;
    static const struct {
        tine_op_t op;
        tine_type_t ta, tb;
        int64_t a, b, want;
    } spot[] = {
        {TINE_OP_DIV, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -7, 2, -4},
        {TINE_OP_DIV, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, 7, -2, -4},
        {TINE_OP_DIV, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -7, -2, 3},
        {TINE_OP_DIV, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -8, 2, -4},
        {TINE_OP_DIV, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -128, -1, -128},
        {TINE_OP_DIV, {TINE_INT, 64, 1}, {TINE_INT, 64, 1}, INT64_MIN, -1, INT64_MIN},
        {TINE_OP_DIV, {TINE_INT, 32, 1}, {TINE_INT, 32, 1}, 5, 0, 0},
        {TINE_OP_DIV, {TINE_UINT, 8, 1}, {TINE_UINT, 8, 1}, 255, 0, 0},
        {TINE_OP_MOD, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -7, 2, 1},
        {TINE_OP_MOD, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, 7, -2, -1},
        {TINE_OP_MOD, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -7, -2, -1},
        {TINE_OP_MOD, {TINE_INT, 16, 1}, {TINE_INT, 16, 1}, -32768, -1, 0},
        {TINE_OP_MOD, {TINE_INT, 16, 1}, {TINE_INT, 16, 1}, -5, 0, 0},
        {TINE_OP_MOD, {TINE_UINT, 16, 1}, {TINE_UINT, 16, 1}, 65535, 10, 5},
        {TINE_OP_SHR, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -128, 7, -1},
        {TINE_OP_SHR, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -128, 8, -1},
        {TINE_OP_SHR, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, 64, 8, 0},
        {TINE_OP_SHR, {TINE_UINT, 8, 1}, {TINE_INT, 8, 1}, 128, 7, 1},
        {TINE_OP_SHR, {TINE_INT, 8, 1}, {TINE_UINT, 8, 1}, -128, 200, -1},
        {TINE_OP_SHR, {TINE_INT, 16, 1}, {TINE_INT, 16, 1}, 3, -2, 12},
        {TINE_OP_SHL, {TINE_INT, 16, 1}, {TINE_INT, 16, 1}, -16, -2, -4},
        {TINE_OP_SHL, {TINE_UINT, 16, 1}, {TINE_INT, 16, 1}, 0x8000, -15, 1},
        {TINE_OP_SHL, {TINE_UINT, 16, 1}, {TINE_INT, 16, 1}, 0x8000, -16, 0},
        {TINE_OP_SHL, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -1, -128, -1},
        {TINE_OP_SHL, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, 1, 7, -128},
        {TINE_OP_SHL, {TINE_UINT, 64, 1}, {TINE_UINT, 64, 1}, 1, 64, 0},
        {TINE_OP_SHR, {TINE_INT, 64, 1}, {TINE_INT, 64, 1}, INT64_MIN, 63, -1},
        {TINE_OP_SHR, {TINE_INT, 64, 1}, {TINE_INT, 64, 1}, 1, INT64_MIN, 0},
        {TINE_OP_SHL, {TINE_INT, 64, 1}, {TINE_INT, 64, 1}, INT64_MIN, INT64_MIN, -1},
        {TINE_OP_MUL, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -128, -1, -128},
        {TINE_OP_ADD, {TINE_UINT, 8, 1}, {TINE_UINT, 8, 1}, 200, 100, 44},
        {TINE_OP_SUB, {TINE_UINT, 32, 1}, {TINE_UINT, 32, 1}, 0, 1, 4294967295},
        {TINE_OP_LT, {TINE_INT, 8, 1}, {TINE_INT, 8, 1}, -1, 0, 1},
        {TINE_OP_LT, {TINE_UINT, 8, 1}, {TINE_UINT, 8, 1}, 255, 0, 0},
        {TINE_OP_MIN, {TINE_INT, 32, 1}, {TINE_INT, 32, 1}, -5, 3, -5},
        {TINE_OP_MAX, {TINE_UINT, 32, 1}, {TINE_UINT, 32, 1}, 4294967295, 3, 4294967295},
    };
    for (size_t i = 0; i < COUNT(spot); i++) {
        tine_expr_t *x = tine_const_int(ctx, spot[i].ta, spot[i].a);
        tine_expr_t *y = tine_const_int(ctx, spot[i].tb, spot[i].b);
        if (!x && spot[i].ta.kind == TINE_UINT) x = tine_const_uint(ctx, spot[i].ta, (uint64_t)spot[i].a);
        tine_expr_t *e = tine_binary(ctx, spot[i].op, x, y);
        uint64_t got = 0;
        int rc = e ? tine_eval(ctx, e, g_env, &got) : -1;
        tine_type_t rt = e ? tine_expr_type(e) : U8;
        uint64_t want = fit(rt, (uint64_t)spot[i].want);
        uint64_t ref = ref_binop(spot[i].op, spot[i].ta, spot[i].tb, fit(spot[i].ta, (uint64_t)spot[i].a),
                                 fit(spot[i].tb, (uint64_t)spot[i].b));
        CHECK(rc == 0 && got == want && ref == want, "%s(%s %lld, %s %lld) = %lld (reference %lld), want %lld",
              tine_op_name(spot[i].op), tn(spot[i].ta), (long long)spot[i].a, tn(spot[i].tb), (long long)spot[i].b,
              (long long)got, (long long)ref, (long long)spot[i].want);
    }
}

static void test_bool_ops(void) {
    uint64_t a[4] = {0, 0, 1, 1}, b[4] = {0, 1, 0, 1};
    static const struct { tine_op_t op; uint64_t want[4]; } tab[] = {
        {TINE_OP_AND, {0, 0, 0, 1}}, {TINE_OP_OR, {0, 1, 1, 1}}, {TINE_OP_XOR, {0, 1, 1, 0}},
        {TINE_OP_EQ, {1, 0, 0, 1}},  {TINE_OP_NE, {0, 1, 1, 0}}, {TINE_OP_LT, {0, 1, 0, 0}},
        {TINE_OP_LE, {1, 1, 0, 1}},  {TINE_OP_GT, {0, 0, 1, 0}}, {TINE_OP_GE, {1, 0, 1, 1}},
    };
    tine_expr_t *x = var(g_ctx, "p", BOOL, 4), *y = var(g_ctx, "q", BOOL, 4);
    tine_expr_t *vars[2] = {x, y};
    uint64_t *vals[2] = {a, b};
    for (size_t i = 0; i < COUNT(tab); i++) {
        char what[64];
        snprintf(what, sizeof what, "%s on bool", tine_op_name(tab[i].op));
        eval_expect(g_ctx, what, tine_binary(g_ctx, tab[i].op, x, y), 2, vars, vals, tab[i].want, EXACT, __LINE__);
    }
    uint64_t nw[4] = {1, 1, 0, 0};
    eval_expect(g_ctx, "not on bool", tine_unary(g_ctx, TINE_OP_NOT, x), 1, vars, vals, nw, EXACT, __LINE__);
    /* binding any nonzero word to a bool variable means true */
    uint64_t odd[4] = {0, 2, 0x100, ~0ull}, want[4] = {0, 1, 1, 1};
    uint64_t *ov[1] = {odd};
    eval_expect(g_ctx, "bool variable bound to nonzero words", x, 1, vars, ov, want, EXACT, __LINE__);
}

static void test_select(void) {
    const tine_type_t types[] = {{TINE_UINT, 8, 1}, {TINE_INT, 16, 1}, {TINE_UINT, 32, 1}, {TINE_INT, 64, 1},
                                 {TINE_FLOAT, 32, 1}, {TINE_FLOAT, 64, 1}, {TINE_BOOL, 1, 1}};
    for (size_t ti = 0; ti < COUNT(types); ti++) {
        tine_type_t t = types[ti];
        for (int round = 0; round < 8; round++) {
            uint64_t c[256], x[256], y[256], want[256];
            for (int i = 0; i < 256; i++) {
                c[i] = rnd() & 1;
                x[i] = rand_value(t);
                y[i] = rand_value(t);
                want[i] = c[i] ? x[i] : y[i];
            }
            tine_expr_t *vars[3] = {var(g_ctx, "c", BOOL, 256), var(g_ctx, "x", t, 256), var(g_ctx, "y", t, 256)};
            uint64_t *vals[3] = {c, x, y};
            char what[64];
            snprintf(what, sizeof what, "select on %s", tn(t));
            eval_expect(g_ctx, what, tine_select(g_ctx, vars[0], vars[1], vars[2]), 3, vars, vals, want, EXACT,
                        __LINE__);
        }
    }
}

static void run_cast(tine_type_t from, tine_type_t to) {
    uint64_t *a;
    size_t n = unary_inputs(from, &a);
    op_arg o = {TINE_OP_CAST, from, to};
    char what[64];
    snprintf(what, sizeof what, "cast %s -> %s", tn(from), tn(to));
    run_elementwise(what, from, from, 1, a, NULL, n, build_cast, ref_castfn, &o, EXACT, __LINE__);
    free(a);
}

static void test_casts(void) {
    const tine_type_t all[] = {{TINE_UINT, 8, 1}, {TINE_UINT, 16, 1}, {TINE_UINT, 32, 1}, {TINE_UINT, 64, 1},
                               {TINE_INT, 8, 1},  {TINE_INT, 16, 1},  {TINE_INT, 32, 1},  {TINE_INT, 64, 1},
                               {TINE_FLOAT, 32, 1}, {TINE_FLOAT, 64, 1}, {TINE_BOOL, 1, 1}};
    for (size_t i = 0; i < COUNT(all); i++)
        for (size_t j = 0; j < COUNT(all); j++) run_cast(all[i], all[j]);

    /* hand-written float <-> int results */
    static const struct { double in; tine_type_t from, to; uint64_t want; } spot[] = {
        {-1.5, {TINE_FLOAT, 64, 1}, {TINE_INT, 8, 1}, (uint64_t)-1},
        {1.99, {TINE_FLOAT, 64, 1}, {TINE_INT, 8, 1}, 1},
        {-0.99, {TINE_FLOAT, 64, 1}, {TINE_UINT, 8, 1}, 0},
        {-1.0, {TINE_FLOAT, 64, 1}, {TINE_UINT, 8, 1}, 0},
        {300.0, {TINE_FLOAT, 64, 1}, {TINE_UINT, 8, 1}, 255},
        {-300.0, {TINE_FLOAT, 32, 1}, {TINE_INT, 8, 1}, (uint64_t)-128},
        {127.9, {TINE_FLOAT, 32, 1}, {TINE_INT, 8, 1}, 127},
        {NAN, {TINE_FLOAT, 64, 1}, {TINE_INT, 32, 1}, 0},
        {INFINITY, {TINE_FLOAT, 64, 1}, {TINE_INT, 64, 1}, (uint64_t)INT64_MAX},
        {-INFINITY, {TINE_FLOAT, 32, 1}, {TINE_INT, 64, 1}, (uint64_t)INT64_MIN},
        {1.8446744073709552e19, {TINE_FLOAT, 64, 1}, {TINE_UINT, 64, 1}, UINT64_MAX},
        {1.8446744073709550e19, {TINE_FLOAT, 64, 1}, {TINE_UINT, 64, 1}, 18446744073709549568ull},
        {9.2233720368547758e18, {TINE_FLOAT, 64, 1}, {TINE_INT, 64, 1}, (uint64_t)INT64_MAX},
        {-9.2233720368547758e18, {TINE_FLOAT, 64, 1}, {TINE_INT, 64, 1}, (uint64_t)INT64_MIN},
        {2147483647.5, {TINE_FLOAT, 64, 1}, {TINE_INT, 32, 1}, 2147483647},
        {-2147483648.9, {TINE_FLOAT, 64, 1}, {TINE_INT, 32, 1}, (uint64_t)-2147483648ll},
        {NAN, {TINE_FLOAT, 32, 1}, {TINE_BOOL, 1, 1}, 1},
        {-0.0, {TINE_FLOAT, 32, 1}, {TINE_BOOL, 1, 1}, 0},
    };
    for (size_t i = 0; i < COUNT(spot); i++) {
        tine_expr_t *e = tine_cast(g_ctx, spot[i].to, tine_const_float(g_ctx, spot[i].from, spot[i].in));
        uint64_t got = 0;
        int rc = e ? tine_eval(g_ctx, e, g_env, &got) : -1;
        CHECK(rc == 0 && got == spot[i].want, "cast %s(%g) -> %s = 0x%llx, want 0x%llx", tn(spot[i].from), spot[i].in,
              tn(spot[i].to), (unsigned long long)got, (unsigned long long)spot[i].want);
    }
    static const struct { uint64_t in; tine_type_t from, to; double want; } spot2[] = {
        {16777217, {TINE_UINT, 32, 1}, {TINE_FLOAT, 32, 1}, 16777216.0},
        {16777219, {TINE_INT, 32, 1}, {TINE_FLOAT, 32, 1}, 16777220.0},
        {UINT64_MAX, {TINE_UINT, 64, 1}, {TINE_FLOAT, 64, 1}, 18446744073709551616.0},
        {UINT64_MAX, {TINE_INT, 64, 1}, {TINE_FLOAT, 32, 1}, -1.0},
        {(UINT64_C(1) << 53) + 1, {TINE_UINT, 64, 1}, {TINE_FLOAT, 64, 1}, 9007199254740992.0},
        {(UINT64_C(1) << 53) + 3, {TINE_UINT, 64, 1}, {TINE_FLOAT, 64, 1}, 9007199254740996.0},
        {(uint64_t)INT64_MIN, {TINE_INT, 64, 1}, {TINE_FLOAT, 32, 1}, -9223372036854775808.0},
        {0x8000008000000001ull, {TINE_UINT, 64, 1}, {TINE_FLOAT, 32, 1}, 9223373136366403584.0},
        {0x4000004000000001ull, {TINE_INT, 64, 1}, {TINE_FLOAT, 32, 1}, 4611686568183201792.0},
        {1, {TINE_BOOL, 1, 1}, {TINE_FLOAT, 64, 1}, 1.0},
    };
    for (size_t i = 0; i < COUNT(spot2); i++) {
        tine_expr_t *c = spot2[i].from.kind == TINE_BOOL ? tine_const_int(g_ctx, BOOL, 1)
                                                         : tine_const_lanes(g_ctx, spot2[i].from, &spot2[i].in);
        tine_expr_t *e = tine_cast(g_ctx, spot2[i].to, c);
        uint64_t got = 0;
        int rc = e ? tine_eval(g_ctx, e, g_env, &got) : -1;
        uint64_t want = fbits(spot2[i].to, spot2[i].want);
        CHECK(rc == 0 && got == want, "cast %s(0x%llx) -> %s = 0x%llx, want %.17g", tn(spot2[i].from),
              (unsigned long long)spot2[i].in, tn(spot2[i].to), (unsigned long long)got, spot2[i].want);
    }
}

static void test_reinterpret(void) {
    static const tine_type_t groups[3][3] = {
        {{TINE_UINT, 8, 1}, {TINE_INT, 8, 1}, {0, 0, 0}},
        {{TINE_UINT, 16, 1}, {TINE_INT, 16, 1}, {0, 0, 0}},
        {{TINE_UINT, 32, 1}, {TINE_INT, 32, 1}, {TINE_FLOAT, 32, 1}},
    };
    static const tine_type_t g64[3] = {{TINE_UINT, 64, 1}, {TINE_INT, 64, 1}, {TINE_FLOAT, 64, 1}};
    for (int g = 0; g < 4; g++) {
        const tine_type_t *grp = g < 3 ? groups[g] : g64;
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 3; j++) {
                if (!tine_type_valid(grp[i]) || !tine_type_valid(grp[j])) continue;
                uint64_t *a;
                size_t n = unary_inputs(grp[i], &a);
                op_arg o = {TINE_OP_REINTERPRET, grp[i], grp[j]};
                char what[64];
                snprintf(what, sizeof what, "reinterpret %s -> %s", tn(grp[i]), tn(grp[j]));
                run_elementwise(what, grp[i], grp[i], 1, a, NULL, n, build_reinterpret, ref_reinterpretfn, &o, EXACT,
                                __LINE__);
                free(a);
            }
    }
    /* by hand */
    tine_expr_t *e = tine_reinterpret(g_ctx, I32, tine_const_float(g_ctx, F32, -1.0));
    uint64_t got = 0;
    CHECK(e && tine_eval(g_ctx, e, g_env, &got) == 0 && got == 0xFFFFFFFFBF800000ull,
          "reinterpret<i32>(-1.0f) = 0x%llx, want 0xbf800000 sign-extended", (unsigned long long)got);
    e = tine_reinterpret(g_ctx, F64, tine_const_uint(g_ctx, U64, 0x3FF0000000000000ull));
    CHECK(e && tine_eval(g_ctx, e, g_env, &got) == 0 && got == bits_f64(1.0), "reinterpret<f64>(0x3ff0...) = 1.0");
    e = tine_reinterpret(g_ctx, U8, tine_const_int(g_ctx, I8, -1));
    CHECK(e && tine_eval(g_ctx, e, g_env, &got) == 0 && got == 255, "reinterpret<u8>(i8 -1) = %llu, want 255",
          (unsigned long long)got);
}

/* reinterpret to lanes of other bits (tine_bitcast). The reference goes through memory:
 * the operand's lanes stored little-endian byte by byte into an array, the result's lanes
 * read back from it the same way: how a 128-bit register holds them on every target. */
static void ref_repack(tine_type_t from, const uint64_t *in, tine_type_t to, uint64_t *out) {
    uint8_t mem[64];
    int fb = from.bits / 8, tb = to.bits / 8;
    for (int i = 0; i < from.lanes; i++)
        for (int k = 0; k < fb; k++) mem[i * fb + k] = (uint8_t)(in[i] >> (8 * k));
    for (int i = 0; i < to.lanes; i++) {
        uint64_t v = 0;
        for (int k = 0; k < tb; k++) v |= (uint64_t)mem[i * tb + k] << (8 * k);
        out[i] = to.kind == TINE_FLOAT ? v : fit(to, v);
    }
}

/* Evaluates reinterpret<to>(a) with a bound to in (from's lanes); 1 when it gives want. */
static int eval_repack(tine_type_t from, const uint64_t *in, tine_type_t to, const uint64_t *want, int line) {
    tine_env_t *env = tine_env_new(g_ctx);
    tine_expr_t *a = tine_var(g_ctx, "rp", from), *e = tine_bitcast(g_ctx, to, a);
    uint64_t got[64] = {0};
    int ok = e && tine_type_eq(tine_expr_type(e), to) && tine_env_bind(env, a, in) == 0 &&
             tine_eval(g_ctx, e, env, got) == 0;
    int lane = -1;
    for (int i = 0; ok && i < to.lanes && lane < 0; i++)
        if (got[i] != want[i]) lane = i;
    check_at(ok && lane < 0, line, "reinterpret<%s>(%s): %s%s lane %d = 0x%llx, want 0x%llx", tn(to), tn(from),
             ok ? "" : "failed: ", ok ? "" : err_or_none(g_ctx), lane, lane < 0 ? 0ull : (unsigned long long)got[lane],
             lane < 0 ? 0ull : (unsigned long long)want[lane]);
    tine_env_free(env);
    return ok && lane < 0;
}

static void test_repack(void) {
    tine_type_t u8x16 = T(TINE_UINT, 8, 16), u16x8 = T(TINE_UINT, 16, 8), u32x4 = T(TINE_UINT, 32, 4),
                u64x2 = T(TINE_UINT, 64, 2), i8x16 = T(TINE_INT, 8, 16), i16x8 = T(TINE_INT, 16, 8);
    /* by hand: lane 0 of the wider type is the narrower's lanes 0 (low) and 1 (high) */
    uint64_t bytes[16], words[8];
    for (int i = 0; i < 16; i++) bytes[i] = (uint64_t)i + 1; /* 01 02 ... 10 */
    eval_repack(u8x16, bytes, u16x8, (const uint64_t[]){0x0201, 0x0403, 0x0605, 0x0807, 0x0a09, 0x0c0b, 0x0e0d, 0x100f},
                __LINE__);
    eval_repack(u8x16, bytes, u64x2, (const uint64_t[]){0x0807060504030201ull, 0x100f0e0d0c0b0a09ull}, __LINE__);
    for (int i = 0; i < 8; i++) words[i] = 0x1234 + 0x1111 * (uint64_t)i;
    eval_repack(u16x8, words, u8x16,
                (const uint64_t[]){0x34, 0x12, 0x45, 0x23, 0x56, 0x34, 0x67, 0x45, 0x78, 0x56, 0x89, 0x67, 0x9a, 0x78,
                                   0xab, 0x89},
                __LINE__);
    eval_repack(u32x4, (const uint64_t[]){0x89abcdef, 0x01234567, 0xdeadbeef, 0xcafef00d}, u64x2,
                (const uint64_t[]){0x0123456789abcdefull, 0xcafef00ddeadbeefull}, __LINE__);
    /* signed bytes as words: the sign bits land inside the word (a u32 holds them all) */
    uint64_t sb[16] = {(uint64_t)-1, (uint64_t)-1, (uint64_t)-1, (uint64_t)-1, 0x7f, 0, 0, (uint64_t)-128,
                       (uint64_t)-2, 0x01, 0x00, 0x40, 0, 0, 0, 0};
    eval_repack(i8x16, sb, u32x4, (const uint64_t[]){0xffffffff, 0x8000007f, 0x400001fe, 0}, __LINE__);
    eval_repack(u64x2, (const uint64_t[]){0x0807060504030201ull, 0x100f0e0d0c0b0a09ull}, u8x16, bytes, __LINE__);
    /* a signed result is sign-extended by its own top bit, as every signed lane is */
    eval_repack(u8x16, (const uint64_t[]){0x00, 0x80, 0xff, 0x7f, 0xfe, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x90}, i16x8,
                (const uint64_t[]){0xffffffffffff8000ull, 0x7fff, 0xfffffffffffffffeull, 0, 0, 0, 0, 0xffffffffffff9000ull},
                __LINE__);
    /* the 1-lane form u8x8 -> u64x1, and floats: f32x2 -> u64x1 -> f32x2 */
    eval_repack(T(TINE_UINT, 8, 8), bytes, T(TINE_UINT, 64, 1), (const uint64_t[]){0x0807060504030201ull}, __LINE__);
    eval_repack(T(TINE_FLOAT, 32, 2), (const uint64_t[]){bits_f32(1.0f), bits_f32(-2.0f)}, T(TINE_UINT, 64, 1),
                (const uint64_t[]){0xc00000003f800000ull}, __LINE__);
    eval_repack(T(TINE_UINT, 64, 1), (const uint64_t[]){0xc00000003f800000ull}, T(TINE_FLOAT, 32, 2),
                (const uint64_t[]){bits_f32(1.0f), bits_f32(-2.0f)}, __LINE__);

    /* every pair of non-bool types of other bits at 128 and at 64 bits (and the 256 of an
       AVX2 register), on random lanes, against the memory reference */
    static const tine_type_t elems[10] = {{TINE_UINT, 8, 1},  {TINE_INT, 8, 1},  {TINE_UINT, 16, 1}, {TINE_INT, 16, 1},
                                          {TINE_UINT, 32, 1}, {TINE_INT, 32, 1}, {TINE_FLOAT, 32, 1}, {TINE_UINT, 64, 1},
                                          {TINE_INT, 64, 1},  {TINE_FLOAT, 64, 1}};
    static const int totals[3] = {64, 128, 256};
    for (int w = 0; w < 3; w++)
        for (int i = 0; i < 10; i++)
            for (int j = 0; j < 10; j++) {
                if (elems[i].bits == elems[j].bits) continue;
                tine_type_t from = tine_type_with_lanes(elems[i], totals[w] / elems[i].bits),
                            to = tine_type_with_lanes(elems[j], totals[w] / elems[j].bits);
                for (int round = 0; round < 8; round++) {
                    uint64_t in[32], want[32];
                    for (int l = 0; l < from.lanes; l++) {
                        uint64_t r = rnd();
                        in[l] = from.kind == TINE_FLOAT ? r & mask_of(from.bits) : fit(from, r);
                    }
                    ref_repack(from, in, to, want);
                    if (!eval_repack(from, in, to, want, __LINE__)) break;
                }
            }
    /* 128-bit lanes (a 64-bit op's double-width intermediates): i8x16 -> i128x1 */
    {
        tine_expr_t *a = tine_var(g_ctx, "rq", i8x16), *e = tine_bitcast(g_ctx, T(TINE_INT, 128, 1), a);
        tine_env_t *env = tine_env_new(g_ctx);
        uint64_t in[16];
        tine_u128 got = 0, want = 0;
        for (int i = 0; i < 16; i++) in[i] = fit(I8, (uint64_t)(0xf1 + i)); /* f1 f2 ... ff 00: the top byte 0 */
        for (int i = 15; i >= 0; i--) want = want << 8 | (in[i] & 0xff);
        CHECK(e && tine_env_bind(env, a, in) == 0 && tine_eval128(g_ctx, e, env, &got) == 0 && got == want,
              "reinterpret<i128x1>(i8x16): 0x%016llx%016llx, want 0x%016llx%016llx", (unsigned long long)(got >> 64),
              (unsigned long long)got, (unsigned long long)(want >> 64), (unsigned long long)want);
        tine_env_free(env);
    }

    /* folds: a reinterpret of a reinterpret is one node over the bits; back is the operand */
    tine_ctx_t *ctx = g_ctx;
    tine_expr_t *x = tine_var(ctx, "fx", u8x16), *w16 = tine_bitcast(ctx, u16x8, x);
    CHECK(w16 && tine_expr_op(w16) == TINE_OP_REINTERPRET && tine_expr_operand(w16, 0) == x &&
              tine_type_eq(tine_expr_type(w16), u16x8),
          "reinterpret<u16x8>(x_u8x16) is one node over x");
    CHECK(tine_bitcast(ctx, u16x8, x) == w16, "built twice, the same node");
    CHECK(tine_bitcast(ctx, u8x16, w16) == x, "reinterpret<u8x16>(reinterpret<u16x8>(x)) is x");
    CHECK(tine_bitcast(ctx, u8x16, x) == x, "a reinterpret to the operand's own type is the operand");
    tine_expr_t *w32 = tine_bitcast(ctx, u32x4, w16);
    CHECK(w32 && tine_expr_operand(w32, 0) == x && tine_type_eq(tine_expr_type(w32), u32x4),
          "reinterpret<u32x4>(reinterpret<u16x8>(x_u8x16)) is reinterpret<u32x4>(x_u8x16)");
    tine_expr_t *s16 = tine_reinterpret(ctx, I16, w16);
    CHECK(s16 && tine_expr_operand(s16, 0) == x && tine_type_eq(tine_expr_type(s16), i16x8),
          "reinterpret<i16>(reinterpret<u16x8>(x_u8x16)) is reinterpret<i16x8>(x_u8x16)");
    /* an element-only reinterpret keeps its operand's lanes: u8 of a u16x8 is no repack */
    EXPECT_ERR(ctx, tine_reinterpret(ctx, U8, w16), "same bits: u16x8 to u8x8");
    CHECK(tine_bitcast(ctx, i8x16, x) == tine_reinterpret(ctx, I8, x), "at equal lanes it is tine_reinterpret");
    CHECK(tine_bitcast(ctx, u8x16, tine_bitcast(ctx, i16x8, tine_reinterpret(ctx, I8, x))) == x,
          "u8x16 -> i8x16 -> i16x8 -> u8x16 is the operand");
    /* errors: total bits, bool, invalid types, a NULL operand */
    EXPECT_ERR(ctx, tine_bitcast(ctx, T(TINE_UINT, 16, 4), x), "same total bits: u8x16 (128 bits) to u16x4 (64 bits)");
    EXPECT_ERR(ctx, tine_bitcast(ctx, T(TINE_UINT, 64, 4), x), "same total bits");
    EXPECT_ERR(ctx, tine_bitcast(ctx, T(TINE_BOOL, 1, 128), x), "non-bool");
    EXPECT_ERR(ctx, tine_bitcast(ctx, u8x16, tine_var(ctx, "fb", T(TINE_BOOL, 1, 128))), "non-bool");
    EXPECT_ERR(ctx, tine_bitcast(ctx, T(TINE_BOOL, 1, 16), x), "non-bool");
    EXPECT_ERR(ctx, tine_bitcast(ctx, T(TINE_UINT, 16, 0), x), "invalid type");
    EXPECT_ERR(ctx, tine_bitcast(ctx, T(TINE_FLOAT, 16, 8), x), "invalid type");
    EXPECT_ERR(ctx, tine_reinterpret(ctx, U16, x), "same bits: u8x16 to u16x16");
    tine_clear_error(ctx);
    CHECK(tine_bitcast(ctx, u16x8, NULL) == NULL, "a NULL operand gives NULL");
}

static void test_float_ops(void) {
    for (size_t ti = 0; ti < COUNT(FLOAT_TYPES); ti++) {
        tine_type_t t = FLOAT_TYPES[ti];
        uint64_t *a, *b;
        size_t n = pair_inputs(t, t, &a, &b);
        for (size_t oi = 0; oi < COUNT(FLOAT_BINOPS); oi++) {
            op_arg o = {FLOAT_BINOPS[oi], t, t};
            char what[64];
            snprintf(what, sizeof what, "%s on %s", tine_op_name(o.op), tn(t));
            int arith = o.op == TINE_OP_ADD || o.op == TINE_OP_SUB || o.op == TINE_OP_MUL || o.op == TINE_OP_DIV;
            run_elementwise(what, t, t, 2, a, b, n, build_binary, ref_binary, &o, arith ? NAN_CLASS : EXACT,
                            __LINE__);
        }
        free(a);
        free(b);
        n = unary_inputs(t, &a);
        op_arg sq = {TINE_OP_SQRT, t, t}, ng = {TINE_OP_NEG, t, t};
        char what[64];
        snprintf(what, sizeof what, "sqrt on %s", tn(t));
        run_elementwise(what, t, t, 1, a, NULL, n, build_unary, ref_unary, &sq, NAN_CLASS, __LINE__);
        snprintf(what, sizeof what, "neg on %s (a sign flip, NaNs included)", tn(t));
        run_elementwise(what, t, t, 1, a, NULL, n, build_unary, ref_unary, &ng, EXACT, __LINE__);
        free(a);
    }
    /* min/max are selects on < and >: a NaN operand yields the second operand; -0 vs +0 too */
    static const struct { tine_op_t op; double a, b, want; } spot[] = {
        {TINE_OP_MIN, NAN, 1.0, 1.0}, {TINE_OP_MIN, 1.0, NAN, NAN},  {TINE_OP_MAX, NAN, 1.0, 1.0},
        {TINE_OP_MAX, 1.0, NAN, NAN}, {TINE_OP_MIN, -0.0, 0.0, 0.0}, {TINE_OP_MIN, 0.0, -0.0, -0.0},
        {TINE_OP_MAX, 2.0, 3.0, 3.0}, {TINE_OP_MIN, -INFINITY, 3.0, -INFINITY},
        /* NaN either side and both zeros, both orders: a < b false gives the second */
        {TINE_OP_MIN, NAN, NAN, NAN},         {TINE_OP_MAX, -0.0, 0.0, 0.0},       {TINE_OP_MAX, 0.0, -0.0, -0.0},
        {TINE_OP_MIN, INFINITY, NAN, NAN},    {TINE_OP_MAX, NAN, -INFINITY, -INFINITY},
        {TINE_OP_MIN, 5e-324, 0.0, 0.0},      {TINE_OP_MAX, -5e-324, -0.0, -0.0},
    };
    for (size_t i = 0; i < COUNT(spot); i++)
        for (size_t ti = 0; ti < 2; ti++) {
            tine_type_t t = FLOAT_TYPES[ti];
            tine_expr_t *e = tine_binary(g_ctx, spot[i].op, tine_const_float(g_ctx, t, spot[i].a),
                                         tine_const_float(g_ctx, t, spot[i].b));
            uint64_t got = 0;
            int rc = e ? tine_eval(g_ctx, e, g_env, &got) : -1;
            CHECK(rc == 0 && got == fbits(t, spot[i].want), "%s(%g, %g) on %s = %g, want %g", tine_op_name(spot[i].op),
                  spot[i].a, spot[i].b, tn(t), fval(t, got), spot[i].want);
        }
}

/* abs of a float: the sign bit cleared, every other bit kept (a NaN keeps its payload). */
static tine_expr_t *build_fabs(tine_ctx_t *ctx, const void *arg, tine_expr_t *x, tine_expr_t *y) {
    (void)arg, (void)y;
    return tine_abs(ctx, x);
}

static uint64_t ref_fabs(const void *arg, uint64_t a, uint64_t b) {
    (void)b;
    const tine_type_t *t = arg;
    return a & (t->bits == 32 ? 0x7fffffffu : ~(UINT64_C(1) << 63));
}

/* fma(a, b, c) against C's fmaf/fma: every triple of a set of edge values (zeros, infinities,
 * NaNs, denormals, the largest finite) and random triples, 256 lanes an evaluation; a NaN
 * result only has to be a NaN (NAN_CLASS: C pins no payload). */
static void fma_lanes_check(tine_type_t t) {
    static const double edge_d[] = {0.0, -0.0, 1.0, -1.0, 0.5, 3.0, -7.25, 1e-30, 1e30, INFINITY, -INFINITY, NAN};
    uint64_t edge[COUNT(edge_d) + 3];
    size_t ne = 0;
    for (size_t i = 0; i < COUNT(edge_d); i++) edge[ne++] = fbits(t, edge_d[i]);
    edge[ne++] = t.bits == 32 ? 0x00000001u : 1;                                             /* the smallest denormal */
    edge[ne++] = t.bits == 32 ? 0x807fffffu : 0x800fffffffffffffull;                         /* the largest, negative */
    edge[ne++] = t.bits == 32 ? 0x7f7fffffu : 0x7fefffffffffffffull;                         /* the largest finite */
    size_t n = ne * ne * ne + NRANDOM;
    uint64_t *a = malloc(sizeof *a * n), *b = malloc(sizeof *b * n), *c = malloc(sizeof *c * n);
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++)
            for (size_t l = 0; l < ne; l++) a[k] = edge[i], b[k] = edge[j], c[k++] = edge[l];
    for (; k < n; k++) a[k] = rand_float(t), b[k] = rand_float(t), c[k] = rand_float(t);
    char what[64];
    snprintf(what, sizeof what, "fma on %s", tn(t));
    for (size_t start = 0; start < n; start += TINE_MAX_LANES) {
        int L = (int)(n - start < TINE_MAX_LANES ? n - start : TINE_MAX_LANES);
        tine_expr_t *v[3] = {var(g_ctx, "x", t, L), var(g_ctx, "y", t, L), var(g_ctx, "z", t, L)};
        uint64_t *vals[3] = {a + start, b + start, c + start}, want[TINE_MAX_LANES];
        for (int i = 0; i < L; i++)
            want[i] = t.bits == 32 ? bits_f32(fmaf(f32_of(a[start + i]), f32_of(b[start + i]), f32_of(c[start + i])))
                                   : bits_f64(fma(f64_of(a[start + i]), f64_of(b[start + i]), f64_of(c[start + i])));
        eval_expect(g_ctx, what, tine_fma(g_ctx, v[0], v[1], v[2]), 3, v, vals, want, NAN_CLASS, __LINE__);
    }
    free(a);
    free(b);
    free(c);
}

/* The float ops beyond the arithmetic C's operators give: fma (one rounding), abs (the sign
 * bit), conversions at their edges, and their text. */
static void test_float_more(void) {
    for (size_t ti = 0; ti < COUNT(FLOAT_TYPES); ti++) {
        tine_type_t t = FLOAT_TYPES[ti];
        fma_lanes_check(t);
        uint64_t *a;
        size_t n = unary_inputs(t, &a);
        char what[64];
        snprintf(what, sizeof what, "abs on %s (the sign bit cleared, NaNs kept)", tn(t));
        run_elementwise(what, t, t, 1, a, NULL, n, build_fabs, ref_fabs, &t, EXACT, __LINE__);
        free(a);
    }
    /* one rounding: (1 + e)(1 - e) - 1 is -e^2 exactly, which a*b+c rounds away to 0 */
    {
        tine_type_t t = F32;
        float e = ldexpf(1.0f, -20);
        tine_expr_t *x = tine_const_float(g_ctx, t, 1.0 + e), *y = tine_const_float(g_ctx, t, 1.0 - e),
                    *z = tine_const_float(g_ctx, t, -1.0);
        uint64_t fused = 0, split = 0;
        int rc = tine_eval(g_ctx, tine_fma(g_ctx, x, y, z), g_env, &fused);
        rc |= tine_eval(g_ctx, tine_binary(g_ctx, TINE_OP_ADD, tine_binary(g_ctx, TINE_OP_MUL, x, y), z), g_env, &split);
        CHECK(rc == 0 && fused == bits_f32(-ldexpf(1.0f, -40)) && split == bits_f32(0.0f),
              "fma(1+2^-20, 1-2^-20, -1) = %g (want -2^-40), a*b+c = %g (want 0)", fval(t, fused), fval(t, split));
    }
    /* the edges of conversions: NaN -> 0, saturation both ways, -0 -> 0, denormals -> 0,
       rounding to nearest even of int -> float, f64 -> f32 overflow to inf and denormal */
    static const struct { const char *text; uint64_t want; } conv[] = {
        {"i32(f64(nan))", 0},
        {"i32(-f64(nan))", 0},
        {"i32(f32(inf))", 0x7fffffff},
        {"i32(-f64(inf))", (uint64_t)(int64_t)INT32_MIN},
        {"u8(f64(-0.75))", 0},
        {"u8(f32(300.0))", 255},
        {"i8(f32(-0.0))", 0},
        {"i64(f32(5e-40))", 0},
        {"reinterpret<u32>(f32(16777217))", 0x4b800000},           /* 2^24 + 1: even, down */
        {"reinterpret<u32>(f32(16777219))", 0x4b800002},           /* 2^24 + 3: even, up */
        {"reinterpret<u32>(f32(f64(1e300)))", 0x7f800000},
        {"reinterpret<u32>(f32(-1e-50))", 0x80000000},
        {"reinterpret<u32>(f32(1e-40))", 0x000116c2},              /* a denormal, rounded */
        {"reinterpret<u64>(f64(u64(18446744073709551615)))", 0x43f0000000000000ull},
        {"reinterpret<u32>(abs(reinterpret<f32>(u32(4290000000))))", 4290000000u & 0x7fffffffu},
        {"reinterpret<u32>(fma(2.0, f32(3), -0.5))", 0x40b00000},   /* 5.5 */
    };
    for (size_t i = 0; i < COUNT(conv); i++) {
        tine_expr_t *e = tine_parse(g_ctx, conv[i].text, NULL);
        uint64_t lanes[TINE_MAX_LANES] = {0}, got; /* at the context's lanes, all alike */
        int rc = e ? tine_eval(g_ctx, e, g_env, lanes) : -1;
        got = lanes[0];
        CHECK(rc == 0 && got == conv[i].want, "%s = 0x%llx, want 0x%llx (%s)", conv[i].text, (unsigned long long)got,
              (unsigned long long)conv[i].want, rc ? err_or_none(g_ctx) : "");
    }
    /* fma prints and reads back; it takes floats of one type only */
    {
        tine_expr_t *e = tine_parse(g_ctx, "fma(a_f32x4, b_f32x4, c_f32x4 + 1.5)", NULL);
        char *txt = e ? tine_print(g_ctx, e) : NULL;
        tine_expr_t *back = txt ? tine_parse(g_ctx, txt, NULL) : NULL;
        CHECK(e && back == e && tine_expr_type(e).lanes == 4, "fma round trip: %s", txt ? txt : err_or_none(g_ctx));
        free(txt);
        tine_type_t i32 = T(TINE_INT, 32, 1);
        tine_expr_t *x = var(g_ctx, "x", F32, 1), *n = var(g_ctx, "n", i32, 1), *d = var(g_ctx, "d", F64, 1);
        EXPECT_ERR(g_ctx, tine_fma(g_ctx, n, n, n), "fma is not defined on i32");
        EXPECT_ERR(g_ctx, tine_fma(g_ctx, x, x, d), "fma: operand types differ");
    }
}

/* Values wider than 64 bits in the middle of an expression: the high half of a 64x64
 * product through i128/u128, against C's unsigned __int128. */
static void test_double_width(void) {
    for (int sgn = 0; sgn < 2; sgn++) {
        tine_type_t t = sgn ? I64 : U64, w = tine_type_widen(t);
        uint64_t a[256], b[256], want[256];
        for (int i = 0; i < 256; i++) {
            a[i] = i < 16 ? (i & 1 ? imax(t) : imin(t)) : rnd();
            b[i] = i < 16 ? (i & 2 ? imax(t) : imin(t)) : rnd();
            __int128 p = sgn ? (__int128)sv(a[i]) * sv(b[i]) : (__int128)((unsigned __int128)a[i] * b[i]);
            want[i] = (uint64_t)((unsigned __int128)p >> 64);
        }
        tine_expr_t *vars[2] = {var(g_ctx, "x", t, 256), var(g_ctx, "y", t, 256)};
        uint64_t *vals[2] = {a, b};
        tine_expr_t *p = tine_binary(g_ctx, TINE_OP_MUL, tine_cast(g_ctx, w, vars[0]), tine_cast(g_ctx, w, vars[1]));
        tine_expr_t *e = tine_cast(g_ctx, t, tine_binary(g_ctx, TINE_OP_SHR, p,
                                                        tine_const_int(g_ctx, tine_type_with_lanes(w, 256), 64)));
        eval_expect(g_ctx, sgn ? "high half of i64 * i64 via i128" : "high half of u64 * u64 via u128", e, 2, vars,
                    vals, want, EXACT, __LINE__);
        uint64_t out[256];
        tine_env_t *env = tine_env_new(g_ctx);
        tine_env_bind(env, vars[0], a);
        tine_env_bind(env, vars[1], b);
        tine_clear_error(g_ctx);
        int rc = tine_eval(g_ctx, p, env, out);
        CHECK(rc == -1 && tine_error(g_ctx) && strstr(tine_error(g_ctx), "at most 64 bits"),
              "tine_eval refuses a 128-bit result: %s", err_or_none(g_ctx));
        tine_env_free(env);
    }
}

/* ---- 5. vector ops, constants, loads, binding errors ------------------------------------- */

static void test_vector_ops(void) {
    tine_ctx_t *ctx = g_ctx;
    char what[96];

    /* broadcast */
    {
        tine_expr_t *s = var(ctx, "s", I16, 1);
        uint64_t sv1[1] = {(uint64_t)-5}, want[8];
        for (int i = 0; i < 8; i++) want[i] = (uint64_t)-5;
        uint64_t *vals[1] = {sv1};
        eval_expect(ctx, "broadcast(i16 -5, 8)", tine_broadcast(ctx, s, 8), 1, &s, vals, want, EXACT, __LINE__);
        for (int i = 0; i < 8; i++) want[i] = bits_f32(2.5f);
        eval_expect(ctx, "broadcast(f32 2.5, 8)", tine_broadcast(ctx, tine_const_float(ctx, F32, 2.5), 8), 0, NULL,
                    NULL, want, EXACT, __LINE__);
        tine_expr_t *sum = tine_binary(ctx, TINE_OP_ADD, tine_broadcast(ctx, s, 4), var(ctx, "v", I16, 4));
        uint64_t vv[4] = {1, 2, 3, (uint64_t)-32768}, w4[4] = {(uint64_t)-4, (uint64_t)-3, (uint64_t)-2, 32763};
        tine_expr_t *vs[2] = {s, var(ctx, "v", I16, 4)};
        uint64_t *vl[2] = {sv1, vv};
        eval_expect(ctx, "broadcast(s) + v", sum, 2, vs, vl, w4, EXACT, __LINE__);
    }

    /* ramp: base + i * stride, wrapping */
    {
        static const struct { tine_type_t t; uint64_t base, stride; int lanes; } ramps[] = {
            {{TINE_UINT, 8, 1}, 250, 3, 8},
            {{TINE_INT, 8, 1}, 120, 5, 16},
            {{TINE_INT, 32, 1}, (uint64_t)-5, (uint64_t)-7, 16},
            {{TINE_UINT, 64, 1}, UINT64_MAX - 1, UINT64_C(1) << 63, 5},
            {{TINE_INT, 16, 1}, 0, 0x4000, 256},
        };
        for (size_t k = 0; k < COUNT(ramps); k++) {
            tine_type_t t = ramps[k].t;
            tine_expr_t *vars[2] = {var(ctx, "b", t, 1), var(ctx, "st", t, 1)};
            uint64_t b[1] = {ramps[k].base}, st[1] = {ramps[k].stride}, want[256];
            uint64_t *vals[2] = {b, st};
            for (int i = 0; i < ramps[k].lanes; i++) want[i] = fit(t, ramps[k].base + (uint64_t)i * ramps[k].stride);
            snprintf(what, sizeof what, "ramp(%s %lld, %lld, %d)", tn(t), (long long)sv(ramps[k].base),
                     (long long)sv(ramps[k].stride), ramps[k].lanes);
            eval_expect(ctx, what, tine_ramp(ctx, vars[0], vars[1], ramps[k].lanes), 2, vars, vals, want, EXACT,
                        __LINE__);
        }
    }

    /* concat */
    {
        tine_expr_t *p = var(ctx, "p", U16, 2), *q = var(ctx, "q", U16, 3), *r = var(ctx, "r", U16, 4);
        uint64_t pv[2] = {1, 2}, qv[3] = {3, 4, 5}, rv[4] = {6, 7, 8, 65535};
        tine_expr_t *vars[3] = {p, q, r}, *order[3] = {r, p, q};
        uint64_t *vals[3] = {pv, qv, rv};
        uint64_t want[9] = {6, 7, 8, 65535, 1, 2, 3, 4, 5};
        eval_expect(ctx, "concat(r, p, q)", tine_concat(ctx, 3, order), 3, vars, vals, want, EXACT, __LINE__);
        tine_expr_t *big[2] = {var(ctx, "big", U8, 128), var(ctx, "big2", U8, 128)};
        uint64_t b1[128], b2[128], w256[256];
        for (int i = 0; i < 128; i++) b1[i] = (uint64_t)i, b2[i] = (uint64_t)(255 - i), w256[i] = b1[i],
                                       w256[128 + i] = b2[i];
        uint64_t *bv[2] = {b1, b2};
        eval_expect(ctx, "concat of two 128-lane vectors", tine_concat(ctx, 2, big), 2, big, bv, w256, EXACT,
                    __LINE__);
    }

    /* slice: every valid (begin, stride, count) on 16 lanes */
    {
        tine_expr_t *v = var(ctx, "v", U32, 16);
        uint64_t vv[16];
        for (int i = 0; i < 16; i++) vv[i] = 100u + (uint64_t)i * 7u;
        uint64_t *vals[1] = {vv};
        int nslices = 0, bad = 0;
        for (int begin = 0; begin < 16; begin++)
            for (int stride = 1; stride < 16; stride++)
                for (int count = 1; begin + stride * (count - 1) < 16; count++) {
                    uint64_t want[16];
                    for (int i = 0; i < count; i++) want[i] = vv[begin + i * stride];
                    long before = g_fail;
                    snprintf(what, sizeof what, "slice(v, %d, %d, %d)", begin, stride, count);
                    eval_expect(ctx, what, tine_slice(ctx, v, begin, stride, count), 1, &v, vals, want, EXACT, __LINE__);
                    bad += g_fail != before;
                    nslices++;
                }
        CHECK(nslices > 200 && bad == 0, "%d slices of 16 lanes, %d wrong", nslices, bad);
    }

    /* interleave and deinterleave */
    {
        for (int n = 2; n <= 4; n++) {
            tine_expr_t *vs[4];
            uint64_t data[4][4], *vals[4], want[16];
            const char *names[4] = {"i0", "i1", "i2", "i3"};
            for (int j = 0; j < n; j++) {
                vs[j] = var(ctx, names[j], I8, 4);
                for (int i = 0; i < 4; i++) data[j][i] = fit(I8, (uint64_t)(10 * j + i - 20));
                vals[j] = data[j];
            }
            for (int i = 0; i < 4; i++)
                for (int j = 0; j < n; j++) want[i * n + j] = data[j][i]; /* lane i*n + j is lane i of v[j] */
            snprintf(what, sizeof what, "interleave of %d vectors", n);
            tine_expr_t *il = tine_interleave(ctx, n, vs);
            eval_expect(ctx, what, il, n, vs, vals, want, EXACT, __LINE__);
            for (int k = 0; k < n; k++) {
                snprintf(what, sizeof what, "deinterleave(interleave of %d, %d, %d) is v[%d]", n, n, k, k);
                eval_expect(ctx, what, tine_deinterleave(ctx, il, n, k), n, vs, vals, data[k], EXACT, __LINE__);
            }
        }
        tine_expr_t *v = var(ctx, "w", U64, 12);
        uint64_t vv[12];
        for (int i = 0; i < 12; i++) vv[i] = UINT64_MAX - (uint64_t)i;
        uint64_t *vals[1] = {vv};
        const int ns[] = {1, 2, 3, 4, 6, 12};
        for (size_t a = 0; a < COUNT(ns); a++)
            for (int k = 0; k < ns[a]; k++) {
                uint64_t want[12];
                for (int i = 0; i < 12 / ns[a]; i++) want[i] = vv[k + i * ns[a]];
                snprintf(what, sizeof what, "deinterleave(12 lanes, %d, %d)", ns[a], k);
                eval_expect(ctx, what, tine_deinterleave(ctx, v, ns[a], k), 1, &v, vals, want, EXACT, __LINE__);
            }
    }

    /* vector_reduce_add: wrapping sums of adjacent groups */
    {
        const tine_type_t types[] = {{TINE_UINT, 8, 1}, {TINE_INT, 16, 1}, {TINE_UINT, 64, 1}, {TINE_INT, 8, 1}};
        for (size_t ti = 0; ti < COUNT(types); ti++) {
            tine_type_t t = types[ti];
            tine_expr_t *v = var(ctx, "r", t, 32);
            uint64_t vv[32];
            for (int i = 0; i < 32; i++) vv[i] = i % 3 ? imax(t) - (uint64_t)i : rand_int(t);
            uint64_t *vals[1] = {vv};
            for (int lanes = 1; lanes <= 32; lanes *= 2) {
                int g = 32 / lanes;
                uint64_t want[32];
                for (int i = 0; i < lanes; i++) {
                    uint64_t s = 0;
                    for (int j = 0; j < g; j++) s += vv[i * g + j];
                    want[i] = fit(t, s);
                }
                snprintf(what, sizeof what, "vector_reduce_add(%s x32, %d)", tn(t), lanes);
                eval_expect(ctx, what, tine_vector_reduce_add(ctx, v, lanes), 1, &v, vals, want, EXACT, __LINE__);
            }
        }
        tine_expr_t *v = var(ctx, "fr", F64, 8);
        uint64_t vv[8], want[2] = {bits_f64(1 + 2 + 3 + 4.5), bits_f64(-1 - 2 - 3 - 0.25)};
        const double d[8] = {1, 2, 3, 4.5, -1, -2, -3, -0.25};
        for (int i = 0; i < 8; i++) vv[i] = bits_f64(d[i]);
        uint64_t *vals[1] = {vv};
        eval_expect(ctx, "vector_reduce_add(f64x8, 2)", tine_vector_reduce_add(ctx, v, 2), 1, &v, vals, want, EXACT,
                    __LINE__);
    }

    /* per-lane constants */
    {
        static const struct { tine_type_t t; int n; uint64_t v[8]; } cs[] = {
            {{TINE_INT, 16, 8}, 8, {0, 1, (uint64_t)-1, 32767, (uint64_t)-32768, 5, (uint64_t)-5, 100}},
            {{TINE_UINT, 64, 4}, 4, {UINT64_MAX, 0, 1ull << 63, 12345}},
            {{TINE_UINT, 8, 5}, 5, {255, 0, 128, 7, 7}},
            {{TINE_BOOL, 1, 6}, 6, {1, 0, 0, 1, 1, 0}},
            {{TINE_FLOAT, 32, 3}, 3, {0x3f800000, 0x7fc00000, 0x80000000}},
            {{TINE_FLOAT, 64, 2}, 2, {0x400921fb54442d18ull, 0xfff0000000000000ull}},
        };
        for (size_t k = 0; k < COUNT(cs); k++) {
            tine_expr_t *c = tine_const_lanes(ctx, cs[k].t, cs[k].v);
            int lanes_ok = c != NULL;
            for (int i = 0; c && i < cs[k].n; i++) lanes_ok &= tine_expr_const_lane(c, i) == cs[k].v[i];
            CHECK(lanes_ok, "tine_expr_const_lane of a %s constant", tn(cs[k].t));
            snprintf(what, sizeof what, "per-lane constant %s", tn(cs[k].t));
            eval_expect(ctx, what, c, 0, NULL, NULL, cs[k].v, EXACT, __LINE__);
        }
        tine_expr_t *c = tine_const_lanes(ctx, T(TINE_INT, 16, 8), cs[0].v);
        tine_expr_t *x = var(ctx, "x", I16, 8);
        uint64_t xv[8] = {1, 1, 1, 1, 1, 1, 1, 1}, want[8];
        for (int i = 0; i < 8; i++) want[i] = fit(I16, cs[0].v[i] + 1);
        uint64_t *vals[1] = {xv};
        eval_expect(ctx, "per-lane constant + x", tine_binary(ctx, TINE_OP_ADD, c, x), 1, &x, vals, want, EXACT,
                    __LINE__);
        uint64_t f3[1];
        CHECK(tine_eval(ctx, tine_const_int(ctx, F32, 3), g_env, f3) == 0 && f3[0] == bits_f32(3.0f),
              "tine_const_int on f32 makes 3.0f");
    }
}

static void test_loads(void) {
    tine_ctx_t *ctx = g_ctx;
    enum { N = 100 };
    uint8_t u8[N];
    uint16_t u16[N];
    uint32_t u32[N];
    uint64_t u64[N];
    int8_t i8[N];
    int16_t i16[N];
    int32_t i32[N];
    int64_t i64[N];
    float f32[N];
    double f64[N];
    for (int i = 0; i < N; i++) {
        u8[i] = (uint8_t)(i * 37 + 5);
        u16[i] = (uint16_t)(i * 4099 + 1);
        u32[i] = (uint32_t)i * 2654435761u;
        u64[i] = (uint64_t)i * 0x9E3779B97F4A7C15ull;
        i8[i] = (int8_t)(i * 37 - 128);
        i16[i] = (int16_t)(i * 977 - 32768);
        i32[i] = (int32_t)((uint32_t)i * 2654435761u);
        i64[i] = (int64_t)((uint64_t)i * 0x9E3779B97F4A7C15ull);
        f32[i] = (float)i * -0.75f + 3.0f;
        f64[i] = (double)i / 3.0 - 7.0;
    }
    static const int32_t idx[16] = {0, 99, 50, 1, 98, 3, 3, 7, 0, 42, 17, 99, 64, 5, 2, 0};
    struct { const char *name; tine_type_t t; const void *data; } bufs[] = {
        {"bu8", U8, u8},   {"bu16", U16, u16}, {"bu32", U32, u32}, {"bu64", U64, u64}, {"bi8", I8, i8},
        {"bi16", I16, i16}, {"bi32", I32, i32}, {"bi64", I64, i64}, {"bf32", F32, f32}, {"bf64", F64, f64},
    };
    tine_expr_t *ix = var(ctx, "ix", I32, 16);
    uint64_t iv[16];
    for (int i = 0; i < 16; i++) iv[i] = (uint64_t)(int64_t)idx[i];
    for (size_t k = 0; k < COUNT(bufs); k++) {
        tine_type_t t = bufs[k].t;
        uint64_t want[16];
        for (int i = 0; i < 16; i++) {
            int j = idx[i];
            switch (k) {
            case 0: want[i] = u8[j]; break;
            case 1: want[i] = u16[j]; break;
            case 2: want[i] = u32[j]; break;
            case 3: want[i] = u64[j]; break;
            case 4: want[i] = (uint64_t)(int64_t)i8[j]; break;
            case 5: want[i] = (uint64_t)(int64_t)i16[j]; break;
            case 6: want[i] = (uint64_t)(int64_t)i32[j]; break;
            case 7: want[i] = (uint64_t)i64[j]; break;
            case 8: want[i] = bits_f32(f32[j]); break;
            default: want[i] = bits_f64(f64[j]); break;
            }
        }
        tine_env_t *env = tine_env_new(ctx);
        CHECK(tine_env_bind_buffer(env, bufs[k].name, t, bufs[k].data, N) == 0, "bind buffer %s", bufs[k].name);
        tine_env_bind(env, ix, iv);
        uint64_t got[16];
        tine_expr_t *e = tine_load(ctx, bufs[k].name, t, ix);
        int rc = e ? tine_eval(ctx, e, env, got) : -1;
        int ok = rc == 0 && memcmp(got, want, sizeof want) == 0;
        CHECK(ok, "gathered load from a %s buffer: %s", tn(t), rc ? err_or_none(ctx) : "wrong lanes");
        CHECK(e && tine_type_eq(tine_expr_type(e), tine_type_with_lanes(t, 16)) &&
                  strcmp(tine_expr_name(e), bufs[k].name) == 0,
              "a load's type and buffer name");

        /* out of bounds, both ends */
        static const int32_t oob[2] = {N, -1};
        for (int s = 0; s < 2; s++) {
            uint64_t bad[16];
            memcpy(bad, iv, sizeof bad);
            bad[5] = (uint64_t)(int64_t)oob[s];
            tine_env_bind(env, ix, bad);
            tine_clear_error(ctx);
            rc = tine_eval(ctx, e, env, got);
            char want_msg[64];
            snprintf(want_msg, sizeof want_msg, "load from %s at index %d is out of bounds", bufs[k].name, oob[s]);
            CHECK(rc == -1 && tine_error(ctx) && strstr(tine_error(ctx), want_msg),
                  "out-of-bounds load: want -1 and '%s', got %d and %s", want_msg, rc, err_or_none(ctx));
        }
        tine_env_free(env);
    }

    /* unbound buffer; buffer of another element type; bad element types */
    tine_env_t *env = tine_env_new(ctx);
    tine_env_bind(env, ix, iv);
    uint64_t got[16];
    tine_clear_error(ctx);
    int rc = tine_eval(ctx, tine_load(ctx, "nowhere", U8, ix), env, got);
    CHECK(rc == -1 && tine_error(ctx) && strstr(tine_error(ctx), "buffer nowhere is not bound"),
          "load from an unbound buffer: %s", err_or_none(ctx));
    tine_env_bind_buffer(env, "bytes", U8, u8, N);
    tine_clear_error(ctx);
    rc = tine_eval(ctx, tine_load(ctx, "bytes", I8, ix), env, got);
    CHECK(rc == -1 && tine_error(ctx) && strstr(tine_error(ctx), "buffer bytes holds u8 but is loaded as i8"),
          "load with another element type: %s", err_or_none(ctx));
    tine_clear_error(ctx);
    rc = tine_eval(ctx, tine_load(ctx, "bytes", U16, ix), env, got);
    CHECK(rc == -1 && tine_error(ctx) && strstr(tine_error(ctx), "holds u8 but is loaded as u16"),
          "load with another width: %s", err_or_none(ctx));
    /* rebinding a name replaces the buffer */
    tine_env_bind_buffer(env, "bytes", I8, i8, N);
    rc = tine_eval(ctx, tine_load(ctx, "bytes", I8, ix), env, got);
    CHECK(rc == 0 && got[1] == (uint64_t)(int64_t)i8[99], "a rebound buffer is used");
    tine_clear_error(ctx);
    CHECK(tine_env_bind_buffer(env, "b", BOOL, u8, N) == -1 && tine_error(ctx) &&
              strstr(tine_error(ctx), "element type must be"),
          "a bool buffer is refused: %s", err_or_none(ctx));
    CHECK(tine_env_bind_buffer(env, "b", T(TINE_UINT, 128, 1), u8, N) == -1, "a 128-bit buffer is refused");
    tine_env_free(env);

    /* unbound variable */
    env = tine_env_new(ctx);
    tine_expr_t *x = var(ctx, "unbound_x", I16, 4), *y = var(ctx, "y", I16, 4);
    uint64_t yv[4] = {1, 2, 3, 4};
    tine_env_bind(env, y, yv);
    tine_clear_error(ctx);
    rc = tine_eval(ctx, tine_binary(ctx, TINE_OP_ADD, y, x), env, got);
    CHECK(rc == -1 && tine_error(ctx) && strstr(tine_error(ctx), "variable unbound_x_i16 is not bound"),
          "unbound variable: %s", err_or_none(ctx));
    /* the same name with another type is another variable */
    tine_expr_t *y8 = var(ctx, "y", I16, 8);
    tine_clear_error(ctx);
    rc = tine_eval(ctx, y8, env, got);
    CHECK(rc == -1 && tine_error(ctx) && strstr(tine_error(ctx), "not bound"),
          "y_i16x4 bound does not bind y_i16x8: %s", err_or_none(ctx));
    tine_clear_error(ctx);
    CHECK(tine_env_bind(env, tine_binary(ctx, TINE_OP_ADD, y, y), yv) == -1 && tine_error(ctx) &&
              strstr(tine_error(ctx), "not a variable"),
          "binding a non-variable is refused");
    /* without any environment */
    tine_clear_error(ctx);
    rc = tine_eval(ctx, tine_const_int(ctx, U8, 3), env, got);
    CHECK(rc == 0 && got[0] == 3, "a constant evaluates in any environment");
    tine_clear_error(ctx);
    CHECK(tine_eval(ctx, NULL, env, got) == -1 && tine_error(ctx), "tine_eval(NULL) fails with an error");
    tine_env_free(env);
}

/* ---- 6. DAG evaluation -------------------------------------------------------------------- */

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void test_dags(void) {
    /* a chain 200,000 deep: ((a + 1) + 2) + ... built through the API */
    tine_ctx_t *ctx = tine_ctx_new();
    enum { DEPTH = 200000 };
    tine_expr_t *a = tine_var(ctx, "a", T(TINE_UINT, 32, 4)), *e = a;
    uint64_t av[4] = {0, 1, 0xFFFFFFFFu, 123456789}, want[4], got[4];
    uint64_t inc = 0;
    for (uint32_t i = 1; i <= DEPTH; i++) {
        e = tine_binary(ctx, i % 3 ? TINE_OP_ADD : TINE_OP_SUB, e, tine_const_uint(ctx, T(TINE_UINT, 32, 4), i));
        inc += i % 3 ? i : 0 - (uint64_t)i;
    }
    for (int i = 0; i < 4; i++) want[i] = (av[i] + inc) & 0xFFFFFFFFu;
    CHECK(e != NULL && tine_ctx_nodes(ctx) == 2 * DEPTH + 1, "a chain of %d ops has %zu nodes", DEPTH,
          tine_ctx_nodes(ctx));
    tine_env_t *env = tine_env_new(ctx);
    tine_env_bind(env, a, av);
    double t0 = now();
    int rc = tine_eval(ctx, e, env, got);
    double t1 = now();
    CHECK(rc == 0 && memcmp(got, want, sizeof want) == 0, "a %d-deep chain evaluates (got %llu, want %llu)", DEPTH,
          (unsigned long long)got[3], (unsigned long long)want[3]);
    printf("  %d-deep chain: %.1f ms\n", DEPTH, (t1 - t0) * 1e3);
    tine_env_free(env);
    tine_ctx_free(ctx);

    /* x = x + x, 60 times: 2^60 paths, 62 nodes; evaluating each node once is instant */
    ctx = tine_ctx_new();
    tine_type_t t = T(TINE_UINT, 64, 8);
    tine_expr_t *x = tine_var(ctx, "x", t);
    for (int i = 0; i < 60; i++) x = tine_binary(ctx, TINE_OP_ADD, x, x);
    CHECK(tine_ctx_nodes(ctx) == 61, "x + x sixty times is 61 nodes, counted %zu", tine_ctx_nodes(ctx));
    uint64_t xv[8] = {0, 1, 2, 3, 15, 16, 0x123456789ull, UINT64_MAX}, w8[8], g8[8];
    for (int i = 0; i < 8; i++) w8[i] = xv[i] << 60; /* x * 2^60, wrapped */
    env = tine_env_new(ctx);
    tine_env_bind(env, tine_var(ctx, "x", t), xv);
    alarm(60); /* a tree walk would never finish; the watchdog turns that into a failure */
    t0 = now();
    rc = tine_eval(ctx, x, env, g8);
    t1 = now();
    alarm(0);
    CHECK(rc == 0 && memcmp(g8, w8, sizeof w8) == 0, "(x + x) nested 60 times = x * 2^60");
    CHECK(t1 - t0 < 1.0, "the shared DAG evaluates in %.3f s", t1 - t0);

    /* a shared subexpression used by many parents, and i8 wrapping through it */
    tine_type_t i8x4 = T(TINE_INT, 8, 4);
    tine_expr_t *y = tine_var(ctx, "y", i8x4), *acc = tine_const_int(ctx, i8x4, 0);
    tine_expr_t *sq = tine_binary(ctx, TINE_OP_MUL, y, y);
    for (int i = 0; i < 1000; i++) acc = tine_binary(ctx, TINE_OP_ADD, acc, sq);
    uint64_t yv[4] = {1, 3, (uint64_t)-7, (uint64_t)-128}, wy[4], gy[4];
    for (int i = 0; i < 4; i++) wy[i] = fit(I8, (uint64_t)1000 * (yv[i] * yv[i]));
    tine_env_bind(env, y, yv);
    rc = tine_eval(ctx, acc, env, gy);
    CHECK(rc == 0 && memcmp(gy, wy, sizeof wy) == 0, "1000 uses of y * y on i8 wrap correctly");
    tine_env_free(env);
    tine_ctx_free(ctx);
}

/* ---- main ---------------------------------------------------------------------------------- */

int main(void) {
    double t0 = now();
    g_ctx = tine_ctx_new();
    g_env = tine_env_new(g_ctx);
    struct { const char *name; void (*fn)(void); } sections[] = {
        {"types", test_types},
        {"hash-consing", test_hashcons},
        {"constructor checks", test_constructor_errors},
        {"integer ops", test_int_ops},
        {"integer ops by hand", test_int_spot},
        {"bool ops", test_bool_ops},
        {"select", test_select},
        {"casts", test_casts},
        {"reinterpret", test_reinterpret},
        {"reinterpret to lane sizes", test_repack},
        {"float ops", test_float_ops},
        {"fma, abs, float edges", test_float_more},
        {"double-width intermediates", test_double_width},
        {"vector ops", test_vector_ops},
        {"loads and bindings", test_loads},
        {"DAG evaluation", test_dags},
    };
    for (size_t i = 0; i < COUNT(sections); i++) {
        long p = g_pass, f = g_fail;
        double s = now();
        sections[i].fn();
        printf("%-28s %7ld checks, %ld failed  (%.2f s)\n", sections[i].name, g_pass - p + g_fail - f, g_fail - f,
               now() - s);
    }
    tine_env_free(g_env);
    tine_ctx_free(g_ctx);
    printf("test_ir: %ld checks passed, %ld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    return g_fail ? 1 : 0;
}
