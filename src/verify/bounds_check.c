/* bounds_check.c — the interval rules of bounds.c against Z3 (see bounds_check.h).
 *
 * A case is one form of one op: the op and its operands' types (shl(u8, i16),
 * cast<i32>(u8), widening_mul(i8, u8), select(bool, u8, u8), ...). Its operands are
 * variables named after the case, so the ranges supplied for one case never meet
 * another's nodes; each interval tuple is supplied inside a clean bounds scope, closed
 * afterwards. The intervals Z3 assumes for the operands are those tine_bounds reports for
 * them, so what is checked is the op's own rule, given exactly what it was given.
 *
 * Operand intervals: at 8 and 16 bits a unary op gets every interval whose ends are in
 * the edge set, the others a few thousand tuples of edge-end and random intervals; at 32
 * and 64 bits a thousand random tuples (random ends of random bit lengths, near the
 * edges, tiny, the whole range). A u64 range beyond int64 (which tine_bounds_set_var
 * cannot take) is given as max(min(v, hi), lo), whose interval the min and max rules
 * compute exactly.
 */
#include "bounds_check.h"

#include <math.h>
#include <time.h>

#include "smt.h"

static const tine_type_t ITYPES[8] = {
    {TINE_UINT, 8, 1}, {TINE_INT, 8, 1}, {TINE_UINT, 16, 1}, {TINE_INT, 16, 1},
    {TINE_UINT, 32, 1}, {TINE_INT, 32, 1}, {TINE_UINT, 64, 1}, {TINE_INT, 64, 1},
};
static const tine_type_t BOOLT = {TINE_BOOL, 1, 1};

/* F_REPACK: a reinterpret to lanes of other bits (tine_bitcast), the operand and the
   result as few lanes as make their bits equal (u8x2 to u16x1, u64x1 to u8x8) */
typedef enum { F_BINARY, F_UNARY, F_SELECT, F_CAST, F_REINTERPRET, F_REPACK, F_FPIR } form;

enum { MAX_CASE_LANES = 8 };

typedef struct {
    form f;
    tine_op_t op;
    int n;
    tine_type_t ot[3];  /* operand types (one lane, except a repack's) */
    tine_type_t tparam; /* of casts, reinterprets and saturating_cast (a repack's with lanes) */
    char name[64];
} bcase;

typedef struct {
    tine_ctx_t *ctx;
    const tine_verify_bounds_opts *o;
    FILE *out;
    tine_verify_bounds_totals *t;
    int serial; /* cases so far: names the variables */
    double deadline; /* seconds_now() at which the run stops (0: never) */
} run;

static double seconds_now(void) {
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static tine_expr_t *build(tine_ctx_t *ctx, const bcase *c, tine_expr_t *const *v) {
    switch (c->f) {
    case F_BINARY: return tine_binary(ctx, c->op, v[0], v[1]);
    case F_UNARY: return tine_unary(ctx, c->op, v[0]);
    case F_SELECT: return tine_select(ctx, v[0], v[1], v[2]);
    case F_CAST: return tine_cast(ctx, c->tparam, v[0]);
    case F_REINTERPRET: return tine_reinterpret(ctx, c->tparam, v[0]);
    case F_REPACK: return tine_bitcast(ctx, c->tparam, v[0]);
    case F_FPIR: return tine_fpir(ctx, c->op, c->n, v, c->tparam);
    }
    return NULL;
}

/* ---- intervals ------------------------------------------------------------------- */

static tine_i128 tmin(tine_type_t t) { return t.kind == TINE_BOOL ? 0 : tine_min_i128(t); }
static tine_i128 tmax(tine_type_t t) { return t.kind == TINE_BOOL ? 1 : tine_max_i128(t); }

static int cmp_i128(const void *a, const void *b) {
    tine_i128 x = *(const tine_i128 *)a, y = *(const tine_i128 *)b;
    return (x > y) - (x < y);
}

/* min, max, 0, ±1, ±2, min+1, max-1, ±2^k for a few k, and the unsigned middle (where
   a signed reading changes sign): sorted, each once */
static int edge_set(tine_type_t t, tine_i128 *e) {
    tine_i128 lo = tmin(t), hi = tmax(t), c[32];
    int n = 0, b = t.bits;
    tine_i128 fixed[] = {lo, hi, 0, 1, -1, 2, -2, lo + 1, hi - 1, hi / 2, hi / 2 + 1};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) c[n++] = fixed[i];
    int ks[3] = {3, b / 2, b - 2};
    for (int i = 0; i < 3; i++) {
        c[n++] = (tine_i128)1 << ks[i];
        c[n++] = -((tine_i128)1 << ks[i]);
    }
    qsort(c, (size_t)n, sizeof *c, cmp_i128);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (c[i] >= lo && c[i] <= hi && (m == 0 || e[m - 1] != c[i])) e[m++] = c[i];
    return m;
}

/* a value of a random bit length (signed: of either sign) */
static tine_i128 rand_val(tine_type_t t, uint64_t *rng) {
    int b = t.kind == TINE_INT ? t.bits - 1 : t.bits;
    int k = (int)(tine_rand64(rng) % (uint64_t)(b + 1));
    uint64_t m = k >= 64 ? ~0ull : (1ull << k) - 1;
    tine_i128 v = (tine_i128)(tine_rand64(rng) & m);
    if (t.kind == TINE_INT && (tine_rand64(rng) & 1)) v = -v - 1;
    return v;
}

static tine_i128 clampv(tine_type_t t, tine_i128 v) { return v < tmin(t) ? tmin(t) : v > tmax(t) ? tmax(t) : v; }

static void rand_interval(tine_type_t t, const tine_i128 *E, int nE, uint64_t *rng, tine_i128 *lo, tine_i128 *hi) {
    if (t.kind == TINE_BOOL) {
        static const int B[4][2] = {{0, 1}, {0, 1}, {0, 0}, {1, 1}};
        int k = (int)(tine_rand64(rng) % 4);
        *lo = B[k][0];
        *hi = B[k][1];
        return;
    }
    tine_i128 a, b;
    switch (tine_rand64(rng) % 11) {
    case 0: case 1: /* edge ends */
        a = E[tine_rand64(rng) % (uint64_t)nE];
        b = E[tine_rand64(rng) % (uint64_t)nE];
        break;
    case 2: case 3: case 4: /* random ends of random bit lengths */
        a = rand_val(t, rng);
        b = rand_val(t, rng);
        break;
    case 5: case 6: /* near edges */
        a = clampv(t, E[tine_rand64(rng) % (uint64_t)nE] + (tine_i128)(tine_rand64(rng) % 7) - 3);
        b = clampv(t, E[tine_rand64(rng) % (uint64_t)nE] + (tine_i128)(tine_rand64(rng) % 7) - 3);
        break;
    case 7: case 8: /* tiny */
        a = rand_val(t, rng);
        b = clampv(t, a + (tine_i128)(tine_rand64(rng) % 4));
        break;
    case 9: /* one value */
        a = b = (tine_rand64(rng) & 1) ? rand_val(t, rng) : E[tine_rand64(rng) % (uint64_t)nE];
        break;
    default: /* the whole range */
        a = tmin(t);
        b = tmax(t);
        break;
    }
    *lo = a < b ? a : b;
    *hi = a < b ? b : a;
}

/* The operand for variable v in [lo, hi]: the variable with that range supplied, a
   constant (a bool of one value), or max(min(v, hi), lo) for a u64 range beyond int64. */
static tine_expr_t *operand(tine_ctx_t *ctx, tine_expr_t *v, tine_i128 lo, tine_i128 hi) {
    tine_type_t t = v->type;
    if (t.kind == TINE_BOOL) return lo == hi ? tine_const_int(ctx, t, (int64_t)lo) : v;
    if (lo == tmin(t) && hi == tmax(t)) return v; /* nothing supplied: its type's range */
    if (lo >= INT64_MIN && hi <= INT64_MAX) {
        if (tine_bounds_set_var(ctx, v, (int64_t)lo, (int64_t)hi)) return NULL;
        return v;
    }
    tine_expr_t *m = tine_binary(ctx, TINE_OP_MIN, v, tine_const_uint(ctx, t, (uint64_t)hi));
    return tine_binary(ctx, TINE_OP_MAX, m, tine_const_uint(ctx, t, (uint64_t)lo));
}

/* ---- Z3 -------------------------------------------------------------------------- */

static Z3_ast lt(tine_smt *s, bool sgn, Z3_ast a, Z3_ast b) {
    return sgn ? Z3_mk_bvslt(tine_smt_z3(s), a, b) : Z3_mk_bvult(tine_smt_z3(s), a, b);
}

static Z3_ast num(tine_smt *s, tine_type_t t, tine_i128 v) { return tine_smt_num(s, t.bits, (tine_u128)v); }

/* x in [lo, hi], x of type t */
static Z3_ast inside(tine_smt *s, tine_type_t t, Z3_ast x, tine_i128 lo, tine_i128 hi) {
    Z3_context z = tine_smt_z3(s);
    bool sgn = t.kind == TINE_INT;
    return Z3_mk_and(z, 2, (Z3_ast[]){Z3_mk_not(z, lt(s, sgn, x, num(s, t, lo))), Z3_mk_not(z, lt(s, sgn, num(s, t, hi), x))});
}

/* every lane of x (t's lanes) in [lo, hi] */
static Z3_ast all_inside(tine_smt *s, tine_type_t t, const Z3_ast *x, tine_i128 lo, tine_i128 hi) {
    if (t.lanes == 1) return inside(s, t, x[0], lo, hi);
    Z3_ast c[MAX_CASE_LANES];
    for (int l = 0; l < t.lanes; l++) c[l] = inside(s, t, x[l], lo, hi);
    return Z3_mk_and(tine_smt_z3(s), t.lanes, c);
}

/* r below lo (side 0) or above hi (side 1), r of type t; an end beyond t's range is no
   constraint, or, beyond the other end, an empty interval: every value is outside */
static Z3_ast outside(tine_smt *s, tine_type_t t, Z3_ast r, tine_i128 lo, tine_i128 hi, int side) {
    Z3_context z = tine_smt_z3(s);
    bool sgn = t.kind == TINE_INT, u128 = t.kind == TINE_UINT && t.bits == 128; /* u128's max exceeds i128 */
    if (side == 0) return lo <= tmin(t) ? Z3_mk_false(z) : !u128 && lo > tmax(t) ? Z3_mk_true(z) : lt(s, sgn, r, num(s, t, lo));
    return hi < tmin(t) ? Z3_mk_true(z) : !u128 && hi >= tmax(t) ? Z3_mk_false(z) : lt(s, sgn, num(s, t, hi), r);
}

static const char *val_str(tine_smt *s, tine_type_t t, Z3_ast v, char buf[48]) {
    tine_u128 x;
    if (!tine_smt_model_value(s, v, &x)) return "?";
    return tine_i128_str(t.kind == TINE_BOOL ? (tine_i128)(x & 1) : (tine_i128)tine_canon(t, x), buf);
}

/* the lanes of v in the model: one value, or [v0 v1 ...] */
static void put_vals(FILE *out, tine_smt *s, tine_type_t t, const Z3_ast *v) {
    char b[48];
    for (int l = 0; l < t.lanes; l++)
        fprintf(out, "%s%s", t.lanes == 1 ? "" : l ? " " : "[", val_str(s, t, v[l], b));
    if (t.lanes > 1) fputc(']', out);
}

/* ---- one case -------------------------------------------------------------------- */

/* How many operand-interval tuples, and whether they are every edge interval (unary
   ops on 8 and 16 bits). */
static long tuple_count(const run *R, const bcase *c, int nE, bool *exhaustive) {
    double sc = R->o->scale > 0 ? R->o->scale : 1;
    int bits = 0;
    for (int i = 0; i < c->n; i++)
        if (c->ot[i].kind != TINE_BOOL && c->ot[i].bits > bits) bits = c->ot[i].bits;
    *exhaustive = c->n == 1 && c->ot[0].kind != TINE_BOOL && bits <= 16;
    long full = *exhaustive ? (long)nE * (nE + 1) / 2 : c->n == 1 && c->ot[0].kind == TINE_BOOL ? 3 : bits <= 16 ? 3000 : 1000;
    if (sc >= 1) return full;
    long k = (long)ceil((double)full * sc);
    return k < 8 ? (full < 8 ? full : 8) : k;
}

/* The k-th of m picks, spread evenly, from the nE*(nE+1)/2 edge intervals. */
static void edge_interval(const tine_i128 *E, int nE, long k, long m, tine_i128 *lo, tine_i128 *hi) {
    long all = (long)nE * (nE + 1) / 2, idx = m >= all ? k : (long)((double)k * (double)all / (double)m);
    for (int i = 0; i < nE; i++) {
        if (idx < nE - i) {
            *lo = E[i];
            *hi = E[i + idx];
            return;
        }
        idx -= nE - i;
    }
    *lo = E[0];
    *hi = E[nE - 1];
}

static uint64_t name_hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

/* What one case's intervals gave. */
typedef struct {
    long checked, hits, unknown, none;
} case_tally;

/* Checks the bounds of c's term on operands in [want_lo[i], want_hi[i]]: asks the solver
 * for a result outside them, printing the first max_print hits. -1 on an error. */
static int check_interval(run *R, const bcase *c, tine_smt *s, tine_expr_t *const *vars, const tine_i128 *want_lo,
                          const tine_i128 *want_hi, int max_print, case_tally *t) {
    tine_ctx_t *ctx = R->ctx;
    tine_i128 olo[3], ohi[3], lo, hi;
    int scope = tine_bounds_open(ctx, true);
    tine_expr_t *ops[3], *e = NULL;
    bool known = true, ok = true;
    for (int i = 0; i < c->n && ok; i++) ok = (ops[i] = operand(ctx, vars[i], want_lo[i], want_hi[i])) != NULL;
    if (ok) e = build(ctx, c, ops);
    if (e) {
        known = tine_bounds(ctx, e, &lo, &hi);
        for (int i = 0; i < c->n; i++)
            if (!tine_bounds(ctx, ops[i], &olo[i], &ohi[i])) { /* every operand type has a range */
                olo[i] = tmin(c->ot[i]);
                ohi[i] = tmax(c->ot[i]);
            }
    }
    tine_bounds_close(ctx, scope);
    if (!e) return -1;
    if (!known) {
        t->none++;
        return 0;
    }
    if (R->o->shrink & 1) lo++;
    if (R->o->shrink & 2) hi--;
    Z3_ast x[3][MAX_CASE_LANES], r[MAX_CASE_LANES], conj[4];
    if (tine_smt_encode(s, e, r)) return -1;
    int rc = 0;
    for (int i = 0; i < c->n; i++) {
        if (tine_smt_encode(s, ops[i], x[i])) rc = -1;
        else conj[i] = all_inside(s, c->ot[i], x[i], olo[i], ohi[i]);
    }
    if (rc) return -1;
    /* below the interval, then above it: two smaller queries than their union; a lane
       outside is a hit (every lane must lie in the interval) */
    int sat = 0;
    Z3_context z = tine_smt_z3(s);
    for (int side = 0; side < 2 && sat <= 0; side++) {
        Z3_ast out[MAX_CASE_LANES];
        for (int l = 0; l < e->type.lanes; l++) out[l] = outside(s, e->type, r[l], lo, hi, side);
        conj[c->n] = e->type.lanes == 1 ? out[0] : Z3_mk_or(z, e->type.lanes, out);
        int q = tine_smt_sat(s, Z3_mk_and(z, (unsigned)c->n + 1, conj));
        sat = q != 0 ? q : sat; /* a hit on either side, else unknown if either was */
    }
    t->checked++;
    if (sat < 0) t->unknown++;
    if (sat <= 0) return 0;
    if (t->hits++ < max_print && R->out) {
        char b0[48], b1[48];
        fprintf(R->out, "HIT %s: ", c->name);
        for (int i = 0; i < c->n; i++) {
            fprintf(R->out, "%c in [%s, %s] = ", "abc"[i], tine_i128_str(olo[i], b0), tine_i128_str(ohi[i], b1));
            put_vals(R->out, s, c->ot[i], x[i]);
            fputs("; ", R->out);
        }
        fputs("result ", R->out);
        put_vals(R->out, s, e->type, r);
        fprintf(R->out, " outside [%s, %s]\n", tine_i128_str(lo, b0), tine_i128_str(hi, b1));
    }
    return 0;
}

/* The k-th of m operand intervals of c: from the edges E (exhaustive), or drawn. */
static void pick_interval(const bcase *c, tine_i128 E[3][32], const int *nE, bool exhaustive, long k, long m,
                          uint64_t *rng, tine_i128 *want_lo, tine_i128 *want_hi) {
    for (int i = 0; i < c->n; i++) {
        if (exhaustive) edge_interval(E[0], nE[0], k, m, &want_lo[i], &want_hi[i]);
        else if (c->ot[i].kind == TINE_BOOL && c->n == 1) { /* [0, 1], [0, 0], [1, 1] */
            want_lo[i] = k == 2;
            want_hi[i] = k != 1;
        }
        else rand_interval(c->ot[i], E[i], nE[i], rng, &want_lo[i], &want_hi[i]);
    }
}

/* Adds a case's tally to the totals and prints its line; k of its m intervals ran. */
static void case_done(run *R, const bcase *c, const case_tally *t, long m, long k, double dt) {
    tine_verify_bounds_totals *T = R->t;
    T->cases++;
    T->intervals += t->checked;
    T->hits += t->hits;
    T->unknown += t->unknown;
    T->no_interval += t->none;
    T->skipped += m - k;
    T->cases_with_hits += t->hits > 0;
    T->op_intervals[c->op] += t->checked;
    T->op_hits[c->op] += t->hits;
    if (R->out) {
        fprintf(R->out, "%-40s %6ld intervals %5ld hits %4ld unknown", c->name, t->checked, t->hits, t->unknown);
        if (t->none) fprintf(R->out, " %5ld without one", t->none);
        if (m > k) fprintf(R->out, " %5ld skipped (time)", m - k);
        fprintf(R->out, " %8.2f s\n", dt);
        fflush(R->out);
    }
}

static int run_case(run *R, const bcase *c) {
    tine_ctx_t *ctx = R->ctx;
    const tine_verify_bounds_opts *o = R->o;
    if (o->only && !strstr(c->name, o->only)) return 0;
    for (int i = 0; i < c->n; i++)
        if (o->max_bits && c->ot[i].bits > o->max_bits) return 0;
    double t0 = seconds_now();
    int serial = R->serial++;
    tine_expr_t *vars[3];
    tine_i128 E[3][32];
    int nE[3] = {0, 0, 0};
    for (int i = 0; i < c->n; i++) {
        char vn[64];
        snprintf(vn, sizeof vn, "bc%d_%c", serial, "abc"[i]);
        vars[i] = tine_var(ctx, vn, c->ot[i]);
        nE[i] = c->ot[i].kind == TINE_BOOL ? 0 : edge_set(c->ot[i], E[i]);
    }
    bool exhaustive;
    long m = tuple_count(R, c, nE[0], &exhaustive);
    case_tally tally = {0};
    R->t->planned += m;
    if (o->plan_only) {
        R->t->cases++;
        return 0;
    }
    if (R->deadline && t0 >= R->deadline) { /* past the deadline: every tuple skipped, no line */
        R->t->cases++;
        R->t->skipped += m;
        R->t->stopped = true;
        return 0;
    }
    uint64_t rng = (o->seed ? o->seed : 0xb0b0c0de) ^ name_hash(c->name);
    tine_smt *s = tine_smt_new(ctx, o->timeout_ms ? o->timeout_ms : 10000);
    int max_print = o->max_print ? o->max_print : 2, rc = 0;
    long k = 0;
    for (; k < m && rc == 0; k++) {
        double now = seconds_now();
        if (o->case_seconds > 0 && now - t0 > o->case_seconds) break;
        if (R->deadline) {
            if (now >= R->deadline) {
                R->t->stopped = true;
                break;
            }
            /* a query may not run past the deadline */
            double left_ms = (R->deadline - now) * 1000;
            unsigned limit = o->timeout_ms ? o->timeout_ms : 10000;
            tine_smt_set_timeout(s, left_ms < limit ? (left_ms < 1 ? 1 : (unsigned)left_ms) : limit);
        }
        tine_i128 want_lo[3], want_hi[3];
        pick_interval(c, E, nE, exhaustive, k, m, &rng, want_lo, want_hi);
        if (check_interval(R, c, s, vars, want_lo, want_hi, max_print, &tally)) {
            rc = -1;
            break;
        }
    }
    tine_smt_free(s);
    if (rc) return -1;
    case_done(R, c, &tally, m, k, seconds_now() - t0);
    return 0;
}

/* ---- the cases --------------------------------------------------------------------- */

/* A type in a case's name: its element, or with its lanes for a repack (reinterpret<u16x1>(u8x2)). */
static const char *case_type(const bcase *c, tine_type_t t, char b[16]) {
    char e[16];
    if (c->f != F_REPACK) return tine_type_name(t, b);
    snprintf(b, 16, "%sx%d", tine_type_name(t, e), t.lanes);
    return b;
}

/* Runs c if its constructor takes those operand types (probed on plain variables). */
static int try_case(run *R, bcase *c) {
    tine_expr_t *v[3];
    for (int i = 0; i < c->n; i++) v[i] = tine_var(R->ctx, "bc_probe", c->ot[i]);
    tine_expr_t *e = build(R->ctx, c, v);
    tine_clear_error(R->ctx);
    if (!e) return 0;
    char tn[3][16], pn[16];
    bool re = c->f == F_REINTERPRET || c->f == F_REPACK;
    const char *on = c->f == F_CAST ? "cast" : re ? "reinterpret" : tine_op_name(c->op);
    int k = snprintf(c->name, sizeof c->name, "%s", on);
    if (c->f == F_CAST || re || c->op == TINE_OP_SATURATING_CAST)
        k += snprintf(c->name + k, sizeof c->name - (size_t)k, "<%s>", case_type(c, c->tparam, pn));
    k += snprintf(c->name + k, sizeof c->name - (size_t)k, "(");
    for (int i = 0; i < c->n; i++)
        k += snprintf(c->name + k, sizeof c->name - (size_t)k, "%s%s", i ? ", " : "", case_type(c, c->ot[i], tn[i]));
    snprintf(c->name + k, sizeof c->name - (size_t)k, ")");
    return run_case(R, c);
}

static const tine_op_t BINARY_OPS[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV, TINE_OP_MOD, TINE_OP_MIN,
                                       TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR,  TINE_OP_XOR, TINE_OP_SHL, TINE_OP_SHR,
                                       TINE_OP_EQ,  TINE_OP_NE,  TINE_OP_LT,  TINE_OP_LE,  TINE_OP_GT,  TINE_OP_GE};

static int cases_of_type(run *R, tine_type_t t) {
    int rc = 0;
    /* binary ops, the second operand of every type the constructor takes (shift counts) */
    for (size_t i = 0; i < sizeof BINARY_OPS / sizeof BINARY_OPS[0] && !rc; i++)
        for (int j = 0; j < 8 && !rc; j++)
            rc = try_case(R, &(bcase){F_BINARY, BINARY_OPS[i], 2, {t, ITYPES[j]}, {0, 0, 0}, ""});
    for (int u = 0; u < 2 && !rc; u++)
        rc = try_case(R, &(bcase){F_UNARY, u ? TINE_OP_NOT : TINE_OP_NEG, 1, {t}, {0, 0, 0}, ""});
    if (!rc) rc = try_case(R, &(bcase){F_SELECT, TINE_OP_SELECT, 3, {BOOLT, t, t}, {0, 0, 0}, ""});
    /* casts to and from every type and bool; reinterprets where they are taken, and to
       every integer type of other bits (its lanes repacked) */
    for (int j = 0; j <= 8 && !rc; j++) {
        tine_type_t u = j < 8 ? ITYPES[j] : BOOLT;
        rc = try_case(R, &(bcase){F_CAST, TINE_OP_CAST, 1, {t}, u, ""});
        if (!rc) rc = try_case(R, &(bcase){F_REINTERPRET, TINE_OP_REINTERPRET, 1, {t}, u, ""});
        if (!rc && j < 8 && u.bits != t.bits) {
            int bits = u.bits > t.bits ? u.bits : t.bits;
            rc = try_case(R, &(bcase){F_REPACK, TINE_OP_REINTERPRET, 1, {tine_type_with_lanes(t, bits / t.bits)},
                                      tine_type_with_lanes(u, bits / u.bits), ""});
        }
    }
    if (!rc) rc = try_case(R, &(bcase){F_CAST, TINE_OP_CAST, 1, {BOOLT}, t, ""});
    /* FPIR ops: every arity and combination of operand types its constructor takes, the
       first operand t (saturating_cast: to every type) */
    for (int op = TINE_FPIR_FIRST; op < TINE_OP_COUNT && !rc; op++)
        for (int n = 1; n <= 3 && !rc; n++) {
            int combos = n == 1 ? 1 : n == 2 ? 8 : 64;
            for (int k = 0; k < combos && !rc; k++)
                for (int p = 0; p < (op == TINE_OP_SATURATING_CAST ? 8 : 1) && !rc; p++)
                    rc = try_case(R, &(bcase){F_FPIR, (tine_op_t)op, n, {t, ITYPES[k % 8], ITYPES[k / 8]}, ITYPES[p], ""});
        }
    return rc;
}

int tine_verify_bounds(tine_ctx_t *ctx, const tine_verify_bounds_opts *o, FILE *out, tine_verify_bounds_totals *t) {
    tine_verify_bounds_opts dflt = {0};
    tine_verify_bounds_totals tt;
    if (!o) o = &dflt;
    if (!t) t = &tt;
    memset(t, 0, sizeof *t);
    run R = {ctx, o, out, t, 0, 0};
    double t0 = seconds_now();
    if (o->deadline_seconds > 0) R.deadline = t0 + o->deadline_seconds;
    int rc = 0;
    for (int i = 0; i < 8 && !rc; i++) rc = cases_of_type(&R, ITYPES[i]);
    t->seconds = seconds_now() - t0;
    if (out && !o->plan_only)
        fprintf(out,
                "bounds: %ld cases, %ld intervals checked, %ld hits (in %ld cases), %ld unknown, %ld without an "
                "interval, %ld skipped (time%s), %.1f s\n",
                t->cases, t->intervals, t->hits, t->cases_with_hits, t->unknown, t->no_interval, t->skipped,
                t->stopped ? ": the run's deadline stopped it" : "", t->seconds);
    if (rc) return -1;
    return t->hits ? 1 : 0;
}
