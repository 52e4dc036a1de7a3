/* test_smt.c — the SMT encoding (src/verify/smt.c) against the interpreter, and proofs.
 *
 * 1. Agreement: every primitive integer op and every FPIR op, at every integer type (and
 *    with operands of mixed types where an op takes them), on edge and random values. The
 *    operands are bound to numerals, each lane's term is simplified by Z3 to a numeral,
 *    and that must equal the interpreter's lane. This is what makes a proof about the
 *    encoding a proof about tine's semantics.
 *    Floats (1f): every float op at f32 and f64 on edge values (zeros, infinities, NaNs,
 *    denormals, past the integer ranges) and random ones; a NaN result of an arithmetic op
 *    only has to be a NaN on both sides, every other lane bit for bit.
 * 2. Queries: identities that hold must be proven, and ones that do not must get a
 *    counterexample whose values, run through the interpreter, really differ. Floats (2f):
 *    bit-exact (x + -0.0 == x proven, x + 0.0 == x refuted at x = -0, reassociation and
 *    fma contraction refuted) and over the reals (reassociation and contraction proven).
 *
 * `test_smt 'A' 'B'` proves or refutes one pair (tine expression syntax) and prints it.
 */
#include "internal.h"
#include "verify/smt.h"

#include "testutil.h"

#include <math.h>

static tine_ctx_t *C;
static uint64_t rng = 0x5eed5eedull;

static const tine_type_t ITYPES[8] = {
    {TINE_UINT, 8, 1}, {TINE_INT, 8, 1}, {TINE_UINT, 16, 1}, {TINE_INT, 16, 1},
    {TINE_UINT, 32, 1}, {TINE_INT, 32, 1}, {TINE_UINT, 64, 1}, {TINE_INT, 64, 1},
};

/* Float inputs: zeros, ones, infinities, NaNs of both signs (one with a payload), the
 * smallest and largest denormals, the largest finite, values past every integer type's
 * range and near integers, then random bit patterns and random values. */
static tine_u128 float_value(tine_type_t t, int k) {
    static const uint32_t e32[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
                                   0x7fc00000, 0xffc12345, 0x00000001, 0x807fffff, 0x7f7fffff, 0xff7fffff,
                                   0x4f400000 /* 3.2e9 */, 0xcf400000, 0x3fc00000 /* 1.5 */, 0x4b800001};
    static const uint64_t e64[] = {0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                                   0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                   0xfff8000000012345ull, 1, 0x800fffffffffffffull, 0x7fefffffffffffffull,
                                   0xffefffffffffffffull, 0x41e7d78400000000ull /* 3.2e9 */, 0xc3e0000000000001ull,
                                   0x3ff8000000000000ull, 0x4340000000000001ull};
    if (k < 16) return t.bits == 32 ? e32[k] : e64[k];
    uint64_t r = tine_rand64(&rng);
    if (k % 2) return t.bits == 32 ? (r & 0xffffffffu) : r;
    double d = (double)(int64_t)r / ldexp(1.0, (int)(tine_rand64(&rng) % 70)); /* a value, maybe near an integer */
    if (k % 4 == 0) d = trunc(d * 2) / 2;
    return tine_bits_of_float(t, d);
}

static bool nan_bits(tine_type_t t, tine_u128 v) {
    return t.bits == 32 ? ((uint32_t)v & 0x7fffffffu) > 0x7f800000u
                        : ((uint64_t)v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

static tine_u128 value(tine_type_t t, int k) {
    if (t.kind == TINE_FLOAT) return float_value(t, k);
    tine_i128 lo = tine_min_i128(t), hi = tine_max_i128(t);
    tine_i128 edges[] = {lo, hi, 0, 1, -1, 2, lo + 1, hi - 1, t.bits - 1, t.bits, t.bits + 1, -(tine_i128)t.bits};
    if (k < 12) return tine_canon(t, (tine_u128)edges[k]);
    uint64_t r = tine_rand64(&rng);
    return tine_canon(t, (tine_u128)(tine_i128)(int64_t)(k % 3 ? r : r % 40));
}

/* e on the given lanes of its variables, by Z3 and by the interpreter. With nan_class, a
 * NaN lane of a float result only has to be a NaN on both sides (which NaN an arithmetic
 * op returns is not tine's semantics: the encoding writes the canonical one, C another). */
static void agree_nan(tine_expr_t *e, int nv, tine_expr_t **vars, int tuples, const char *what, bool nan_class) {
    long bad = 0;
    char first[512] = "";
    tine_smt *s = tine_smt_new(C, 0); /* one context: each tuple binds the variables again */
    for (int k = 0; k < tuples; k++) {
        tine_env_t *env = tine_env_new(C);
        char in[256];
        size_t ni = 0;
        for (int i = 0; i < nv; i++) {
            tine_type_t t = vars[i]->type;
            tine_u128 v[TINE_MAX_LANES];
            Z3_ast z[TINE_MAX_LANES];
            for (int l = 0; l < t.lanes; l++) {
                v[l] = t.kind == TINE_BOOL ? tine_rand64(&rng) & 1 : value(t, (k + 5 * i + l) % (tuples + 1));
                z[l] = tine_smt_num(s, t.bits, v[l]);
            }
            tine_env_bind128(env, vars[i], v);
            tine_smt_bind(s, vars[i], z);
            if (ni < sizeof in) ni += (size_t)snprintf(in + ni, sizeof in - ni, " %lld", (long long)(tine_i128)v[0]);
        }
        tine_u128 want[TINE_MAX_LANES];
        Z3_ast got[TINE_MAX_LANES];
        if (tine_eval128(C, e, env, want) || tine_smt_encode(s, e, got)) {
            fail("%s: %s", what, tine_error(C));
            tine_clear_error(C);
            bad++;
        } else {
            for (int l = 0; l < e->type.lanes; l++) {
                Z3_ast r = Z3_simplify(tine_smt_z3(s), got[l]);
                const char *d = Z3_get_ast_kind(tine_smt_z3(s), r) == Z3_NUMERAL_AST
                                    ? Z3_get_numeral_string(tine_smt_z3(s), r) : NULL;
                tine_u128 x = 0;
                for (; d && *d; d++) x = x * 10 + (tine_u128)(*d - '0');
                tine_u128 w = e->type.kind == TINE_BOOL ? want[l] : tine_canon(tine_type_with_lanes(e->type, 1), want[l]);
                if (e->type.bits < 128) w &= ((tine_u128)1 << e->type.bits) - 1;
                bool both_nan = nan_class && e->type.kind == TINE_FLOAT && nan_bits(e->type, x) && nan_bits(e->type, w);
                if (!d || (x != w && !both_nan)) {
                    if (!bad++)
                        snprintf(first, sizeof first, "inputs%s: lane %d, Z3 %s, interpreter %lld", in, l,
                                 d ? Z3_get_numeral_string(tine_smt_z3(s), r) : "(no numeral)", (long long)(tine_i128)want[l]);
                    break;
                }
            }
        }
        tine_env_free(env);
    }
    tine_smt_free(s);
    check(bad == 0, "%s: %ld of %d input tuples differ; first: %s", what, bad, tuples, first);
}

static void agree(tine_expr_t *e, int nv, tine_expr_t **vars, int tuples, const char *what) {
    agree_nan(e, nv, vars, tuples, what, false);
}

/* Every float op at f32 and f64 (2 lanes; 60 tuples: the 16 edges in every lane position,
 * then random): arithmetic NaN-class, the bit ops (neg, abs, min, max, select, reinterpret)
 * bit for bit, comparisons, casts to and from every integer type and the other float. */
static void part_float_agreement(void) {
    static const tine_op_t arith[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV};
    static const tine_op_t exact[] = {TINE_OP_MIN, TINE_OP_MAX, TINE_OP_EQ, TINE_OP_NE,
                                      TINE_OP_LT,  TINE_OP_LE,  TINE_OP_GT, TINE_OP_GE};
    enum { N = 60 };
    int cases = 0;
    for (int fb = 32; fb <= 64; fb += 32) {
        tine_type_t t = {TINE_FLOAT, fb, 2};
        char tn[16], what[96];
        tine_type_name(t, tn);
        tine_expr_t *v[3] = {tine_var(C, "a", t), tine_var(C, "b", t), tine_var(C, "c", t)};
        for (size_t i = 0; i < sizeof arith / sizeof arith[0]; i++, cases++) {
            snprintf(what, sizeof what, "%s %s", tine_op_name(arith[i]), tn);
            agree_nan(tine_binary(C, arith[i], v[0], v[1]), 2, v, N, what, true);
        }
        for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++, cases++) {
            snprintf(what, sizeof what, "%s %s", tine_op_name(exact[i]), tn);
            agree(tine_binary(C, exact[i], v[0], v[1]), 2, v, N, what);
        }
        snprintf(what, sizeof what, "sqrt, fma %s", tn);
        agree_nan(tine_unary(C, TINE_OP_SQRT, v[0]), 1, v, N, what, true);
        agree_nan(tine_fma(C, v[0], v[1], v[2]), 3, v, N, what, true);
        snprintf(what, sizeof what, "neg, abs, select %s", tn);
        agree(tine_unary(C, TINE_OP_NEG, v[0]), 1, v, N, what);
        agree(tine_abs(C, v[0]), 1, v, N, what);
        agree(tine_select(C, tine_binary(C, TINE_OP_LE, v[0], v[1]), v[2], v[1]), 3, v, N, what);
        cases += 5;
        tine_expr_t *w = tine_var(C, "w", (tine_type_t){TINE_FLOAT, fb, 4});
        snprintf(what, sizeof what, "vector_reduce_add %s", tn);
        agree_nan(tine_vector_reduce_add(C, w, 2), 1, &w, N, what, true);
        tine_type_t other = {TINE_FLOAT, 96 - fb, 2};
        snprintf(what, sizeof what, "cast %s <-> %s", tn, tine_type_name(other, (char[16]){0}));
        agree_nan(tine_cast(C, other, v[0]), 1, v, N, what, true);
        agree(tine_cast(C, (tine_type_t){TINE_BOOL, 1, 2}, v[0]), 1, v, N, what);
        cases += 3;
        for (int ti = 0; ti < 8; ti++) {
            tine_type_t u = tine_type_with_lanes(ITYPES[ti], 2);
            tine_expr_t *x = tine_var(C, "x", u);
            snprintf(what, sizeof what, "cast %s <-> %s", tn, tine_type_name(u, (char[16]){0}));
            agree(tine_cast(C, u, v[0]), 1, v, N, what); /* saturating, NaN -> 0 */
            agree(tine_cast(C, t, x), 1, &x, N, what);   /* rounded to nearest even */
            cases += 2;
            if (u.bits == fb) {
                snprintf(what, sizeof what, "reinterpret %s <-> %s", tn, tine_type_name(u, (char[16]){0}));
                agree(tine_reinterpret(C, u, v[0]), 1, v, N, what);
                agree(tine_reinterpret(C, t, x), 1, &x, N, what);
                cases += 2;
            }
        }
    }
    printf("part 1f: %d float (op, type) cases agree with the interpreter\n", cases);
}

static void part_agreement(void) {
    static const tine_op_t prim[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD, TINE_OP_MIN,
                                     TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR,  TINE_OP_XOR, TINE_OP_SHL, TINE_OP_SHR,
                                     TINE_OP_EQ,  TINE_OP_NE,  TINE_OP_LT,  TINE_OP_LE,  TINE_OP_GT,  TINE_OP_GE};
    int fpir_ops = 0;
    for (int ti = 0; ti < 8; ti++) {
        tine_type_t t = tine_type_with_lanes(ITYPES[ti], 2);
        char tn[16], what[96];
        tine_type_name(t, tn);
        tine_expr_t *v[3] = {tine_var(C, "a", t), tine_var(C, "b", t), tine_var(C, "c", t)};
        for (size_t i = 0; i < sizeof prim / sizeof prim[0]; i++) {
            snprintf(what, sizeof what, "%s %s", tine_op_name(prim[i]), tn);
            agree(tine_binary(C, prim[i], v[0], v[1]), 2, v, 40, what);
        }
        /* shifts by counts of other types, casts to every type, unary ops, select */
        for (int tj = 0; tj < 8; tj++) {
            tine_type_t u = tine_type_with_lanes(ITYPES[tj], 2);
            tine_expr_t *w[2] = {v[0], tine_var(C, "s", u)};
            snprintf(what, sizeof what, "%s >> %s, << and casts", tn, tine_type_name(u, (char[16]){0}));
            for (int sh = 0; sh < 2; sh++) { /* counts of another type, where the constructor takes them */
                tine_expr_t *e = tine_binary(C, sh ? TINE_OP_SHL : TINE_OP_SHR, w[0], w[1]);
                tine_clear_error(C);
                if (e) agree(e, 2, w, 30, what);
            }
            agree(tine_cast(C, u, v[0]), 1, v, 20, what);
            tine_expr_t *re = tine_reinterpret(C, u, v[0]); /* where the constructor takes it */
            tine_clear_error(C);
            if (re) agree(re, 1, v, 20, what);
        }
        snprintf(what, sizeof what, "neg, not, select %s", tn);
        agree(tine_unary(C, TINE_OP_NEG, v[0]), 1, v, 20, what);
        agree(tine_unary(C, TINE_OP_NOT, v[0]), 1, v, 20, what);
        agree(tine_select(C, tine_binary(C, TINE_OP_LT, v[0], v[1]), v[1], v[2]), 3, v, 20, what);
        /* every FPIR op whose operands may all be t (or t and a count of t) */
        for (int op = TINE_FPIR_FIRST; op < TINE_OP_COUNT; op++)
            for (int n = 1; n <= 3; n++) {
                tine_expr_t *e = tine_fpir(C, (tine_op_t)op, n, v, ITYPES[ti ^ 1]);
                tine_clear_error(C);
                if (!e) continue;
                snprintf(what, sizeof what, "%s/%d %s", tine_op_name((tine_op_t)op), n, tn);
                agree(e, n, v, 60, what);
                fpir_ops++;
            }
    }
    /* reinterprets to lanes of other bits: every pair of integer types at 128 bits and at
       64 (u64x1 to u8x8), and i8x16 to i128x1 */
    int repacks = 0;
    for (int w = 64; w <= 128; w += 64)
        for (int ti = 0; ti < 8; ti++)
            for (int tj = 0; tj < 8; tj++) {
                if (ITYPES[ti].bits == ITYPES[tj].bits) continue;
                tine_type_t from = tine_type_with_lanes(ITYPES[ti], w / ITYPES[ti].bits),
                            to = tine_type_with_lanes(ITYPES[tj], w / ITYPES[tj].bits);
                char what[96], f[16], t[16];
                snprintf(what, sizeof what, "reinterpret<%s>(%s)", tine_type_str(to, t, sizeof t),
                         tine_type_str(from, f, sizeof f));
                tine_expr_t *x = tine_var(C, "r", from);
                agree(tine_bitcast(C, to, x), 1, &x, 30, what);
                repacks++;
            }
    {
        tine_expr_t *x = tine_var(C, "r", (tine_type_t){TINE_INT, 8, 16});
        agree(tine_bitcast(C, (tine_type_t){TINE_INT, 128, 1}, x), 1, &x, 30, "reinterpret<i128x1>(i8x16)");
        agree(tine_bitcast(C, (tine_type_t){TINE_UINT, 16, 8}, tine_bitcast(C, (tine_type_t){TINE_INT, 128, 1}, x)), 1,
              &x, 30, "reinterpret<u16x8>(i8x16) through i128x1");
    }
    /* a reinterpret to other lane sizes moves bits between lanes (a proof through it is at
       its lanes, prove.c); one to the same lanes does not */
    {
        tine_expr_t *x = tine_var(C, "r", (tine_type_t){TINE_UINT, 8, 16});
        Z3_ast out[16];
        tine_smt *s = tine_smt_new(C, 0);
        tine_smt_encode(s, tine_reinterpret(C, (tine_type_t){TINE_INT, 8, 1}, x), out);
        check(tine_smt_cross_lane(s) == 0, "reinterpret<i8>(u8x16) moves no lanes: %ld", tine_smt_cross_lane(s));
        tine_smt_encode(s, tine_bitcast(C, (tine_type_t){TINE_UINT, 16, 8}, x), out);
        check(tine_smt_cross_lane(s) == 1, "reinterpret<u16x8>(u8x16) moves lanes: %ld", tine_smt_cross_lane(s));
        tine_smt_free(s);
    }
    check(fpir_ops > 8 * 16, "only %d FPIR (op, type) pairs were constructed", fpir_ops);
    printf("part 1: primitive ops, %d reinterprets to lanes of other bits and %d FPIR (op, arity, type) cases agree "
           "with the interpreter\n", repacks, fpir_ops);
}

/* ---- queries ---- */

static tine_smt_result prove_pair_in(const char *a, const char *b, char *why, size_t n, double *sec, bool reals) {
    tine_expr_t *x = tine_parse(C, a, "<a>"), *y = tine_parse(C, b, "<b>");
    if (!x || !y) {
        if (sec) *sec = 0;
        snprintf(why, n, "%s", tine_error(C));
        tine_clear_error(C);
        return TINE_SMT_ERROR;
    }
    tine_smt *s = tine_smt_new(C, 60000);
    tine_smt_floats_as_reals(s, reals);
    tine_smt_result r = tine_smt_equal(s, x, y, why, n, sec);
    if (r == TINE_SMT_ERROR) snprintf(why, n, "%s", tine_error(C));
    tine_clear_error(C);
    tine_smt_free(s);
    return r;
}

static tine_smt_result prove_pair(const char *a, const char *b, char *why, size_t n, double *sec) {
    return prove_pair_in(a, b, why, n, sec, false);
}

static const struct {
    const char *a, *b;
    bool holds;
} PAIRS[] = {
    {"widening_add(a_u8, b_u8)", "u16(a_u8) + u16(b_u8)", true},
    {"rounding_halving_add(a_u8, b_u8)", "u8((u16(a_u8) + u16(b_u8) + 1) >> 1)", true},
    {"halving_add(a_i16, b_i16)", "(a_i16 >> 1) + (b_i16 >> 1) + (a_i16 & b_i16 & 1)", true},
    {"saturating_add(a_u8, b_u8)", "u8(min(u16(a_u8) + u16(b_u8), 255))", true},
    {"saturating_sub(a_i8, b_i8)", "i8(clamp(i16(a_i8) - i16(b_i8), -128, 127))", true},
    {"absd(a_i8, b_i8)", "u8(max(a_i8, b_i8) - min(a_i8, b_i8))", true},
    {"a_i32 / 4", "a_i32 >> 2", true},
    {"a_i32 / 4", "(a_i32 + 3) >> 2", false},
    {"a_u8 % b_u8", "a_u8 - (a_u8 / b_u8) * b_u8", false}, /* x % 0 = 0, x / 0 = 0 */
    {"a_u8 % b_u8", "select(b_u8 == 0, u8(0), a_u8 - (a_u8 / b_u8) * b_u8)", true},
    {"a_i8x2 % b_i8x2", "select(b_i8x2 == 0, a_i8x2 & 0, a_i8x2 - (a_i8x2 / b_i8x2) * b_i8x2)", true},
    {"a_i16 / 0", "i16(0)", true},
    {"a_u16 << 16", "u16(0)", true},
    {"a_i16 >> 20", "select(a_i16 < 0, i16(-1), i16(0))", true},
    {"a_i16 >> b_i16", "select(b_i16 < 0, a_i16 << -b_i16, a_i16 >> b_i16)", false}, /* b = -32768 */
    {"a_i16 >> b_i16", "select(b_i16 < 0, select(b_i16 == -32768, i16(0), a_i16 << -b_i16), a_i16 >> b_i16)", true},
    {"mul_shr(a_i16, b_i16, 15)", "i16((i32(a_i16) * i32(b_i16)) >> 15)", false}, /* it saturates */
    {"mul_shr(a_i8, b_i8, 7)", "saturating_cast<i8>((i16(a_i8) * i16(b_i8)) >> 7)", true},
    {"rounding_mul_shr(a_i8, b_i8, 7)", "i8((i16(a_i8) * i16(b_i8) + 64) >> 7)", false},
    {"rounding_mul_shr(a_i8, b_i8, 7)", "saturating_cast<i8>((i16(a_i8) * i16(b_i8) + 64) >> 7)", true},
    {"max(a_u8, b_u8) - min(a_u8, b_u8)", "absd(a_u8, b_u8)", true},
    {"a_u8 + b_u8", "b_u8 + a_u8", true},
    {"a_u8 - b_u8", "b_u8 - a_u8", false},
    {"widening_mul(a_i32, b_i32)", "i64(a_i32) * i64(b_i32)", true},
    {"vector_reduce_add(a_u8x8, 4)", "slice(a_u8x8, 0, 2, 4) + slice(a_u8x8, 1, 2, 4)", true},
    {"vector_reduce_add(a_u8x8, 4)", "slice(a_u8x8, 0, 1, 4) + slice(a_u8x8, 4, 1, 4)", false},
    {"concat(slice(a_u8x4, 0, 1, 2), slice(a_u8x4, 2, 1, 2))", "a_u8x4", true},
    {"interleave(deinterleave(a_u16x8, 2, 0), deinterleave(a_u16x8, 2, 1))", "a_u16x8", true},
    /* reinterprets to lanes of other bits (parsed at 16 lanes: x_u8 is a u8x16), little-endian */
    {"reinterpret<u8x16>(reinterpret<u16x8>(x_u8) ^ 0)", "x_u8", true}, /* ^ 0: no fold, a proof */
    {"slice(reinterpret<u16x8>(x_u8), 0, 1, 1)", "u16(slice(x_u8, 0, 1, 1)) | u16(slice(x_u8, 1, 1, 1)) << 8", true},
    {"reinterpret<u16x8>(x_u8)", "u16(deinterleave(x_u8, 2, 0)) | u16(deinterleave(x_u8, 2, 1)) << 8", true},
    {"reinterpret<u16x8>(x_u8)", "u16(deinterleave(x_u8, 2, 1)) | u16(deinterleave(x_u8, 2, 0)) << 8", false},
    {"reinterpret<u8x16>(y_u16x8)", "interleave(u8(y_u16x8), u8(y_u16x8 >> 8))", true},
    {"reinterpret<i16x8>(x_i8)", "reinterpret<i16>(u16(reinterpret<u8>(deinterleave(x_i8, 2, 0))) | u16(reinterpret<u8>(deinterleave(x_i8, 2, 1))) << 8)", true},
    {"reinterpret<u64x2>(z_u32x4)", "u64(deinterleave(z_u32x4, 2, 0)) | u64(deinterleave(z_u32x4, 2, 1)) << 32", true},
    {"reinterpret<u32x4>(reinterpret<u64x2>(z_u32x4) + 0)", "z_u32x4", true},
    {"reinterpret<u16x8>(x_u8 ^ y_u8)", "reinterpret<u16x8>(x_u8) ^ reinterpret<u16x8>(y_u8)", true},
    {"reinterpret<u16x8>(x_u8 + y_u8)", "reinterpret<u16x8>(x_u8) + reinterpret<u16x8>(y_u8)", false}, /* carries */
};

/* A counterexample's inputs must make the interpreter see the two sides differ: reads
 * them back from the text `why` starts with ("a_u8 = 3, b_u8 = [1, 2]; left ..."). */
static void part_queries(void) {
    int n = (int)(sizeof PAIRS / sizeof PAIRS[0]);
    for (int i = 0; i < n; i++) {
        char why[2048];
        double sec;
        tine_smt_result r = prove_pair(PAIRS[i].a, PAIRS[i].b, why, sizeof why, &sec);
        if (PAIRS[i].holds)
            check(r == TINE_SMT_PROVEN, "%s == %s should be proven; %s: %s", PAIRS[i].a, PAIRS[i].b,
                  r == TINE_SMT_COUNTEREXAMPLE ? "counterexample" : "not proven", why);
        else
            check(r == TINE_SMT_COUNTEREXAMPLE && strstr(why, "left ") && strstr(why, "right "),
                  "%s == %s should get a counterexample; got %d: %s", PAIRS[i].a, PAIRS[i].b, (int)r, why);
        if (sec > 2) printf("  slow: %s == %s: %.1f s\n", PAIRS[i].a, PAIRS[i].b, sec);
    }
    /* a counterexample really differs: one refuted pair's model run through the interpreter */
    {
        /* one lane, so that the variable below is the one the two sides read */
        int lanes = tine_lanes(C);
        tine_set_lanes(C, 1);
        tine_expr_t *a = tine_parse(C, "a_i32 / 4", "<a>"), *b = tine_parse(C, "(a_i32 + 3) >> 2", "<b>");
        tine_set_lanes(C, lanes);
        tine_smt *s = tine_smt_new(C, 60000);
        char why[512];
        tine_smt_result r = tine_smt_equal(s, a, b, why, sizeof why, NULL);
        Z3_ast lane;
        tine_expr_t *va = tine_var(C, "a", (tine_type_t){TINE_INT, 32, 1});
        tine_smt_encode(s, va, &lane);
        tine_u128 x;
        bool have = r == TINE_SMT_COUNTEREXAMPLE && tine_smt_model_value(s, lane, &x);
        if (have) {
            tine_env_t *env = tine_env_new(C);
            tine_u128 in = tine_canon(va->type, x), ra, rb;
            tine_env_bind128(env, va, &in);
            bool ran = tine_eval128(C, a, env, &ra) == 0 && tine_eval128(C, b, env, &rb) == 0;
            check(ran, "the counterexample's sides evaluate: %s", tine_error(C) ? tine_error(C) : "");
            check(ran && ra != rb, "the counterexample a = %lld does not separate the sides", (long long)(tine_i128)in);
            tine_env_free(env);
        } else {
            fail("no counterexample value for a_i32 / 4 vs (a_i32 + 3) >> 2");
        }
        tine_smt_free(s);
    }
    /* assumptions restrict the inputs: a_u8 + 1 > a_u8 holds where a_u8 < 255 */
    {
        tine_expr_t *a = tine_parse(C, "a_u8x1 + 1 > a_u8x1", "<a>"), *t = tine_parse(C, "a_u8x1 == a_u8x1", "<t>");
        tine_smt *s = tine_smt_new(C, 60000);
        char why[512];
        check(tine_smt_equal(s, a, t, why, sizeof why, NULL) == TINE_SMT_COUNTEREXAMPLE, "a_u8 + 1 > a_u8 is refuted");
        Z3_ast lane;
        tine_smt_encode(s, tine_var(C, "a", (tine_type_t){TINE_UINT, 8, 1}), &lane);
        tine_smt_assume(s, Z3_mk_bvult(tine_smt_z3(s), lane, tine_smt_num(s, 8, 255)));
        check(tine_smt_equal(s, a, t, why, sizeof why, NULL) == TINE_SMT_PROVEN, "a_u8 + 1 > a_u8 where a < 255: %s", why);
        tine_smt_free(s);
    }
    /* products by their ranges where the exact product needs all 128 bits (u64 x u64, a
       rule's widening_mul at T = u64): the product is a free 128-bit value, its range not
       computed (it would not fit a signed 128-bit value: UBSan saw the overflow) */
    {
        tine_expr_t *a = tine_parse(C, "widening_mul(a_u64, b_u64)", "<a>"), *b = tine_parse(C, "widening_mul(b_u64, a_u64)", "<b>");
        tine_smt *s = tine_smt_new(C, 60000);
        tine_smt_abstract_products(s, true);
        char why[512];
        check(tine_smt_equal(s, a, b, why, sizeof why, NULL) == TINE_SMT_PROVEN, "u64 x u64 by its range: %s", why);
        tine_smt_free(s);
    }
    printf("part 2: %d identities proven or refuted as expected\n", n);
}

/* Float identities, bit-exact (IEEE, round to nearest even, all NaNs one) and over the
 * reals: holds = 1 proven, 0 refuted, -1 refused (an error). `cex`: text the refutation's
 * inputs must show. */
static const struct {
    const char *a, *b;
    bool reals;
    int holds;
    const char *cex;
} FPAIRS[] = {
    {"x_f32x1 + (-0.0)", "x_f32x1", false, 1, NULL},
    {"x_f32x1 + 0.0", "x_f32x1", false, 0, "x_f32 = -0;"}, /* -0 + +0 = +0 */
    {"x_f64x1 + (-0.0)", "x_f64x1", false, 1, NULL},
    {"x_f64x1 + 0.0", "x_f64x1", false, 0, "x_f64 = -0;"},
    {"(a_f32x1 + b_f32x1) + c_f32x1", "a_f32x1 + (b_f32x1 + c_f32x1)", false, 0, NULL},
    {"(a_f32x1 + b_f32x1) + c_f32x1", "a_f32x1 + (b_f32x1 + c_f32x1)", true, 1, NULL},
    {"(a_f64x2 * b_f64x2) * c_f64x2", "a_f64x2 * (b_f64x2 * c_f64x2)", true, 1, NULL},
    {"fma(a_f32x1, b_f32x1, c_f32x1)", "a_f32x1 * b_f32x1 + c_f32x1", false, 0, NULL},
    {"fma(a_f32x1, b_f32x1, c_f32x1)", "a_f32x1 * b_f32x1 + c_f32x1", true, 1, NULL},
    {"fma(a_f32x1, b_f32x1, c_f32x1)", "fma(b_f32x1, a_f32x1, c_f32x1)", false, 1, NULL},
    {"a_f32x1 + b_f32x1", "b_f32x1 + a_f32x1", false, 1, NULL}, /* NaN operands: all NaNs are one */
    {"x_f32x1 * 2.0", "x_f32x1 + x_f32x1", false, 1, NULL},
    {"-(-x_f64x1)", "x_f64x1", false, 1, NULL},
    {"min(a_f32x4, b_f32x4)", "select(a_f32x4 < b_f32x4, a_f32x4, b_f32x4)", false, 1, NULL},
    {"min(a_f32x1, b_f32x1)", "min(b_f32x1, a_f32x1)", false, 0, NULL}, /* the second operand: -0, +0 or NaN */
    /* the second operand on a tie of zeros (Z3's fp.min may give either) and on a NaN first */
    {"select(x_f32x1 == 0.0, min(x_f32x1, -x_f32x1), -x_f32x1)", "-x_f32x1", false, 1, NULL},
    {"select(x_f64x1 == 0.0, max(x_f64x1, -x_f64x1), -x_f64x1)", "-x_f64x1", false, 1, NULL},
    {"select(x_f32x1 != x_f32x1, max(x_f32x1, y_f32x1), y_f32x1)", "y_f32x1", false, 1, NULL},
    {"abs(x_f32x1)", "select(x_f32x1 < 0.0, -x_f32x1, x_f32x1)", false, 0, "x_f32 = -0;"},
    {"abs(x_f32x1)", "select(x_f32x1 < 0.0, -x_f32x1, x_f32x1)", true, 1, NULL},
    {"abs(a_f64x1 * b_f64x1)", "abs(a_f64x1) * abs(b_f64x1)", true, 1, NULL},
    {"i32(f32(a_i16x1))", "i32(a_i16x1)", false, 1, NULL},                   /* exact, in range */
    {"f32(a_i32x1)", "f32(f64(a_i32x1))", false, 1, NULL},                   /* f64 holds any i32 */
    {"i64(f32(a_i64x1))", "a_i64x1", false, 0, NULL},                        /* 2^24 + 1 rounds */
    {"i32(x_f32x1) == 0", "(x_f32x1 != x_f32x1) | ((x_f32x1 > -1.0) & (x_f32x1 < 1.0))", false, 1, NULL},
    {"vector_reduce_add(w_f32x4, 1)", "slice(w_f32x4, 0, 1, 1) + slice(w_f32x4, 1, 1, 1) + slice(w_f32x4, 2, 1, 1) + slice(w_f32x4, 3, 1, 1)", false, 1, NULL},
    {"sqrt(x_f32x1) * sqrt(x_f32x1)", "x_f32x1", true, 0, NULL}, /* sqrt is uninterpreted over the reals */
    {"x_f32x1 + inf", "x_f32x1", true, -1, NULL},          /* no infinity among the reals */
};

static void part_float_queries(void) {
    int n = (int)(sizeof FPAIRS / sizeof FPAIRS[0]);
    for (int i = 0; i < n; i++) {
        char why[2048];
        double sec;
        tine_smt_result r = prove_pair_in(FPAIRS[i].a, FPAIRS[i].b, why, sizeof why, &sec, FPAIRS[i].reals);
        const char *mode = FPAIRS[i].reals ? "over the reals" : "bit-exact";
        if (FPAIRS[i].holds == 1)
            check(r == TINE_SMT_PROVEN, "%s == %s %s should be proven; got %d: %s", FPAIRS[i].a, FPAIRS[i].b, mode,
                  (int)r, why);
        else if (FPAIRS[i].holds == 0)
            check(r == TINE_SMT_COUNTEREXAMPLE && strstr(why, "left ") &&
                      (!FPAIRS[i].cex || strstr(why, FPAIRS[i].cex)),
                  "%s == %s %s should be refuted%s%s; got %d: %s", FPAIRS[i].a, FPAIRS[i].b, mode,
                  FPAIRS[i].cex ? " with " : "", FPAIRS[i].cex ? FPAIRS[i].cex : "", (int)r, why);
        else
            check(r == TINE_SMT_ERROR, "%s == %s %s should be refused; got %d: %s", FPAIRS[i].a, FPAIRS[i].b, mode,
                  (int)r, why);
        if (sec > 5) printf("  slow: %s == %s %s: %.1f s\n", FPAIRS[i].a, FPAIRS[i].b, mode, sec);
    }
    printf("part 2f: %d float identities proven, refuted or refused as expected\n", n);
}

int main(int argc, char **argv) {
    C = tine_ctx_new();
    if (argc == 3) {
        char why[4096];
        double sec;
        tine_smt_result r = prove_pair(argv[1], argv[2], why, sizeof why, &sec);
        static const char *names[] = {"proven", "counterexample", "unknown", "error"};
        printf("%s (%.2f s)%s%s\n", names[r], sec, why[0] ? ": " : "", why);
        tine_ctx_free(C);
        return r == TINE_SMT_PROVEN ? 0 : 1;
    }
    double t0 = now();
    part_agreement();
    part_float_agreement();
    part_queries();
    part_float_queries();
    printf("test_smt: %lld checks passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    tine_ctx_free(C);
    return g_fail != 0;
}
