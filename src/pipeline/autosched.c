/* autosched.c — the automatic scheduler: `schedule auto` (and a kernel file with no
 * schedule) gets its directives chosen here, in the vocabulary hand schedules use
 * (materialize, vectorize, unroll ...), appended to the kernel's directives before they
 * are checked and applied (schedule.c). So an automatic schedule is applied by the
 * same code as a hand one, and `tine compile K.tine --emit schedule` prints it as .tine
 * text a user can paste and edit.
 *
 * It runs on the parsed kernel, before any stage is built, with a small cost model:
 *
 * - which functions can be materialized: those called only with coordinate-like
 *   arguments (coordinates, reduction variables, parameters, constants and + - * / %
 *   of them: the plan can bound the region read), whose value is not a condition;
 * - a stage's cost per element: its body elaborated at one lane (functions inlined,
 *   materialized ones loads), each operation weighed by the bits it processes (a 256-bit
 *   vector operation is 256), operations that do not depend on the first coordinate
 *   counted at 1/16 (hoisted out of the vector loop), loop reductions' updates by their
 *   trip count (where the bounds are parameters: at the parameters' estimates, or 64);
 * - where a function's loads in a stage miss one of the stage's iteration variables (a
 *   coordinate, or the variable of the loop reduction they are in), it is recomputed
 *   along that variable when inlined.
 *
 * Each decision is one function below; the vocabulary other directives will add
 * (compute_at with sliding windows, vectorized reductions, register tiles) has a hook
 * named where it belongs (TODO).
 */
#include "../ir/ast.h"

#include <stdio.h>

/* The weights of the cost model, in bit-operations per element (a 256-bit vector op is
 * 256). A materialized function's buffer is written once and read back by its consumers
 * from outside L1 (bench sizes are megapixels): TRAFFIC per bit of its element. */
enum { HOISTED_DIV = 16, TRIP_UNKNOWN = 64, MISSING_DIV = 16 };
/* At most this many elaborations per kernel, and this many steps in all of them: the
 * decisions after that are not taken (a kernel of a thousand functions, or a chain of
 * stencils that inlines to thousands of nodes, stays quick to compile; camera_pipe takes
 * 1000 elaborations and 730k steps). */
enum { ELAB_BUDGET = 2048, STEP_BUDGET = TINE_KLIMIT_STEPS / 16 };
static const double TRAFFIC = 12.0;
/* ... and a sliding window's rows (compute_at at the reader's rows) from L1: written and
 * read back once each. */
static const double TRAFFIC_WINDOW = 2.0;
static const double INF = 1e30;

typedef struct {
    bool cand;         /* a function that can be materialized */
    signed char red;   /* contains a reduction (through inlined calls): -1 not yet known */
    bool mat;          /* chosen: materialized */
    bool stencil;      /* chosen by the stencil rule (a sliding window candidate) */
    tine_type_t type;  /* its element type, elaborated alone (cand only) */
} as_decl;

typedef struct {
    tine_ctx_t *ctx;
    tine_kernel_ast *k;
    as_decl *d;
    int out;                               /* the output's declaration */
    int stage[TINE_KERNEL_MAX_STAGES];     /* declarations computed as stages: output first */
    double weight[TINE_KERNEL_MAX_STAGES]; /* each one's elements per output element (estimated:
                                              each coordinate its readers have and it has not
                                              divides by MISSING_DIV) */
    int nstages;
    int elabs;                             /* elaborations so far, against ELAB_BUDGET */
    long steps;                            /* their steps, against STEP_BUDGET */
    tine_kdirective *dir;                  /* the chosen directives */
    int ndir, capdir;
} as_state;

/* ---- the kernel's functions, syntactically ---------------------------------------------- */

typedef struct {
    const char *name;
    bool data; /* a let's value (may be buffer data), not a reduction variable */
} as_bind;

/* Whether a call argument is coordinate-like in declaration D with the bindings in scope:
 * integer constants, parameters, reduction variables, D's coordinates when D is the
 * output or itself a candidate, and + - * / % and negation of those. */
static bool coord_like(const as_state *A, int D, const tine_ast *root, const as_bind *sc, int nsc) {
    const tine_ast *stack[64];
    int top = 0;
    stack[top++] = root;
    while (top) {
        const tine_ast *a = stack[--top];
        if (a->kind == A_INT) continue;
        if (a->kind == A_NAME) {
            int i = nsc - 1;
            while (i >= 0 && strcmp(sc[i].name, a->name)) i--;
            if (i >= 0) {
                if (sc[i].data) return false;
                continue;
            }
            const tine_kdecl *d = &A->k->decls[D];
            bool coord = false;
            for (int j = 0; j < d->nargs; j++) coord |= !strcmp(d->args[j], a->name);
            if (coord && (D == A->out || A->d[D].cand)) continue;
            const tine_kdecl *p = tine_kernel_find(A->k, a->name);
            if (!coord && p && p->kind == K_PARAM) continue;
            return false;
        }
        bool arith = (a->kind == A_UNARY && a->op == TINE_OP_NEG) ||
                     (a->kind == A_BINARY && (a->op == TINE_OP_ADD || a->op == TINE_OP_SUB || a->op == TINE_OP_MUL ||
                                              a->op == TINE_OP_DIV || a->op == TINE_OP_MOD));
        if (!arith || top + a->nargs > 64) return false;
        for (int i = 0; i < a->nargs; i++) stack[top++] = a->args[i];
    }
    return true;
}

enum { W_VISIT, W_BIND, W_POP };

/* Clears the candidacy of every function that declaration D calls with an argument that
 * is not coordinate-like; true if it changed any. The body is walked with a stack of its
 * own (a body may be a chain of 200,000 terms). */
static bool uncandidate_callees(as_state *A, int D) {
    const tine_kdecl *d = &A->k->decls[D];
    const tine_ast *root = d->kind == K_BOUNDARY ? d->fill : d->body;
    if (!root) return false;
    struct step {
        const tine_ast *a;
        int act;
        bool data;
    } *st = NULL;
    as_bind sc[64];
    int top = 0, cap = 0, nsc = 0;
    bool changed = false;
    TINE_GROW(st, 64, cap);
    st[top++] = (struct step){root, W_VISIT, false};
    while (top) {
        struct step s = st[--top];
        if (s.act == W_BIND) {
            if (nsc < 64) sc[nsc++] = (as_bind){s.a->field, s.data};
            continue;
        }
        if (s.act == W_POP) {
            if (nsc) nsc--;
            continue;
        }
        const tine_ast *a = s.a;
        TINE_GROW(st, top + a->nargs + 3, cap);
        if (a->kind == A_CALL) {
            const tine_kdecl *c = tine_kernel_find(A->k, a->name);
            int ci = c ? (int)(c - A->k->decls) : -1;
            if (ci >= 0 && c->kind == K_FUNC && A->d[ci].cand)
                for (int i = 0; i < a->nargs; i++)
                    if (!coord_like(A, D, a->args[i], sc, nsc)) {
                        A->d[ci].cand = false;
                        changed = true;
                        break;
                    }
        }
        if (a->kind == A_LET || a->kind == A_REDUCE) { /* the bound part sees the new name */
            int body = a->kind == A_LET ? 1 : 2;
            st[top++] = (struct step){a, W_POP, false};
            st[top++] = (struct step){a->args[body], W_VISIT, false};
            st[top++] = (struct step){a, W_BIND, a->kind == A_LET};
            for (int i = 0; i < body; i++) st[top++] = (struct step){a->args[i], W_VISIT, false};
            continue;
        }
        for (int i = a->nargs - 1; i >= 0; i--)
            if (a->args[i]) st[top++] = (struct step){a->args[i], W_VISIT, false};
    }
    free(st);
    return changed;
}

/* Whether function i contains a reduction, its own or one of a function it calls
 * (syntactically: materialization does not change it). */
static bool contains_reduction(as_state *A, int i) {
    if (A->d[i].red >= 0) return A->d[i].red;
    const tine_kdecl *d = &A->k->decls[i];
    bool red = false;
    const tine_ast **st = NULL;
    int top = 0, cap = 0;
    TINE_GROW(st, 64, cap);
    if (d->body) st[top++] = d->body;
    while (top && !red) {
        const tine_ast *a = st[--top];
        if (a->kind == A_REDUCE) red = true;
        if (a->kind == A_CALL) {
            const tine_kdecl *c = tine_kernel_find(A->k, a->name);
            if (c && c->kind == K_FUNC) red |= contains_reduction(A, (int)(c - A->k->decls));
        }
        TINE_GROW(st, top + a->nargs, cap);
        for (int j = 0; j < a->nargs; j++)
            if (a->args[j]) st[top++] = a->args[j];
    }
    free(st);
    A->d[i].red = red;
    return red;
}

/* ---- stage bodies and their cost ------------------------------------------------------- */

typedef struct {
    tine_expr_t *body; /* one lane; NULL when it does not elaborate (then cost INF) */
    tine_reductions rs;
} as_body;

static void body_free(as_body *b) {
    free(b->rs.v);
    memset(b, 0, sizeof *b);
}

/* Marks the declarations the elaborator reads from buffers: the chosen ones and `extra`
 * (-1: none), each with its element type. */
static void mark(as_state *A, int extra) {
    for (int i = 0; i < A->k->ndecls; i++) {
        tine_kdecl *d = &A->k->decls[i];
        d->materialized = A->d[i].mat || i == extra;
        d->mtype = d->vtype = d->materialized ? A->d[i].type : (tine_type_t){0, 0, 0};
    }
}

/* Declaration i as a stage at one lane, with the chosen functions (and `extra`) loads:
 * its coordinates $.c0.. as kernel_stages.c's elaborate() binds them. */
static as_body elab(as_state *A, int i, int extra) {
    const tine_kdecl *d = &A->k->decls[i];
    tine_binding binds[4];
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    for (int j = 0; j < d->nargs; j++) {
        char vn[16];
        snprintf(vn, sizeof vn, "$.c%d", j);
        binds[j].name = d->args[j];
        binds[j].expr = tine_var(A->ctx, vn, i32);
    }
    mark(A, extra);
    as_body b = {0};
    b.rs.current = -1;
    /* priced INF past the budget: nothing more is chosen */
    if (++A->elabs > ELAB_BUDGET || A->steps > STEP_BUDGET) return b;
    b.body = tine_kernel_elaborate(A->ctx, A->k, d->body, binds, d->nargs, 1, &b.rs);
    A->steps += b.rs.steps;
    if (!b.body) body_free(&b);
    return b;
}

static int bits_of(tine_type_t t) { return t.bits < 8 ? 8 : t.bits; }

/* The weight of one operation (see the top of the file). */
static double op_weight(const tine_expr_t *e) {
    int b = bits_of(e->type), b0 = e->nops ? bits_of(e->ops[0]->type) : b, wide = b > b0 ? b : b0;
    switch ((tine_op_t)e->op) {
    case TINE_OP_CONST: case TINE_OP_VAR: case TINE_OP_BROADCAST: case TINE_OP_RAMP: return 0;
    case TINE_OP_CAST: case TINE_OP_REINTERPRET: return wide;
    case TINE_OP_MUL: return b >= 32 ? 2 * b : b;
    case TINE_OP_DIV: case TINE_OP_MOD: return 4 * b;
    case TINE_OP_EQ: case TINE_OP_NE: case TINE_OP_LT: case TINE_OP_LE: case TINE_OP_GT: case TINE_OP_GE: return b0;
    default: return tine_op_is_fpir((tine_op_t)e->op) ? 1.5 * wide : b;
    }
}

/* An expression's cost per element: its operations' weights, skipping the arithmetic of
 * load indices (per row: simplified and hoisted) unless it reads buffer data (a lookup
 * table: a gather, weighed as one element at a time); `hoist`: operations that do not
 * depend on the first coordinate count 1/HOISTED_DIV. Also the widest element it
 * computes with (in *widest, if given). */
static double expr_cost(tine_ctx_t *ctx, const tine_expr_t *root, bool hoist, int *widest) {
    enum { VALUE = 1, READS_C0 = 2, READS_DATA = 4 };
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    unsigned char *f = tine_xcalloc(n, 1);
    for (uint32_t i = 0; i < n; i++) { /* operands first (ids grow) */
        const tine_expr_t *e = order[i];
        if (e->op == TINE_OP_VAR && !strcmp(tine_expr_name(e), "$.c0")) f[i] |= READS_C0;
        if (e->op == TINE_OP_LOAD) f[i] |= READS_DATA;
        for (int j = 0; j < e->nops; j++) f[i] |= f[tine_topo_index(order, n, e->ops[j])] & (READS_C0 | READS_DATA);
    }
    f[n - 1] |= VALUE;
    double c = 0;
    for (uint32_t i = n; i-- > 0;) { /* users first */
        const tine_expr_t *e = order[i];
        if (!(f[i] & VALUE)) continue;
        double w = op_weight(e);
        bool gather = e->op == TINE_OP_LOAD && (f[tine_topo_index(order, n, e->ops[0])] & READS_DATA);
        if (gather) w = 256;
        c += hoist && !(f[i] & READS_C0) ? w / HOISTED_DIV : w;
        if (widest && w > 0 && e->type.kind != TINE_BOOL && bits_of(e->type) > *widest) *widest = bits_of(e->type);
        if (e->op == TINE_OP_LOAD && !gather) continue;
        for (int j = 0; j < e->nops; j++) f[tine_topo_index(order, n, e->ops[j])] |= VALUE;
    }
    free(f);
    free(order);
    return c;
}

/* A loop reduction's iterations: its constant trip count; with parameters in its bounds,
 * the count at their estimates (`param K: i32 estimate 1024`; a ranged one's middle, where
 * it has no estimate); else TRIP_UNKNOWN. */
static double trips(as_state *A, const tine_reduction *r) {
    if (r->lo->op == TINE_OP_CONST && r->hi->op == TINE_OP_CONST) {
        int64_t lo = (int32_t)(uint32_t)tine_const_value(r->lo, 0), hi = (int32_t)(uint32_t)tine_const_value(r->hi, 0);
        return hi > lo ? (double)(hi - lo) : 0;
    }
    tine_env_t *env = NULL;
    for (int i = 0; i < A->k->ndecls; i++) {
        const tine_kdecl *d = &A->k->decls[i];
        tine_type_t t;
        if (d->kind != K_PARAM || !(d->estimated || d->ranged) ||
            !tine_parse_type_name(d->type->name, strlen(d->type->name), &t))
            continue;
        uint64_t v = (uint64_t)(d->estimated ? d->estimate : d->lo + (d->hi - d->lo) / 2);
        if (!env) env = tine_env_new(A->ctx);
        tine_env_bind(env, tine_kernel_param_var(A->ctx, d->name, t), &v);
    }
    tine_u128 lo, hi;
    bool known = env && tine_eval128(A->ctx, r->lo, env, &lo) == 0 && tine_eval128(A->ctx, r->hi, env, &hi) == 0;
    tine_env_free(env);
    if (env && !known) tine_clear_error(A->ctx); /* a bound that reads more than parameters */
    if (!known) return TRIP_UNKNOWN;
    int64_t l = (int32_t)(uint32_t)lo, h = (int32_t)(uint32_t)hi; /* i32, as the bounds are */
    return h > l ? (double)(h - l) : 0;
}

/* A stage's cost per element: its body, and each loop reduction's update times its
 * iterations and those of the loops around it. */
static double body_cost(as_state *A, const as_body *b, int *widest) {
    if (!b->body) return INF;
    double c = expr_cost(A->ctx, b->body, true, widest);
    for (int i = 0; i < b->rs.n; i++) {
        double t = 1;
        for (int p = i; p >= 0; p = b->rs.v[p].parent) t *= trips(A, &b->rs.v[p]);
        c += t * expr_cost(A->ctx, b->rs.v[i].update, false, widest);
    }
    return c;
}

/* ---- the loads of a function in a stage ------------------------------------------------ */

/* The variables an index reads: bit d for coordinate $.c<d>; *red set if it reads `r`. */
static unsigned index_vars(tine_ctx_t *ctx, const tine_expr_t *index, const tine_expr_t *r, bool *red) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, index, &n);
    unsigned m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (order[i]->op != TINE_OP_VAR) continue;
        int d = tine_kernel_coord_dim(tine_expr_name(order[i]));
        if (d >= 0) m |= 1u << d;
        if (order[i] == r) *red = true;
    }
    free(order);
    return m;
}

typedef struct {
    int loads;          /* loads of the function in the stage */
    unsigned missing;   /* stage coordinates some load in the body does not read */
    bool loop_invariant; /* some load in a loop reduction does not read the loop's variable */
} as_use;

static void scan_loads(tine_ctx_t *ctx, const tine_expr_t *root, const char *name, const tine_expr_t *r, int dims,
                       as_use *u) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, root, &n);
    for (uint32_t i = 0; i < n; i++) {
        const tine_expr_t *e = order[i];
        if (e->op != TINE_OP_LOAD || strcmp(tine_expr_name(e), name)) continue;
        u->loads++;
        bool red = false;
        unsigned m = index_vars(ctx, e->ops[0], r, &red);
        if (r && !red) u->loop_invariant = true;
        if (!r) u->missing |= ((1u << dims) - 1) & ~m;
    }
    free(order);
}

/* How stage `s` (elaborated with function f a load) reads f. */
static as_use use_of(as_state *A, int s, const as_body *b, int f) {
    as_use u = {0};
    if (!b->body) return u;
    const char *name = A->k->decls[f].name;
    scan_loads(A->ctx, b->body, name, NULL, A->k->decls[s].nargs, &u);
    for (int i = 0; i < b->rs.n; i++) scan_loads(A->ctx, b->rs.v[i].update, name, b->rs.v[i].r, 0, &u);
    return u;
}

/* ---- decisions ------------------------------------------------------------------------- */

static int window_dim(as_state *A, int f, int g, const as_body *gb);

/* The weight of a stage read by a stage of weight w without `missing` coordinates. */
static double reader_weight(double w, unsigned missing) {
    for (; missing; missing &= missing - 1) w /= MISSING_DIV;
    return w;
}

static void materialize(as_state *A, int f, double weight) {
    A->d[f].mat = true;
    A->weight[A->nstages] = weight;
    A->stage[A->nstages++] = f;
}

static bool room(const as_state *A) { return A->nstages < TINE_KERNEL_MAX_STAGES; }

/* A function that contains a reduction and that a stage reads without one of its
 * iteration variables (l2norm's inv(y) and softmax's mx(y) per output element, matmul's
 * rowsum_a(y) and colsum_b(x), softmax's mx(y) in every iteration of inv's sum) is
 * computed once per value into a buffer instead of once per element or iteration.
 * Candidates are tried materialized all at once; one a stage reads completely is inlined
 * there again, which uncovers the functions it calls, until the stage reads no untried
 * one. Returns whether it materialized any. */
static bool decide_invariant_reductions(as_state *A, int si) {
    int s = A->stage[si];
    int n = A->k->ndecls;
    bool *tried = tine_xcalloc((size_t)n, sizeof *tried), any = false;
    for (bool progress = true; progress && room(A);) {
        progress = false;
        bool *trial = tine_xcalloc((size_t)n, sizeof *trial);
        for (int f = 0; f < n; f++) trial[f] = A->d[f].cand && !A->d[f].mat && !tried[f] && contains_reduction(A, f);
        for (int f = 0; f < n; f++)
            if (trial[f]) A->d[f].mat = true;
        as_body b = elab(A, s, -1);
        for (int f = 0; f < n; f++)
            if (trial[f]) A->d[f].mat = false;
        for (int f = 0; f < n && b.body; f++) {
            if (!trial[f]) continue;
            as_use u = use_of(A, s, &b, f);
            if (!u.loads) continue;
            tried[f] = true;
            progress = true;
            if ((u.missing || u.loop_invariant) && room(A)) {
                materialize(A, f, reader_weight(A->weight[si], u.missing));
                any = true;
            }
        }
        body_free(&b);
        free(trial);
    }
    free(tried);
    return any;
}

/* A stencil producer read at many taps (gaussian5x5's r at 5, camera_pipe's denoised at
 * many): materialized when what inlining recomputes per element of the stages that read
 * it costs more than computing it once per element, storing it and reading it back (the
 * buffer's traffic); dilate3x3's v, a max of three bytes, does not pay (measured: inlined
 * is faster). A function read without the first coordinate is left alone: its value is
 * per row, and hoisted out of the vector loop already. One function at a time, the most
 * profitable first, until none pays.
 * decide_compute_at then computes it inside its reader's row loop when it can.
 * The traffic term is a whole buffer's from outside L1, or, for a producer that will be a
 * sliding window (one reader, read along one of its rows: decide_compute_at), the
 * window's in L1 (gaussian3x3's r pays only so). */
static void decide_stencil_producers(as_state *A) {
    int n = A->k->ndecls;
    double *base = tine_xcalloc(TINE_KERNEL_MAX_STAGES, sizeof *base);
    while (room(A)) {
        for (int s = 0; s < A->nstages; s++) {
            as_body b = elab(A, A->stage[s], -1);
            base[s] = body_cost(A, &b, NULL);
            body_free(&b);
        }
        int best = -1;
        double best_gain = 0, best_weight = 0;
        for (int f = 0; f < n; f++) {
            if (!A->d[f].cand || A->d[f].mat) continue;
            double saved = 0, weight = 0;
            bool read = false;
            int readers = 0, rows = -1;
            for (int s = 0; s < A->nstages; s++) {
                as_body b = elab(A, A->stage[s], f);
                as_use u = use_of(A, A->stage[s], &b, f);
                readers += u.loads > 0;
                if (u.loads && !A->k->auto_level && A->k->decls[f].nargs >= 2) rows = window_dim(A, f, A->stage[s], &b);
                if (u.loads && !(u.missing & 1)) { /* a value per row: hoisted already */
                    read = true;
                    double c = body_cost(A, &b, NULL);
                    saved += base[s] >= INF && c < INF ? INF : A->weight[s] * (base[s] - c);
                    double w = reader_weight(A->weight[s], u.missing);
                    weight = w > weight ? w : weight;
                }
                body_free(&b);
            }
            if (!read) continue;
            as_body p = elab(A, f, -1);
            /* a sliding window's rows stay in L1 (decide_compute_at makes one when the
               only reader reads f along one of its rows) */
            double traffic = readers == 1 && rows >= 0 ? TRAFFIC_WINDOW : TRAFFIC;
            double produce = weight * (body_cost(A, &p, NULL) + bits_of(A->d[f].type) * (1 + traffic));
            body_free(&p);
            double gain = saved - produce;
            if (gain > best_gain) {
                best_gain = gain;
                best = f;
                best_weight = weight;
            }
        }
        if (best < 0) break;
        materialize(A, best, best_weight);
        A->d[best].stencil = true;
    }
    free(base);
}

/* The vector width of a stage: the natural width of its element type (one vector
 * register), which a stage computing in wider types splits into several vectors of them.
 * Measured against the width of the widest type's vector (256 / its bits), at AVX2:
 * gaussian3x3 1.44x, conv3x3a16 1.45x, sobel3x3 1.37x, conv3x3a32 4.5x slower that way
 * (a narrow store of a quarter vector, and the loads not shared); so: natural. */
static int decide_lanes(as_state *A, int s) {
    (void)A;
    (void)s;
    return 0;
}

/* The offset c of a coordinate $.c1 + c (through an edge clamp), or false. */
static bool row_offset(const tine_expr_t *x, int32_t *c) {
    while ((x->op == TINE_OP_MIN || x->op == TINE_OP_MAX) && x->ops[1]->op != TINE_OP_CONST) x = x->ops[0];
    *c = 0;
    if (x->op == TINE_OP_ADD && x->ops[1]->op == TINE_OP_CONST) {
        *c = (int32_t)(uint32_t)tine_const_value(x->ops[1], 0);
        x = x->ops[0];
    }
    return x->op == TINE_OP_VAR && !strcmp(tine_expr_name(x), "$.c1");
}

/* Rows unrolled: a stage that reads one input at several rows (a vertical stencil)
 * computes 2 rows per iteration, so the rows share loads (and LLVM the sums over them).
 * Measured at AVX2 against no unrolling: median3x3 and sobel3x3 3-6% faster, gaussian3x3
 * 3% slower, 4 rows no better than 2; blur3x3 reading its materialized bx at 3 rows 10%
 * slower, so a materialized function's rows do not count (they come from L2 either way). */
static int decide_unroll_rows(as_state *A, int s) {
    const tine_kdecl *d = &A->k->decls[s];
    if (d->nargs < 2) return 1;
    as_body b = elab(A, s, -1);
    if (!b.body) return 1;
    uint32_t n;
    tine_expr_t **order = tine_topo(A->ctx, b.body, &n);
    int most = 0;
    for (uint32_t i = 0; i < n; i++) {
        const tine_expr_t *e = order[i];
        if (e->op != TINE_OP_LOAD) continue;
        const tine_kdecl *buf = tine_kernel_find(A->k, tine_expr_name(e));
        if (buf->kind != K_INPUT) continue; /* a materialized buffer's rows: see above */
        int dims = buf->dims;
        const tine_expr_t *x[4];
        int32_t off, rows[16];
        int nrows = 0;
        if (dims < 2 || !tine_kernel_load_coords(e->ops[0], dims, x) || !row_offset(x[1], &off)) continue;
        for (uint32_t j = i; j < n && nrows < 16; j++) { /* this buffer's rows */
            const tine_expr_t *g = order[j];
            int32_t o;
            if (g->op != TINE_OP_LOAD || strcmp(tine_expr_name(g), buf->name) ||
                !tine_kernel_load_coords(g->ops[0], dims, x) || !row_offset(x[1], &o))
                continue;
            bool seen = false;
            for (int r = 0; r < nrows; r++) seen |= rows[r] == o;
            if (!seen) rows[nrows++] = o;
        }
        most = nrows > most ? nrows : most;
    }
    free(order);
    body_free(&b);
    return most >= 2 ? 2 : 1;
}

/* The coordinate d of a load's index as $.c<d> * a + c (through an edge clamp): c, or
 * false for another form. */
static bool coord_offset(const tine_expr_t *x, int d, int32_t *c) {
    while ((x->op == TINE_OP_MIN || x->op == TINE_OP_MAX) && x->ops[1]->op != TINE_OP_CONST) x = x->ops[0];
    *c = 0;
    if (x->op == TINE_OP_ADD && x->ops[1]->op == TINE_OP_CONST) {
        *c = (int32_t)(uint32_t)tine_const_value(x->ops[1], 0);
        x = x->ops[0];
    }
    else if (x->op == TINE_OP_SUB && x->ops[1]->op == TINE_OP_CONST) {
        *c = -(int32_t)(uint32_t)tine_const_value(x->ops[1], 0);
        x = x->ops[0];
    }
    /* a stride: 2 * y is simplified to y << 1 */
    if ((x->op == TINE_OP_MUL || x->op == TINE_OP_SHL) && x->ops[1]->op == TINE_OP_CONST) x = x->ops[0];
    return x->op == TINE_OP_VAR && tine_kernel_coord_dim(tine_expr_name(x)) == d;
}

/* The coordinate of stage g (elaborated in gb, f a load) other than the first along which
 * g reads f at the most rows (the first of a tie), or -1 when no read's coordinate of f is
 * one of g's besides the first plus a constant. */
static int window_dim(as_state *A, int f, int g, const as_body *gb) {
    const tine_kdecl *gd = &A->k->decls[g];
    if (!gb->body || gd->nargs < 2) return -1;
    uint32_t n;
    tine_expr_t **order = tine_topo(A->ctx, gb->body, &n);
    int best = -1, most = 0, fd = A->k->decls[f].nargs;
    for (int d = 1; d < gd->nargs; d++) {
        int32_t offs[16];
        int noffs = 0;
        for (uint32_t i = 0; i < n; i++) {
            const tine_expr_t *e = order[i], *x[4];
            int32_t o;
            if (e->op != TINE_OP_LOAD || strcmp(tine_expr_name(e), A->k->decls[f].name) ||
                !tine_kernel_load_coords(e->ops[0], fd, x))
                continue;
            for (int c = 0; c < fd; c++) {
                if (!coord_offset(x[c], d, &o)) continue;
                bool seen = false;
                for (int j = 0; j < noffs; j++) seen |= offs[j] == o;
                if (!seen && noffs < 16) offs[noffs++] = o;
            }
        }
        if (noffs > most) most = noffs, best = d;
    }
    free(order);
    return best;
}

/* A stencil producer f (level 0) computed inside the row loop of the one stage that reads
 * it (`compute_at f g.y`: a sliding window of rows in L1, not a whole buffer), y the
 * coordinate of g other than the first along which g reads f at the most rows (the first
 * of a tie: camera_pipe's out(x, y, c) reads blur_y at one y and one c: y); -1 when f is not such a producer. Sets *reader to g's stage index. A window
 * the checks refuse makes tine_kernel_parse fall back to level 1 (materialize). */
static int decide_compute_at(as_state *A, int si, int *reader) {
    int f = A->stage[si], g = -1;
    if (A->k->auto_level || !A->d[f].stencil || A->k->decls[f].nargs < 2) return -1;
    for (int s = 0; s < A->nstages; s++) {
        if (s == si) continue;
        as_body b = elab(A, A->stage[s], -1);
        as_use u = use_of(A, A->stage[s], &b, f);
        body_free(&b);
        if (!u.loads) continue;
        if (g >= 0) return -1; /* read by two stages */
        g = s;
    }
    if (g < 0) return -1;
    as_body b = elab(A, A->stage[g], -1);
    int best = window_dim(A, f, A->stage[g], &b);
    body_free(&b);
    *reader = g;
    return best;
}

/* The vector width of a producer computed at its reader's rows: the reader's natural
 * width (one vector of the producer per vector of the reader), as the hand schedules of
 * gaussian3x3/5x5/7x7 have it (r at the u8 output's 32 lanes; at r's own natural width,
 * with rows unrolled by 2, gaussian5x5 measured 1.3-3x slower in the same runs: the
 * window's rows are read once each, so unrolling them shares nothing). */
static int decide_window_lanes(as_state *A, int reader) {
    tine_type_t t = A->d[A->stage[reader]].type;
    if (!t.bits) { /* the output: its type is not kept */
        as_body b = elab(A, A->stage[reader], -1);
        if (b.body) t = b.body->type;
        body_free(&b);
    }
    return t.bits ? A->k->natural_bits / t.bits : 0;
}

/* A stage's loop reductions vectorized along their variable (level 0): an integer
 * reduction, outermost, the only one of its name in the stage, whose terms read buffers
 * along their dense first coordinate (l2norm's and softmax's rows, fully_connected's dot
 * products): vectors of terms, and for a sum of widened products the pairwise sums of
 * pmaddwd. The width: a natural vector of the accumulator, at most 16 lanes of 16 bits' worth
 * (i32 sums of 16 terms: 16 products of i16 summed in pairs into 8 lanes), where the
 * reduction's estimated trip count fills a vector at least; a reduction over another
 * buffer coordinate (matmul's B(x, k), conv_nn's filter) stays a loop. Names
 * and widths are stored in name[] and width[] (at most `cap`); returns how many. */
static int decide_reduction_vectors(as_state *A, int s, const char **name, int *width, int cap) {
    if (A->k->auto_level) return 0;
    as_body b = elab(A, s, -1);
    int m = 0;
    for (int i = 0; i < b.rs.n && m < cap; i++) {
        const tine_reduction *r = &b.rs.v[i];
        bool ok = r->parent < 0 && r->name && r->acc->type.kind != TINE_FLOAT, dense = false;
        for (int j = 0; j < b.rs.n && ok; j++) ok = j == i || !b.rs.v[j].name || strcmp(b.rs.v[j].name, r->name);
        uint32_t n;
        tine_expr_t **order = ok ? tine_topo(A->ctx, r->update, &n) : NULL;
        for (uint32_t e = 0; order && e < n && ok; e++) {
            const tine_expr_t *x = order[e];
            if (x->op == TINE_OP_VAR && !strncmp(tine_expr_name(x), "$.red", 5)) ok = false; /* another's result */
            if (x->op != TINE_OP_LOAD) continue;
            const tine_kdecl *buf = tine_kernel_find(A->k, tine_expr_name(x));
            int dims = buf->kind == K_INPUT ? buf->dims : buf->nargs;
            const tine_expr_t *c[4];
            if (!tine_kernel_load_coords(x->ops[0], dims, c)) continue;
            for (int d = 0; d < dims; d++) {
                bool red = false;
                index_vars(A->ctx, c[d], r->r, &red);
                if (red && d > 0) ok = false; /* strided along the reduction */
                if (red && d == 0) dense = true;
            }
        }
        free(order);
        int bits = bits_of(r->acc->type), w = A->k->natural_bits / (bits < 16 ? bits : 16);
        if (ok && dense && trips(A, r) >= w) { /* fewer terms than a vector's: all in the scalar tail */
            name[m] = r->name;
            width[m++] = w;
        }
    }
    body_free(&b);
    return m;
}

/* ---- the directives -------------------------------------------------------------------- */

/* A directive of kind d.kind, located at the word auto (or the file's start). */
static void emit_dir(as_state *A, tine_kdirective d) {
    d.what = tine_dir_name(d.kind);
    d.src = A->k->src;
    d.line = A->k->auto_line ? A->k->auto_line : 1;
    d.col = A->k->auto_col ? A->k->auto_col : 1;
    TINE_PUSH(A->dir, A->ndir, A->capdir, d);
}

static void emit(as_state *A, tine_dir_kind kind, int f, int dim, int n) {
    const tine_kdecl *d = &A->k->decls[f];
    emit_dir(A, (tine_kdirective){.kind = kind, .func = d->name, .dim = dim >= 0 ? d->args[dim] : NULL, .n = n});
}

void tine_autoschedule(tine_ctx_t *ctx, tine_arena *arena, tine_kernel_ast *k) {
    int n = k->ndecls;
    as_state A = {.ctx = ctx, .k = k, .out = -1};
    A.d = tine_xcalloc((size_t)n + 1, sizeof *A.d);
    for (int i = 0; i < n; i++) {
        A.d[i].red = -1;
        A.d[i].cand = k->decls[i].kind == K_FUNC;
        if (k->decls[i].kind == K_OUTPUT) A.out = i;
    }
    TINE_ASSERT(A.out >= 0);
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = 0; i < n; i++)
            if (k->decls[i].kind != K_INPUT && k->decls[i].kind != K_PARAM) changed |= uncandidate_callees(&A, i);
    }
    for (int i = 0; i < n; i++) { /* its element type; a condition or a body in error is inlined */
        if (!A.d[i].cand) continue;
        as_body b = elab(&A, i, -1);
        A.d[i].cand = b.body && b.body->type.kind != TINE_BOOL;
        if (b.body) A.d[i].type = tine_type_with_lanes(b.body->type, 1);
        body_free(&b);
    }
    materialize(&A, A.out, 1);
    A.d[A.out].mat = false;
    for (int s = 0; s < A.nstages; s++) decide_invariant_reductions(&A, s);
    decide_stencil_producers(&A);
    /* TODO(tiles): tile a stage whose footprint per row exceeds L1. */
    for (int s = 1; s <= A.nstages; s++) { /* each stage's directives together, the output's last */
        int si = s % A.nstages, st = A.stage[si], u = decide_unroll_rows(&A, st), g = -1, y = -1;
        if (si) y = decide_compute_at(&A, si, &g);
        int lanes = decide_lanes(&A, st);
        if (y >= 0) {
            const tine_kdecl *gd = &k->decls[A.stage[g]];
            emit_dir(&A, (tine_kdirective){.kind = TINE_DIR_COMPUTE_AT, .func = k->decls[st].name, .at = gd->name, .dim = gd->args[y]});
            /* a window's rows at its reader's width, one row per iteration (decide_window_lanes) */
            lanes = decide_window_lanes(&A, g);
            u = 1;
        } else if (si) {
            emit(&A, TINE_DIR_MATERIALIZE, st, -1, 0);
        }
        emit(&A, TINE_DIR_VECTORIZE, st, 0, lanes);
        const char *rname[8];
        int rwidth[8], nr = decide_reduction_vectors(&A, st, rname, rwidth, 8);
        for (int r = 0; r < nr; r++)
            emit_dir(&A, (tine_kdirective){.kind = TINE_DIR_VECTORIZE, .func = k->decls[st].name, .dim = rname[r], .n = rwidth[r]});
        if (u > 1) emit(&A, TINE_DIR_UNROLL, st, 1, u);
    }
    for (int i = 0; i < n; i++) { /* schedule.c applies the directives from scratch */
        k->decls[i].materialized = false;
        k->decls[i].mtype = k->decls[i].vtype = (tine_type_t){0, 0, 0};
    }
    k->sched = A.ndir ? tine_arena_alloc(arena, (size_t)A.ndir * sizeof *A.dir) : NULL; /* the kernel's, with its syntax */
    if (A.ndir) memcpy(k->sched, A.dir, (size_t)A.ndir * sizeof *A.dir);
    k->nsched = A.ndir;
    free(A.dir);
    free(A.d);
}
