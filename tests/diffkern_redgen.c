/* diffkern_redgen.c — random reduction kernels as trees (dk_kernel_t), their .tine text
 * and random schedules for them (test_diffkern's part 4; diffkern_eval.h).
 *
 * A kernel: `input in0: T[dims]`, `param p: i32` (reduction bounds, offsets), `param z:
 * i32` (always 0: constant bounds written `a + z..b + z` make the same reduction a loop),
 * `param q: T`, edge and constant boundaries, up to two functions (m0; m1 reading m0, or
 * a per-row s(y)), the output. Reductions (sum, min, max) have constant bounds (empty
 * and negative ones too), parameter bounds, or an enclosing variable's; their bodies
 * cast and reinterpret the variable, multiply it by constants near 2^30 and 2^31, divide
 * what wrapped. Functions are called at negative and scaled offsets (m0(2 * x - 3, y +
 * 1), m0(-x + 2, y)). Every literal is in its type's range and every tree is a kernel
 * tine must accept.
 */
#include "internal.h"

#include "diffkern_eval.h"

#include <inttypes.h>

static const dk_type_t I32 = {true, 32};

typedef struct {
    dk_kernel_t *k;
    uint64_t *seed;
    int fn;            /* the body being drawn: 0, 1 a function, 2 the output */
    bool coord_ok[2];  /* coordinates this body has */
    int rv[4], nrv;    /* reduction variables in scope, innermost last */
    int reductions;    /* in this body so far */
} g_t;

static int rnd(g_t *g, int n) { return (int)(tine_rand64(g->seed) % (uint64_t)n); }

static dk_node_t *node(g_t *g, dk_kind_t kind, dk_type_t t) {
    TINE_ASSERT(g->k->nnodes < DK_MAXNODES);
    dk_node_t *n = &g->k->pool[g->k->nnodes++];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->t = t;
    return n;
}

static dk_node_t *cnst(g_t *g, dk_type_t t, int64_t v) {
    dk_node_t *n = node(g, DK_CONST, t);
    n->value = (int64_t)dk_norm(t, (uint64_t)v);
    return n;
}

static dk_node_t *bin(g_t *g, int op, dk_node_t *a, dk_node_t *b) {
    dk_node_t *n = node(g, DK_BIN, a->t);
    n->op = op;
    n->a[0] = a;
    n->a[1] = b;
    n->n = 2;
    return n;
}

static dk_node_t *unop(g_t *g, dk_kind_t kind, dk_type_t t, dk_node_t *a) {
    dk_node_t *n = node(g, kind, t);
    n->a[0] = a;
    n->n = 1;
    return n;
}

static dk_type_t rtype(g_t *g) {
    static const dk_type_t T[] = {{false, 8}, {true, 8}, {false, 16}, {true, 16}, {false, 32}, {true, 32},
                                  {false, 32}, {true, 32}, {false, 64}, {true, 64}};
    return T[rnd(g, 10)];
}

static int64_t tmin(dk_type_t t) { return t.sgn ? (int64_t)dk_norm(t, UINT64_C(1) << (t.bits - 1)) : 0; }
static uint64_t tmax(dk_type_t t) {
    return t.bits == 64 ? (t.sgn ? (uint64_t)INT64_MAX : UINT64_MAX) : (UINT64_C(1) << (t.bits - (t.sgn ? 1 : 0))) - 1;
}

/* a constant of t: small, or near the type's limits, or a power of two near 2^30 */
static int64_t interesting(g_t *g, dk_type_t t) {
    switch (rnd(g, 8)) {
    case 0: return tmin(t);
    case 1: return (int64_t)tmax(t);
    case 2: return (int64_t)(tmax(t) / 2 + 1);            /* 2^(bits-1) or 2^(bits-2) */
    case 3: return t.bits >= 32 ? INT64_C(1073741824) : (int64_t)(tmax(t) / 3);
    case 4: return t.sgn ? -1 - rnd(g, 5) : 1 + rnd(g, 5);
    case 5: return t.sgn ? tmin(t) + 1 : (int64_t)(tmax(t) - 1);
    default: return rnd(g, 20);
    }
}

/* a reduction variable in scope, as an i32 expression: itself, or wrapping arithmetic on
 * it (r * 2^30, r * 2^30 / 2^30, r + INT_MAX, r * r * c, -r) */
static dk_node_t *rvar_expr(g_t *g) {
    dk_node_t *r = node(g, DK_RVAR, I32);
    r->index = g->rv[rnd(g, g->nrv)];
    switch (rnd(g, 8)) {
    case 0: {
        int64_t c = rnd(g, 2) ? 1073741824 : 1 << (20 + rnd(g, 11));
        return bin(g, DK_DIV, bin(g, DK_MUL, r, cnst(g, I32, c)), cnst(g, I32, c));
    }
    case 1: return bin(g, DK_MUL, r, cnst(g, I32, rnd(g, 2) ? 1073741824 : 715827883));
    case 2: return bin(g, DK_ADD, r, cnst(g, I32, rnd(g, 2) ? INT32_MAX : INT32_MIN));
    case 3: return bin(g, DK_MUL, bin(g, DK_MUL, r, r), cnst(g, I32, 536870912 + rnd(g, 3)));
    case 4: return bin(g, DK_SUB, cnst(g, I32, rnd(g, 3)), r);
    default: return r;
    }
}

/* an i32 expression of type t from v: itself, a cast, or a reinterpret (same bits) */
static dk_node_t *convert(g_t *g, dk_node_t *v, dk_type_t t) {
    if (v->t.sgn == t.sgn && v->t.bits == t.bits) return v;
    if (v->t.bits == t.bits && rnd(g, 2)) return unop(g, DK_REINTERP, t, v);
    return unop(g, DK_CAST, t, v);
}

static dk_node_t *expr(g_t *g, dk_type_t t, int depth);

/* a coordinate of dimension d (a coordinate of the body, or, when it has none there — s(y)
 * reading along x — a constant or a reduction variable), i32:
 *   how 0: a direct read of the input, near the coordinate (x + c, x + r);
 *   how 1: a boundary, anywhere (2 * x - 3, -x + c, x / 2, min(x, c), x + r);
 *   how 2: a function (a * x + c with a in {1, 2, -1}; rows y + c when plain). */
static dk_node_t *coord(g_t *g, int d, int how, bool plain_row) {
    if (!g->coord_ok[d]) {
        if (g->nrv && rnd(g, 2)) {
            dk_node_t *r = node(g, DK_RVAR, I32);
            r->index = g->rv[rnd(g, g->nrv)];
            return r;
        }
        return cnst(g, I32, rnd(g, 9) - 2);
    }
    dk_node_t *c = node(g, DK_COORD, I32);
    c->index = d;
    /* rows y + c, c in [-8, 2]: windows up to 11 rows (issue 30 finding 3: taller than 8) */
    if (how == 2 && d == 1 && plain_row) return rnd(g, 3) ? bin(g, DK_ADD, c, cnst(g, I32, rnd(g, 11) - 8)) : c;
    int pick = rnd(g, how == 0 ? 4 : 8);
    if (pick == 3 && g->nrv) {
        dk_node_t *r = node(g, DK_RVAR, I32);
        r->index = g->rv[rnd(g, g->nrv)];
        return bin(g, rnd(g, 2) ? DK_ADD : DK_SUB, c, r);
    }
    switch (pick) {
    case 0: return c;
    case 1: case 2: case 3: return bin(g, DK_ADD, c, cnst(g, I32, rnd(g, 7) - 3));
    case 4: return bin(g, DK_ADD, bin(g, DK_MUL, cnst(g, I32, 2), c), cnst(g, I32, rnd(g, 9) - 4));
    case 5: return bin(g, DK_ADD, bin(g, DK_MUL, cnst(g, I32, -1), c), cnst(g, I32, rnd(g, 9) - 4));
    case 6:
        if (how == 1) return bin(g, DK_DIV, c, cnst(g, I32, 2 + rnd(g, 2)));
        return bin(g, DK_SUB, bin(g, DK_MUL, cnst(g, I32, 2), c), cnst(g, I32, 3));
    default:
        if (how == 1) return bin(g, DK_MIN, c, cnst(g, I32, rnd(g, 30)));
        return bin(g, DK_ADD, c, cnst(g, I32, -rnd(g, 4)));
    }
}

static dk_node_t *read(g_t *g, dk_type_t t) {
    dk_kernel_t *k = g->k;
    int srcs[5], ns = 0;
    srcs[ns++] = DK_SRC_IN;
    if (k->has_edge) srcs[ns++] = DK_SRC_EDGE;
    if (k->has_const) srcs[ns++] = DK_SRC_CONST;
    for (int f = 0; f < k->nfn && f < g->fn; f++)
        if (!(g->fn < 2 && k->fn[f].nargs == 1)) srcs[ns++] = DK_SRC_FN0 + f; /* s(y) is read by the output only */
    int s = srcs[rnd(g, ns)];
    dk_node_t *n = node(g, DK_READ, k->in_t);
    n->index = s;
    if (s >= DK_SRC_FN0) {
        dk_fn_t *f = &k->fn[s - DK_SRC_FN0];
        n->t = f->t;
        n->n = f->nargs;
        for (int i = 0; i < f->nargs; i++) n->a[i] = coord(g, f->arg[i], g->fn == 2 ? 2 : 0, true);
    } else {
        n->n = k->dims;
        for (int d = 0; d < k->dims; d++) n->a[d] = coord(g, d, s == DK_SRC_IN ? 0 : 1, false);
    }
    return convert(g, n, t);
}

/* bounds: constants (empty, negative), the parameter, an enclosing variable; *loop: not
 * both constants */
static void range(g_t *g, dk_node_t *red) {
    dk_node_t *p = node(g, DK_PARAM, I32);
    p->index = 0;
    switch (rnd(g, 8)) {
    case 0: case 1: case 2: { /* constant: lo in [-3, 2], hi up to 4 past it (empty too) */
        int lo = rnd(g, 6) - 3;
        red->a[0] = cnst(g, I32, lo);
        red->a[1] = cnst(g, I32, lo + rnd(g, 6) - 1);
        return;
    }
    case 3: red->a[0] = cnst(g, I32, 0); red->a[1] = p; return;
    case 4: red->a[0] = cnst(g, I32, -rnd(g, 3)); red->a[1] = bin(g, DK_ADD, p, cnst(g, I32, rnd(g, 3) - 1)); return;
    case 5: red->a[0] = p; red->a[1] = cnst(g, I32, 3); return;
    case 6: red->a[0] = cnst(g, I32, 0); red->a[1] = bin(g, DK_MIN, p, cnst(g, I32, 3)); return;
    default:
        if (g->nrv) {
            dk_node_t *r = node(g, DK_RVAR, I32);
            r->index = g->rv[g->nrv - 1];
            red->a[0] = rnd(g, 2) ? cnst(g, I32, 0) : r;
            red->a[1] = red->a[0] == r ? cnst(g, I32, 3) : bin(g, DK_ADD, r, cnst(g, I32, 1));
        } else {
            red->a[0] = cnst(g, I32, -2);
            red->a[1] = p;
        }
        return;
    }
}

static dk_node_t *leaf(g_t *g, dk_type_t t) {
    int k = rnd(g, 10);
    if (k < 4) return read(g, t);
    if (k < 6 && g->nrv) return convert(g, rvar_expr(g), t);
    if (k == 6) {
        int ds[2], nd = 0;
        for (int d = 0; d < 2; d++)
            if (g->coord_ok[d]) ds[nd++] = d;
        if (nd) {
            dk_node_t *c = node(g, DK_COORD, I32);
            c->index = ds[rnd(g, nd)];
            return convert(g, c, t);
        }
    }
    if (k == 7) { /* q (its type), or p or z (i32) */
        int which = rnd(g, 5);
        dk_node_t *p = node(g, DK_PARAM, which < 2 ? g->k->q_t : I32);
        p->index = which < 2 ? 2 : which < 4 ? 0 : 1;
        return convert(g, p, t);
    }
    /* a constant alone: small, written t(c) */
    int64_t v = t.sgn ? rnd(g, 200) - 100 : rnd(g, 200);
    if (t.bits == 8) v = t.sgn ? rnd(g, 200) - 100 : rnd(g, 256);
    return cnst(g, t, v);
}

static dk_node_t *expr(g_t *g, dk_type_t t, int depth) {
    if (depth <= 0) return leaf(g, t);
    switch (rnd(g, 12)) {
    case 0: case 1: case 2: { /* a binary op; the right operand a constant a third of the time */
        static const int OPS[] = {DK_ADD, DK_SUB, DK_MUL, DK_MUL, DK_DIV, DK_MOD, DK_AND, DK_OR,
                                  DK_XOR, DK_MIN, DK_MAX, DK_ADD, DK_SUB, DK_DIV};
        int op = OPS[rnd(g, 14)];
        dk_node_t *a = expr(g, t, depth - 1);
        dk_node_t *b = rnd(g, 3) ? expr(g, t, depth - 1) : cnst(g, t, interesting(g, t));
        return bin(g, op, a, b);
    }
    case 3: { /* a shift by a constant */
        dk_node_t *a = expr(g, t, depth - 1);
        return bin(g, rnd(g, 2) ? DK_SHL : DK_SHR, a, cnst(g, t, rnd(g, t.bits)));
    }
    case 4: { /* a cast or reinterpret from another type */
        dk_type_t u = rtype(g);
        if (rnd(g, 3) == 0) u = (dk_type_t){!t.sgn, t.bits};
        return convert(g, expr(g, u, depth - 1), t);
    }
    case 5: {
        dk_type_t u = rtype(g);
        dk_node_t *n = node(g, DK_SELECT, t);
        n->op = rnd(g, DK_NCMP);
        n->a[0] = expr(g, u, depth - 1);
        n->a[1] = rnd(g, 2) ? expr(g, u, depth - 1) : cnst(g, u, interesting(g, u));
        n->a[2] = expr(g, t, depth - 1);
        n->a[3] = expr(g, t, depth - 1);
        n->n = 4;
        return n;
    }
    case 6: case 7: case 8:
        if (g->reductions < 3 && g->nrv < 2 && g->k->nrvars < DK_MAXRVARS) {
            dk_node_t *n = node(g, DK_RED, t);
            n->op = rnd(g, 3);
            n->index = g->k->nrvars++;
            g->reductions++;
            range(g, n);
            g->rv[g->nrv++] = n->index;
            n->a[2] = expr(g, t, depth - 1);
            g->nrv--;
            n->n = 3;
            return n;
        }
        return leaf(g, t);
    default: return leaf(g, t);
    }
}

static void body(g_t *g, int fn, bool x_ok, bool y_ok) {
    g->fn = fn;
    g->coord_ok[0] = x_ok;
    g->coord_ok[1] = y_ok;
    g->nrv = g->reductions = 0;
}

void dk_generate(dk_kernel_t *k, uint64_t *seed) {
    memset(k, 0, sizeof *k);
    g_t g = {.k = k, .seed = seed};
    k->dims = 1 + rnd(&g, 2);
    k->in_t = rtype(&g);
    k->q_t = rtype(&g);
    k->has_edge = rnd(&g, 2);
    k->has_const = rnd(&g, 2);
    k->zval = (int64_t)dk_norm(k->in_t, (uint64_t)(rnd(&g, 300) - 100));
    /* functions: m0, then m1 (reads m0) or a per-row s(y) (2-D kernels) */
    int nfn = rnd(&g, 3);
    for (int f = 0; f < nfn; f++) {
        dk_fn_t *F = &k->fn[f];
        bool row = f == 1 && k->dims == 2 && rnd(&g, 3);
        snprintf(F->name, sizeof F->name, "%s", row ? "s" : f ? "m1" : "m0");
        F->nargs = row ? 1 : k->dims;
        F->arg[0] = row ? 1 : 0;
        F->arg[1] = 1;
        F->t = rtype(&g);
        body(&g, f, !row, row || k->dims == 2);
        k->nfn = f; /* reads only the functions before it */
        if (row) { /* a per-row reduction along x: s(y) = sum(k in 0..p) T(e(k, y)) ... */
            dk_node_t *n = node(&g, DK_RED, F->t);
            n->op = rnd(&g, 3);
            n->index = k->nrvars++;
            g.reductions++;
            range(&g, n);
            g.rv[g.nrv++] = n->index;
            n->a[2] = expr(&g, F->t, 1 + rnd(&g, 2));
            n->n = 3;
            F->body = n;
        } else
            F->body = expr(&g, F->t, 1 + rnd(&g, 3));
    }
    k->nfn = nfn;
    k->out_t = rtype(&g);
    body(&g, 2, true, k->dims == 2);
    /* the output reads every function (so each is computed), then a random body */
    dk_node_t *o = expr(&g, k->out_t, 1 + rnd(&g, 3));
    for (int f = 0; f < nfn; f++) {
        dk_node_t *n = node(&g, DK_READ, k->fn[f].t);
        n->index = DK_SRC_FN0 + f;
        n->n = k->fn[f].nargs;
        for (int i = 0; i < n->n; i++) n->a[i] = coord(&g, k->fn[f].arg[i], 2, true);
        o = bin(&g, rnd(&g, 2) ? DK_ADD : DK_XOR, o, convert(&g, n, k->out_t));
    }
    k->out = o;
}

/* ---- text ---- */

const char *dk_type_name(dk_type_t t) {
    static const char *const N[2][4] = {{"u8", "u16", "u32", "u64"}, {"i8", "i16", "i32", "i64"}};
    return N[t.sgn][t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : 3];
}

static const char *const COORD_NAME[2] = {"x", "y"};

static void print_const(tine_buf *b, int64_t v, dk_type_t t) {
    if (t.sgn) tine_buf_printf(b, v < 0 ? "(%" PRId64 ")" : "%" PRId64, v);
    else tine_buf_printf(b, "%" PRIu64, (uint64_t)v & (t.bits == 64 ? UINT64_MAX : (UINT64_C(1) << t.bits) - 1));
}

static void print(tine_buf *b, const dk_kernel_t *k, const dk_node_t *n, bool pb) {
    static const char *const OP[] = {"+", "-", "*", "/", "%", "&", "|", "^", "min", "max", "<<", ">>"};
    static const char *const CMP[] = {"<", "<=", "==", "!=", ">", ">="};
    static const char *const RED[] = {"sum", "min", "max"};
    static const char *const SRC[] = {"in0", "e", "c"};
    switch (n->kind) {
    case DK_CONST: /* alone: t(c) */
        tine_buf_printf(b, "%s(", dk_type_name(n->t));
        print_const(b, n->value, n->t);
        tine_buf_puts(b, ")");
        return;
    case DK_COORD: tine_buf_puts(b, COORD_NAME[n->index]); return;
    case DK_RVAR: tine_buf_printf(b, "r%d", n->index); return;
    case DK_PARAM: tine_buf_puts(b, n->index == 0 ? "p" : n->index == 1 ? "z" : "q"); return;
    case DK_READ:
        tine_buf_printf(b, "%s(", n->index >= DK_SRC_FN0 ? k->fn[n->index - DK_SRC_FN0].name : SRC[n->index]);
        for (int i = 0; i < n->n; i++) {
            if (i) tine_buf_puts(b, ", ");
            print(b, k, n->a[i], pb);
        }
        tine_buf_puts(b, ")");
        return;
    case DK_CAST:
    case DK_REINTERP:
        tine_buf_printf(b, n->kind == DK_CAST ? "%s(" : "reinterpret<%s>(", dk_type_name(n->t));
        print(b, k, n->a[0], pb);
        tine_buf_puts(b, ")");
        return;
    case DK_BIN:
        if (n->op == DK_MIN || n->op == DK_MAX) tine_buf_printf(b, "%s(", OP[n->op]);
        else tine_buf_puts(b, "(");
        if (n->a[0]->kind == DK_CONST && n->a[1]->kind != DK_CONST) print_const(b, n->a[0]->value, n->a[0]->t);
        else print(b, k, n->a[0], pb);
        tine_buf_puts(b, n->op == DK_MIN || n->op == DK_MAX ? ", " : " ");
        if (n->op != DK_MIN && n->op != DK_MAX) tine_buf_printf(b, "%s ", OP[n->op]);
        /* a constant operand takes its type from the other (a literal); both constants:
           the left one is written t(c) */
        if (n->a[1]->kind == DK_CONST) print_const(b, n->a[1]->value, n->a[1]->t);
        else print(b, k, n->a[1], pb);
        tine_buf_puts(b, ")");
        return;
    case DK_SELECT:
        tine_buf_puts(b, "select(");
        print(b, k, n->a[0], pb);
        tine_buf_printf(b, " %s ", CMP[n->op]);
        if (n->a[1]->kind == DK_CONST) print_const(b, n->a[1]->value, n->a[1]->t);
        else print(b, k, n->a[1], pb);
        for (int i = 2; i < 4; i++) {
            tine_buf_puts(b, ", ");
            print(b, k, n->a[i], pb);
        }
        tine_buf_puts(b, ")");
        return;
    case DK_RED: {
        bool both = n->a[0]->kind == DK_CONST && n->a[1]->kind == DK_CONST;
        tine_buf_printf(b, "%s(r%d in ", RED[n->op], n->index);
        for (int i = 0; i < 2; i++) {
            if (i) tine_buf_puts(b, "..");
            if (n->a[i]->kind == DK_CONST) tine_buf_printf(b, "%" PRId64, n->a[i]->value);
            else print(b, k, n->a[i], pb);
            if (both && pb) tine_buf_puts(b, " + z");
        }
        tine_buf_puts(b, ") (");
        print(b, k, n->a[2], pb);
        tine_buf_puts(b, ")");
        return;
    }
    }
}

char *dk_print(const dk_kernel_t *k, bool param_bounds, const char *schedule) {
    tine_buf b = {0};
    const char *args = k->dims == 2 ? "x, y" : "x";
    tine_buf_printf(&b, "input in0: %s[%d]\nparam p: i32\nparam z: i32\nparam q: %s\n", dk_type_name(k->in_t), k->dims,
                    dk_type_name(k->q_t));
    if (k->has_edge) tine_buf_puts(&b, "func e = edge(in0)\n");
    if (k->has_const) {
        tine_buf_puts(&b, "func c = constant(in0, ");
        print_const(&b, k->zval, k->in_t);
        tine_buf_puts(&b, ")\n");
    }
    for (int f = 0; f < k->nfn; f++) {
        tine_buf_printf(&b, "func %s(%s) = ", k->fn[f].name, k->fn[f].nargs == 1 ? COORD_NAME[k->fn[f].arg[0]] : args);
        print(&b, k, k->fn[f].body, param_bounds);
        tine_buf_puts(&b, "\n");
    }
    tine_buf_printf(&b, "output out(%s): %s = ", args, dk_type_name(k->out_t));
    print(&b, k, k->out, param_bounds);
    tine_buf_puts(&b, "\n");
    if (schedule) tine_buf_printf(&b, "schedule\n%s", schedule);
    return b.p;
}

/* ---- schedules ---- */

/* whether n reads source src (not through other functions) */
static bool reads(const dk_node_t *n, int src) {
    if (n->kind == DK_READ && n->index == src) return true;
    for (int i = 0; i < n->n; i++)
        if (reads(n->a[i], src)) return true;
    return false;
}

static bool has_red(const dk_node_t *n, bool loops_only) {
    if (n->kind == DK_RED && (!loops_only || n->a[0]->kind != DK_CONST || n->a[1]->kind != DK_CONST)) return true;
    for (int i = 0; i < n->n; i++)
        if (has_red(n->a[i], loops_only)) return true;
    return false;
}

/* every read of src in n has its row (argument row_arg) at y or y + a constant */
static bool plain_rows(const dk_node_t *n, int src, int row_arg) {
    if (n->kind == DK_READ && n->index == src) {
        const dk_node_t *r = n->a[row_arg];
        bool ok = (r->kind == DK_COORD && r->index == 1) ||
                  (r->kind == DK_BIN && r->op == DK_ADD && r->a[0]->kind == DK_COORD && r->a[0]->index == 1 &&
                   r->a[1]->kind == DK_CONST);
        if (!ok) return false;
    }
    for (int i = 0; i < n->n; i++)
        if (!plain_rows(n->a[i], src, row_arg)) return false;
    return true;
}

/* the loop reductions of a stage's own body that `vectorize f.rN` may name: outermost
 * (no reduction around them: a constant one would unroll them into copies), no
 * reduction inside them, and no read of an inlined function that has one */
static void candidates(const dk_kernel_t *k, const dk_node_t *n, const bool *inl, const dk_node_t **cand, int *nc) {
    if (n->kind == DK_RED) {
        bool loop = n->a[0]->kind != DK_CONST || n->a[1]->kind != DK_CONST;
        bool ok = loop && !has_red(n->a[2], false) && !has_red(n->a[0], false) && !has_red(n->a[1], false);
        for (int f = 0; f < k->nfn && ok; f++)
            if (inl[f] && reads(n, DK_SRC_FN0 + f) && has_red(k->fn[f].body, false)) ok = false;
        if (ok && *nc < 8) cand[(*nc)++] = n;
        return;
    }
    for (int i = 0; i < n->n; i++) candidates(k, n->a[i], inl, cand, nc);
}

static int srnd(uint64_t *seed, int n) { return (int)(tine_rand64(seed) % (uint64_t)n); }

static void vectorize_reductions(tine_buf *b, const dk_kernel_t *k, const char *stage, const dk_node_t *body,
                                 const bool *inl, uint64_t *seed) {
    const dk_node_t *cand[8];
    int nc = 0;
    candidates(k, body, inl, cand, &nc);
    for (int i = 0; i < nc; i++) {
        if (srnd(seed, 3) == 0) continue;
        int N = 1 << srnd(seed, 6);
        int r = cand[i]->index;
        if (srnd(seed, 6) == 0) tine_buf_printf(b, "vectorize %s.r%d natural\n", stage, r);
        else if (cand[i]->op == DK_SUM && srnd(seed, 4) == 0) { /* acc: lanes that divide N (sums only) */
            int A = N >> srnd(seed, 3);
            tine_buf_printf(b, "vectorize %s.r%d %d acc %d\n", stage, r, N, A ? A : 1);
        } else tine_buf_printf(b, "vectorize %s.r%d %d\n", stage, r, N);
    }
}

char *dk_schedule(const dk_kernel_t *k, uint64_t *seed) {
    tine_buf b = {0};
    tine_buf_puts(&b, ""); /* an empty schedule is a schedule */
    bool inl[2] = {true, true}, at[2] = {false, false}, any_at = false;
    /* the output's rows split in strips (the functions may then be computed at a strip) */
    bool split = k->dims == 2 && srnd(seed, 6) == 0;
    if (split) tine_buf_printf(&b, "split out.y yo yi %d\n", 1 + srnd(seed, 5));
    for (int f = 0; f < k->nfn; f++) {
        const dk_fn_t *F = &k->fn[f];
        bool only_out = f + 1 >= k->nfn || !reads(k->fn[f + 1].body, DK_SRC_FN0 + f);
        bool can_at = k->dims == 2 && only_out && plain_rows(k->out, DK_SRC_FN0 + f, F->nargs - 1);
        switch (F->nargs == 1 && can_at && srnd(seed, 2) ? 2 : srnd(seed, 6)) {
        case 0: if (srnd(seed, 2)) tine_buf_printf(&b, "inline %s\n", F->name); continue;
        case 1: tine_buf_printf(&b, "compute_root %s\n", F->name); break;
        case 2: case 3:
            if (can_at) {
                tine_buf_printf(&b, "compute_at %s out.%s\n", F->name, split ? "yo" : "y");
                if (srnd(seed, 3) == 0) tine_buf_printf(&b, "store_at %s out.%s\n", F->name, split ? "yo" : "y");
                at[f] = any_at = true;
                break;
            }
            /* fall through */
        default: tine_buf_printf(&b, "materialize %s\n", F->name); break;
        }
        inl[f] = false;
        if (F->nargs == 2 && srnd(seed, 2)) tine_buf_printf(&b, "vectorize %s.x %d\n", F->name, 1 << srnd(seed, 5));
        if (F->nargs == 2 && !at[f] && srnd(seed, 6) == 0) tine_buf_printf(&b, "unroll %s.y 2\n", F->name);
        else if (F->nargs == 2 && !at[f] && srnd(seed, 6) == 0) tine_buf_printf(&b, "parallel %s.y\n", F->name);
        if (srnd(seed, 4) == 0) /* its own type, or one twice as wide that holds it */
            tine_buf_printf(&b, "store_as %s %s\n", F->name,
                            dk_type_name(F->t.bits < 64 && srnd(seed, 2) ? (dk_type_t){F->t.sgn || srnd(seed, 2), 2 * F->t.bits}
                                                                         : F->t));
    }
    for (int f = 0; f < k->nfn; f++)
        if (!inl[f]) vectorize_reductions(&b, k, k->fn[f].name, k->fn[f].body, inl, seed);
    vectorize_reductions(&b, k, "out", k->out, inl, seed);
    if (srnd(seed, 3)) tine_buf_puts(&b, "vectorize out.x natural\n");
    else tine_buf_printf(&b, "vectorize out.x %d\n", 1 << srnd(seed, 6));
    if (srnd(seed, 4) == 0) tine_buf_printf(&b, "unroll out.x %d\n", 2 + srnd(seed, 2));
    bool tiled = k->dims == 2 && !any_at && !split && srnd(seed, 6) == 0;
    if (tiled) tine_buf_printf(&b, "tile out x y %d %d\n", 4 << srnd(seed, 3), 1 + srnd(seed, 4));
    if (split && srnd(seed, 2)) tine_buf_printf(&b, "unroll out.%s 2\n", srnd(seed, 2) ? "yi" : "yo");
    else if (k->dims == 2 && !split && !tiled && srnd(seed, 4) == 0) tine_buf_printf(&b, "unroll out.y %d\n", 2 + 3 * srnd(seed, 2));
    if (k->dims == 2 && !any_at && srnd(seed, 5) == 0) tine_buf_printf(&b, "parallel out.%s\n", split ? "yo" : "y");
    if (srnd(seed, 6) == 0) tine_buf_printf(&b, "partition out.x %s\n", srnd(seed, 2) ? "always" : "never");
    return b.p;
}
