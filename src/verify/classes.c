/* classes.c — similarity classes of instructions: templates, buckets, proofs (classes.h).
 *
 * Every instruction is compared at one result lane count (CANON_LANES, else the first of
 * LANE_TRIES it has), so that the lane-dependent numbers of its semantics (slice bounds,
 * reduction widths) are the same for members of one class; the lane count an instruction
 * has in a register is its forms', printed as a binding.
 */
#include "classes.h"

#include "../ir/ast.h"
#include "../ir/elab.h"
#include "smt.h"

static const int LANE_TRIES[] = {4, 8, 2, 16, 1, 32};
enum { MAX_CONSTS = 24, MAX_CVECS = 4, EVAL_ROUNDS = 24, EDGE_ROUNDS = 8 };

typedef struct {
    const char *name, *isa;
    const tine_insn *in;
    const tine_expr_t *sem;          /* at the canonical lanes, on placeholders */
    const tine_expr_t *const *ph;
    int nops, lanes;
    char *own;                       /* its own template text; NULL: none (own class) */
    char *alt;                       /* the same with the types narrower than T written as
                                        they are (i8), not from T (narrow(narrow(T))) */
    /* the binding of its class's template */
    tine_type_t T;
    int perm[TINE_INSN_MAX_OPS];     /* xK is operand perm[K] */
    tine_i128 c[MAX_CONSTS];
    int nc;
    int n[TINE_INSN_MAX_OPS];        /* lane ratios n0, n1 ... (operand lanes per result lane) */
    int nn;
    int cls;
    bool proven;                     /* joined by proof (the class's template is not its own) */
    bool z3;                         /* its binding needed Z3 (the elaborated template differs in syntax) */
} member;

typedef struct {
    char *tmpl;                      /* NULL: an instruction with no template (its name is the class) */
    bool abs;                        /* tmpl writes the types narrower than T as they are */
    tine_ast *ast;
    int *m, n, cap;                  /* members */
    int ncvec;                       /* distinct constant bindings (first members') */
    int cvec[MAX_CVECS];             /* a member holding each */
} klass;

struct tine_classes {
    tine_ctx_t *ctx;
    tine_arena arena;
    member *m;
    int n, cap;
    klass *k;
    int nk, capk;
    int *order;                      /* classes by size, largest first (for printing) */
    unsigned timeout_ms;
    tine_classes_totals t;
};

/* ---- the template of one instruction ------------------------------------------------ */

static bool prim_commutative(tine_op_t op) {
    switch (op) {
#define X(e, name, ar, tok, prec, comm) \
    case TINE_OP_##e: return comm;
        TINE_PRIM_OPS(X)
#undef X
    default: return tine_fpir_table[op - TINE_FPIR_FIRST].commutative;
    }
}

/* The instruction nodes inside a semantics (srsra = acc + srshr(a, n)) replaced by their
 * own semantics: a template is written in the language's ops only. */
static const tine_expr_t *inline_insns(tine_ctx_t *ctx, const tine_expr_t *e) {
    if (e->op == TINE_OP_CONST || e->op == TINE_OP_VAR) return e;
    tine_expr_t *ops[16];
    if (e->nops > 16) return e;
    bool changed = false;
    for (int i = 0; i < e->nops; i++) {
        ops[i] = (tine_expr_t *)inline_insns(ctx, e->ops[i]);
        changed |= ops[i] != e->ops[i];
    }
    if (e->op == TINE_OP_INSN) {
        const tine_expr_t *const *ph;
        const tine_expr_t *t = tine_node_template(ctx, e, &ph, false);
        return inline_insns(ctx, tine_substitute(ctx, t, ph, ops, e->nops));
    }
    return changed ? tine_make(ctx, (tine_op_t)e->op, e->type, e->nops, ops, e->imm, e->flags, NULL, 0) : e;
}

/* The shape of e for ordering a commutative op's operands: ops only (no types, names
 * or values), so that the order does not depend on the binding. */
static void shape(tine_buf *b, const tine_expr_t *e) {
    if (e->op == TINE_OP_CONST || e->op == TINE_OP_VAR) {
        tine_buf_putc(b, e->op == TINE_OP_CONST ? 'c' : 'x');
        return;
    }
    tine_buf_printf(b, "%s(", tine_op_name((tine_op_t)e->op));
    for (int i = 0; i < e->nops; i++) shape(b, e->ops[i]), tine_buf_putc(b, ',');
    tine_buf_putc(b, ')');
}

/* The operands of e in canonical order: a commutative op's sorted by shape (ties keep
 * the written order). */
static void canon_order(const tine_expr_t *e, const tine_expr_t **o) {
    for (int i = 0; i < e->nops; i++) o[i] = e->ops[i];
    if (e->nops != 2 || !prim_commutative((tine_op_t)e->op)) return;
    tine_buf a = {0}, b = {0};
    shape(&a, o[0]);
    shape(&b, o[1]);
    tine_buf_putc(&a, 0);
    tine_buf_putc(&b, 0);
    if (strcmp(a.p, b.p) > 0) {
        const tine_expr_t *t = o[0];
        o[0] = o[1];
        o[1] = t;
    }
    free(a.p);
    free(b.p);
}

typedef struct {
    tine_buf b;
    member *m;
    bool ok;
    bool abs;                        /* types narrower than T as they are (member.alt) */
    const tine_expr_t *vars[TINE_INSN_MAX_OPS];
    int nvars;
} writer;

/* The first variable of the canonical walk that is not a mask: its type is T. */
static const tine_expr_t *first_var(const tine_expr_t *e) {
    if (e->op == TINE_OP_VAR) return e->type.kind == TINE_BOOL ? NULL : e;
    const tine_expr_t *o[16];
    if (e->nops > 16) return NULL;
    canon_order(e, o);
    for (int i = 0; i < e->nops; i++) {
        const tine_expr_t *v = first_var(o[i]);
        if (v) return v;
    }
    return NULL;
}

/* A type written from T: widen/narrow for the bits, signed()/unsigned() when its
 * signedness is not T's. */
static void put_type(writer *w, tine_type_t t) {
    tine_type_t T = w->m->T;
    if (t.kind == TINE_BOOL) { /* a mask (an imported AVX-512 k operand): not a parameter */
        tine_buf_puts(&w->b, "bool");
        return;
    }
    if (!tine_type_is_int(t) || t.bits < 8) {
        w->ok = false;
        return;
    }
    if (w->abs && t.bits < T.bits) {
        char tn[16];
        tine_buf_puts(&w->b, tine_type_name(t, tn));
        return;
    }
    int k = 0;
    for (int b = T.bits; b < t.bits; b *= 2) k++;
    for (int b = T.bits; b > t.bits; b /= 2) k--;
    if ((k >= 0 ? T.bits << k : T.bits >> -k) != t.bits) w->ok = false;
    bool flip = t.kind != T.kind;
    if (flip) tine_buf_puts(&w->b, t.kind == TINE_INT ? "signed(" : "unsigned(");
    for (int i = 0; i < (k > 0 ? k : -k); i++) tine_buf_puts(&w->b, k > 0 ? "widen(" : "narrow(");
    tine_buf_putc(&w->b, 'T');
    for (int i = 0; i < (k > 0 ? k : -k) + flip; i++) tine_buf_putc(&w->b, ')');
}

static bool uniform_int_const(const tine_expr_t *e) {
    return e->op == TINE_OP_CONST && (e->flags & TINE_F_UNIFORM) && tine_type_is_int(e->type);
}

static void put_expr(writer *w, const tine_expr_t *e, bool bare);

/* A constant is a parameter: bare where the operand beside it types a literal, else
 * cast<TYPE>(cK) (which elaborates to the same constant). */
static void put_const(writer *w, const tine_expr_t *e, bool bare) {
    if (e->type.kind == TINE_BOOL && (e->flags & TINE_F_UNIFORM)) {
        tine_buf_puts(&w->b, tine_const_value(e, 0) ? "true" : "false");
        return;
    }
    if (!uniform_int_const(e) || w->m->nc == MAX_CONSTS) {
        w->ok = false;
        return;
    }
    int k = w->m->nc++;
    w->m->c[k] = (tine_i128)tine_const_value(e, 0);
    if (bare) {
        tine_buf_printf(&w->b, "c%d", k);
        return;
    }
    tine_buf_puts(&w->b, "cast<");
    put_type(w, e->type);
    tine_buf_printf(&w->b, ">(c%d)", k);
}

static void put_args(writer *w, const tine_expr_t *const *o, int n, const bool *bare) {
    tine_buf_putc(&w->b, '(');
    for (int i = 0; i < n; i++) {
        if (i) tine_buf_puts(&w->b, ", ");
        put_expr(w, o[i], bare && bare[i]);
    }
    tine_buf_putc(&w->b, ')');
}

static void put_expr(writer *w, const tine_expr_t *e, bool bare) {
    tine_op_t op = (tine_op_t)e->op;
    const tine_expr_t *o[16];
    if (e->nops > 16) {
        w->ok = false;
        return;
    }
    canon_order(e, o);
    /* in a pair, a constant is bare beside a non-constant of its type */
    bool pb[3] = {false, false, false};
    int first = op == TINE_OP_SELECT ? 1 : 0;
    if (e->nops - first == 2)
        for (int i = 0; i < 2; i++) {
            const tine_expr_t *x = o[first + i], *y = o[first + 1 - i];
            pb[first + i] = x->op == TINE_OP_CONST && y->op != TINE_OP_CONST && tine_type_eq(x->type, y->type);
        }
    int d0, d1, d2;
    switch (op) {
    case TINE_OP_CONST: put_const(w, e, bare); return;
    case TINE_OP_VAR: {
        int k = 0;
        while (k < w->nvars && w->vars[k] != e) k++;
        if (k == w->nvars) {
            if (k == TINE_INSN_MAX_OPS) {
                w->ok = false;
                return;
            }
            w->vars[w->nvars++] = e;
        }
        tine_buf_printf(&w->b, "x%d", k);
        return;
    }
    case TINE_OP_NEG:
    case TINE_OP_NOT:
        tine_buf_puts(&w->b, tine_op_token(op));
        put_args(w, o, 1, NULL);
        return;
    case TINE_OP_CAST:
    case TINE_OP_REINTERPRET:
        /* a reinterpret to lanes of other bits has its lanes in its type, a number no
           parameter stands for: no template (the instruction is its own class) */
        if (e->type.lanes != e->ops[0]->type.lanes) {
            w->ok = false;
            return;
        }
        tine_buf_puts(&w->b, op == TINE_OP_CAST ? "cast<" : "reinterpret<");
        put_type(w, e->type);
        tine_buf_putc(&w->b, '>');
        put_args(w, o, 1, NULL);
        return;
    case TINE_OP_MIN:
    case TINE_OP_MAX:
    case TINE_OP_SELECT:
    case TINE_OP_CONCAT:
    case TINE_OP_INTERLEAVE:
        tine_buf_puts(&w->b, tine_op_name(op));
        put_args(w, o, e->nops, e->nops <= 3 ? pb : NULL); /* pb covers a select's three */
        return;
    case TINE_OP_SLICE:
    case TINE_OP_DEINTERLEAVE:
    case TINE_OP_VECTOR_REDUCE_ADD:
        /* their numbers are lanes at the canonical lane count, not parameters */
        tine_buf_printf(&w->b, "%s(", tine_op_name(op));
        put_expr(w, o[0], false);
        if (op == TINE_OP_SLICE) {
            tine_slice_params(e, &d0, &d1, &d2);
            tine_buf_printf(&w->b, ", %d, %d, %d)", d0, d1, d2);
        } else if (op == TINE_OP_DEINTERLEAVE) {
            tine_deinterleave_params(e, &d0, &d1);
            tine_buf_printf(&w->b, ", %d, %d)", d0, d1);
        } else {
            tine_buf_printf(&w->b, ", %d)", e->type.lanes);
        }
        return;
    default: break;
    }
    if (tine_op_is_fpir(op)) {
        const tine_fpir_info *f = &tine_fpir_table[op - TINE_FPIR_FIRST];
        tine_buf_puts(&w->b, f->name);
        if (f->sig == TINE_SIG_CAST_PARAM) {
            tine_buf_putc(&w->b, '<');
            put_type(w, e->type);
            tine_buf_putc(&w->b, '>');
        }
        bool fb[16] = {false};
        for (int i = 1; i < e->nops; i++)
            fb[i] = uniform_int_const(o[i]) && o[0]->op != TINE_OP_CONST &&
                    tine_type_eq(tine_type_with_lanes(tine_fpir_literal_type(op, i, o[0]->type), 1),
                                 tine_type_with_lanes(o[i]->type, 1));
        put_args(w, o, e->nops, fb);
        return;
    }
    const char *tok = tine_op_token(op);
    if (e->nops == 2 && tok && tine_binop_prec(op) > 0) {
        tine_buf_putc(&w->b, '(');
        put_expr(w, o[0], pb[0]);
        tine_buf_printf(&w->b, " %s ", tok);
        put_expr(w, o[1], pb[1]);
        tine_buf_putc(&w->b, ')');
        return;
    }
    w->ok = false; /* broadcasts, ramps, loads, floats: not templated */
}

/* The operands' types as the template sees them ("x0:T, x1:unsigned(T)"), with their
 * lanes per result lane where that is not one, a parameter ("x0:T*n0": n0 = 2 for a
 * pairwise sum, 16 for a sum across 16 lanes): the part of a template its expression
 * does not show. perm[k] is xK's operand; the ratios go to n[], their count to *nn. */
static bool put_header(tine_buf *out, member *m, tine_type_t T, const int *perm, int *n, int *nn, bool abs) {
    tine_type_t saved = m->T;
    m->T = T;
    writer w = {.m = m, .ok = true, .abs = abs};
    tine_buf_putc(&w.b, '(');
    for (int k = 0; k < m->nops; k++) {
        tine_type_t t = m->ph[perm[k]]->type;
        tine_buf_printf(&w.b, "%sx%d:", k ? ", " : "", k);
        put_type(&w, t);
        int L = m->sem->type.lanes, r = t.lanes > L ? t.lanes / L : L / t.lanes, j = 0;
        if (r == 1) continue;
        while (j < *nn && n[j] != r) j++;
        if (j == *nn) n[(*nn)++] = r;
        tine_buf_printf(&w.b, "%cn%d", t.lanes > L ? '*' : '/', j);
    }
    tine_buf_puts(&w.b, ") = ");
    m->T = saved;
    if (w.ok) tine_buf_puts(out, w.b.p);
    free(w.b.p);
    return w.ok;
}

/* The template of e (m's semantics, inlined) and m's binding of it; NULL when it has none:
 * an operand the semantics never reads, or what a template cannot write. */
static char *write_template(member *m, const tine_expr_t *e, bool abs) {
    m->nc = m->nn = 0;
    writer w = {.m = m, .ok = true, .abs = abs};
    put_expr(&w, e, false);
    tine_buf_putc(&w.b, 0);
    for (int k = 0; k < w.nvars && w.ok; k++) {
        int j = 0;
        while (j < m->nops && m->ph[j] != w.vars[k]) j++;
        m->perm[k] = j;
        w.ok = j < m->nops;
    }
    tine_buf t = {0};
    if (!w.ok || w.nvars != m->nops || !put_header(&t, m, m->T, m->perm, m->n, &m->nn, abs)) {
        free(w.b.p);
        free(t.p);
        return NULL;
    }
    tine_buf_puts(&t, w.b.p);
    tine_buf_putc(&t, 0);
    free(w.b.p);
    return t.p;
}

/* Whether every instruction e calls is known to the context: a description read by
 * tine_isa_parse is not registered, so the entries of its own that a semantics calls
 * (srsra = acc + srshr) have no meaning outside it, for the interpreter or Z3. */
static bool resolvable(tine_ctx_t *ctx, const tine_expr_t *e) {
    if (e->op == TINE_OP_INSN && !tine_insn_info(ctx, e->imm, NULL)) return false;
    for (int i = 0; i < e->nops; i++)
        if (!resolvable(ctx, e->ops[i])) return false;
    return true;
}

/* The member's own template (and its other spelling) and binding; false when it has none. */
static bool make_template(tine_ctx_t *ctx, member *m) {
    if (!resolvable(ctx, m->sem)) return false;
    const tine_expr_t *e = inline_insns(ctx, m->sem);
    const tine_expr_t *v0 = first_var(e);
    if (!v0) return false;
    m->T = tine_type_with_lanes(v0->type, 1);
    m->alt = write_template(m, e, true); /* the same walk: the same binding */
    m->own = write_template(m, e, false);
    return m->own != NULL;
}

/* ---- a template at a binding ----------------------------------------------------------- */

static bool const_name(tine_elab *el, const tine_ast *a, int lanes, tine_elab_val *out) {
    (void)lanes;
    const tine_elab_env *env = tine_elab_env_of(el);
    const member *b = env->hook_data;
    const char *n = a->name;
    if (n[0] != 'c' || !n[1]) return false;
    char *end;
    long k = strtol(n + 1, &end, 10);
    if (*end || k < 0 || k >= b->nc) return false;
    *out = (tine_elab_val){.lit = 1, .iv = b->c[k]};
    return true;
}

static const tine_elab_hooks CONST_HOOKS = {.name = const_name};

/* The template `ast` elaborated at binding b on m's placeholders, or NULL. */
static const tine_expr_t *instantiate(tine_ctx_t *ctx, const tine_ast *ast, const member *b, const member *m) {
    static const char *const X[TINE_INSN_MAX_OPS] = {"x0", "x1", "x2", "x3", "x4", "x5"};
    tine_binding binds[TINE_INSN_MAX_OPS];
    for (int k = 0; k < m->nops; k++) binds[k] = (tine_binding){.name = X[k], .expr = (tine_expr_t *)m->ph[b->perm[k]]};
    tine_elab_env env = {.T = b->T, .U = {0}, .R = {0}, .binds = binds, .nbinds = m->nops, .lanes = m->sem->type.lanes,
                         .hooks = &CONST_HOOKS, .hook_data = (void *)b};
    tine_saved_error saved = tine_error_save(ctx);
    const tine_expr_t *r = tine_elaborate(ctx, ast, &env);
    tine_error_restore(ctx, &saved);
    return r && tine_type_eq(r->type, m->sem->type) ? r : NULL;
}

/* Edge values first (in lane 0 every operand takes the same one: both factors of a
 * product at the minimum), then pseudo-random ones, some small (shift counts, where a
 * rounding term shows): a fixed sequence, so runs repeat. */
static tine_u128 input(int round, int lane, int op, tine_type_t t, uint64_t *seed) {
    static const int64_t EDGE[] = {0, 1, -1, 2, 0x7f, -0x80, 0x7fff, -0x8000};
    if (round < EDGE_ROUNDS) {
        int k = (round + lane * (op + 1)) % 8;
        tine_i128 v = EDGE[k];
        if (k == 4 || k == 6) v = tine_max_i128(t);
        if (k == 5 || k == 7) v = tine_min_i128(t);
        return tine_canon(t, (tine_u128)v);
    }
    *seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
    tine_u128 r = (tine_u128)(*seed >> 11) << 64 | (*seed * 0x9e3779b97f4a7c15ull);
    if (round % 3 == 0 || (round % 3 == 1 && op > 0))
        return tine_canon(t, (tine_u128)((tine_i128)(r % (tine_u128)(2 * t.bits + 4)) - 3));
    return tine_canon(t, r);
}

/* Whether a and b (on m's placeholders) agree on EVAL_ROUNDS inputs. */
static bool agree(tine_ctx_t *ctx, const member *m, const tine_expr_t *a, const tine_expr_t *b) {
    if (a == b) return true;
    tine_env_t *env = tine_env_new(ctx);
    uint64_t seed = 0x5eed;
    int L = a->type.lanes;
    tine_u128 *in = tine_xmalloc(sizeof(tine_u128) * TINE_MAX_LANES), *ra = tine_xmalloc(sizeof(tine_u128) * (size_t)L),
              *rb = tine_xmalloc(sizeof(tine_u128) * (size_t)L);
    bool same = true;
    for (int r = 0; r < EVAL_ROUNDS && same; r++) {
        for (int j = 0; j < m->nops; j++) {
            tine_type_t t = m->ph[j]->type;
            for (int l = 0; l < t.lanes; l++) in[l] = input(r, l, j, t, &seed);
            tine_env_bind128(env, m->ph[j], in);
        }
        tine_saved_error saved = tine_error_save(ctx);
        int ea = tine_eval128(ctx, a, env, ra), eb = tine_eval128(ctx, b, env, rb);
        tine_error_restore(ctx, &saved);
        if (ea != eb) same = false; /* one divides by zero where the other does not */
        for (int l = 0; l < L && same && !ea; l++) same = ra[l] == rb[l];
    }
    free(in);
    free(ra);
    free(rb);
    tine_env_free(env);
    return same;
}

/* a == b for all inputs (Z3), counted. */
static bool prove(tine_classes *c, const tine_expr_t *a, const tine_expr_t *b) {
    if (a == b) return true;
    tine_smt *s = tine_smt_new(c->ctx, c->timeout_ms);
    tine_saved_error saved = tine_error_save(c->ctx);
    tine_smt_result r = tine_smt_equal(s, a, b, NULL, 0, NULL);
    tine_error_restore(c->ctx, &saved);
    tine_smt_free(s);
    c->t.z3_queries++;
    if (r != TINE_SMT_PROVEN) c->t.z3_failed++;
    return r == TINE_SMT_PROVEN;
}

/* ---- classes --------------------------------------------------------------------------- */

static int new_class(tine_classes *c, char *tmpl, bool abs) {
    TINE_GROW_ZERO(c->k, (size_t)c->nk + 1, c->capk);
    klass *k = &c->k[c->nk];
    memset(k, 0, sizeof *k);
    k->tmpl = tmpl;
    k->abs = abs;
    if (tmpl) {
        tine_saved_error saved = tine_error_save(c->ctx);
        k->ast = tine_parse_ast(c->ctx, &c->arena, strstr(tmpl, ") = ") + 4, "<template>");
        tine_error_restore(c->ctx, &saved);
        TINE_ASSERT(k->ast != NULL); /* the writer writes what the parser reads */
    }
    return c->nk++;
}

static void add_member(tine_classes *c, int cls, int i) {
    klass *k = &c->k[cls];
    TINE_PUSH(k->m, k->n, k->cap, i);
    c->m[i].cls = cls;
    member *m = &c->m[i];
    for (int v = 0; v < k->ncvec; v++) {
        const member *o = &c->m[k->cvec[v]];
        if (o->nc == m->nc && !memcmp(o->c, m->c, sizeof(tine_i128) * (size_t)m->nc)) return;
    }
    if (k->ncvec < MAX_CVECS) k->cvec[k->ncvec++] = i;
}

/* Operand orders: the n! permutations of 0..n-1, in lexicographic order. */
static bool next_perm(int *p, int n) {
    int i = n - 2;
    while (i >= 0 && p[i] >= p[i + 1]) i--;
    if (i < 0) return false;
    int j = n - 1;
    while (p[j] <= p[i]) j--;
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
    for (int a = i + 1, b = n - 1; a < b; a++, b--) t = p[a], p[a] = p[b], p[b] = t;
    return true;
}

/* Whether member i is class k's template at some binding (k's constants, any operand
 * order, T from the operand in x0's place); on success the binding is i's. */
static bool joins(tine_classes *c, int cls, int i) {
    klass *k = &c->k[cls];
    member *m = &c->m[i];
    if (!k->tmpl || k->n == 0) return false; /* a bucket's class whose first member did not prove */
    const member *rep = &c->m[k->m[0]];
    if (rep->nops != m->nops) return false;
    for (int v = 0; v < k->ncvec; v++) {
        member b = c->m[k->cvec[v]];
        int p[TINE_INSN_MAX_OPS];
        for (int j = 0; j < m->nops; j++) p[j] = j;
        do {
            memcpy(b.perm, p, sizeof p);
            int first = 0; /* T: the first operand that is not a mask */
            while (first + 1 < m->nops && m->ph[p[first]]->type.kind == TINE_BOOL) first++;
            b.T = tine_type_with_lanes(m->ph[p[first]]->type, 1);
            /* the operands' types and lanes first: the template's header */
            tine_buf h = {0};
            b.nn = 0;
            bool fits = put_header(&h, m, b.T, p, b.n, &b.nn, k->abs) && !strncmp(h.p, k->tmpl, h.n);
            free(h.p);
            if (!fits) continue;
            const tine_expr_t *e = instantiate(c->ctx, k->ast, &b, m);
            if (!e || !agree(c->ctx, m, e, m->sem) || !prove(c, e, m->sem)) continue;
            m->T = b.T;
            memcpy(m->perm, p, sizeof p);
            memcpy(m->c, b.c, sizeof b.c);
            m->nc = b.nc;
            memcpy(m->n, b.n, sizeof b.n);
            m->nn = b.nn;
            m->proven = m->z3 = true;
            return true;
        } while (next_perm(p, m->nops));
    }
    return false;
}

static void collect(tine_classes *c, const tine_isa *isa) {
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        /* a fixed (imported) entry has its own lanes only */
        size_t ntries = in->fixed ? 1 : sizeof LANE_TRIES / sizeof *LANE_TRIES;
        for (size_t t = 0; t < ntries; t++) {
            const tine_expr_t *const *ph;
            int lanes = in->fixed ? in->probe_result : LANE_TRIES[t];
            const tine_expr_t *sem = tine_isa_insn_sem(c->ctx, isa, k, lanes, &ph);
            if (!sem) continue;
            TINE_GROW_ZERO(c->m, (size_t)c->n + 1, c->cap);
            member *m = &c->m[c->n++];
            *m = (member){.name = in->name, .isa = isa->name, .in = in, .sem = sem, .ph = ph, .nops = in->nops,
                          .lanes = lanes, .cls = -1};
            break;
        }
    }
}

/* Sorts the indices of classes by size, largest first, then the ones whose template
 * writes narrower types as they are (they are the more general: srshl_i8 joins the class
 * of srshl_i16 and srshl_i32 by proof, not they its), stably. */
static bool before(const klass *a, const klass *b) { return a->n > b->n || (a->n == b->n && a->abs && !b->abs); }

static void sort_by_size(int *v, int n, const klass *k) {
    for (int i = 1; i < n; i++) {
        int x = v[i], j = i;
        for (; j > 0 && before(&k[x], &k[v[j - 1]]); j--) v[j] = v[j - 1];
        v[j] = x;
    }
}

tine_classes *tine_classes_find(tine_ctx_t *ctx, const tine_isa *const *isas, int n, unsigned timeout_ms) {
    double t0 = tine_now();
    tine_classes *c = tine_xcalloc(1, sizeof *c);
    c->ctx = ctx;
    c->timeout_ms = timeout_ms;
    for (int i = 0; i < n; i++) collect(c, isas[i]);
    c->t.insns = c->n;
    /* buckets: one per template text, in order of first appearance */
    int *bucket = tine_xmalloc(sizeof(int) * (size_t)(c->n ? c->n : 1));
    int nb = 0;
    klass *b = NULL;
    size_t capb = 0;
    for (int i = 0; i < c->n; i++) {
        member *m = &c->m[i];
        bucket[i] = -1;
        if (!make_template(ctx, m)) continue;
        for (int j = 0; j < nb && bucket[i] < 0; j++)
            if (!strcmp(b[j].tmpl, m->own)) bucket[i] = j;
        if (bucket[i] < 0) {
            TINE_GROW_ZERO(b, (size_t)nb + 1, capb);
            b[nb].tmpl = m->own;
            bucket[i] = nb++;
        }
        TINE_PUSH(b[bucket[i]].m, b[bucket[i]].n, b[bucket[i]].cap, i);
    }
    /* buckets whose members are all written alike with the narrower types as they are,
     * and alike across buckets, are one (srshl_i16 reads its count as narrow(T), srshl_i32
     * as narrow(narrow(T)): both as i8) */
    const char **alt = tine_xcalloc((size_t)(nb ? nb : 1), sizeof *alt); /* each bucket's one alt, or NULL */
    for (int j = 0; j < nb; j++) {
        alt[j] = c->m[b[j].m[0]].alt;
        for (int x = 1; x < b[j].n && alt[j]; x++)
            if (!c->m[b[j].m[x]].alt || strcmp(c->m[b[j].m[x]].alt, alt[j])) alt[j] = NULL;
    }
    for (int j = 0; j < nb; j++)
        for (int j2 = j + 1; j2 < nb && alt[j]; j2++) {
            if (!alt[j2] || strcmp(alt[j], alt[j2])) continue;
            for (int x = 0; x < b[j2].n; x++) TINE_PUSH(b[j].m, b[j].n, b[j].cap, b[j2].m[x]);
            b[j2].n = 0;
            alt[j2] = NULL;
            b[j].tmpl = (char *)alt[j];
            b[j].abs = true;
        }
    free(alt);
    /* larger buckets first: they own the classes the others' members may join */
    int *bo = tine_xmalloc(sizeof(int) * (size_t)(nb ? nb : 1));
    for (int j = 0; j < nb; j++) bo[j] = j;
    sort_by_size(bo, nb, b);
    for (int q = 0; q < nb; q++) {
        klass *bk = &b[bo[q]];
        int own = -1, nclass = c->nk;
        for (int x = 0; x < bk->n; x++) {
            int i = bk->m[x];
            member *m = &c->m[i];
            bool done = false;
            for (int cls = 0; cls < nclass && !done; cls++)
                if (joins(c, cls, i)) {
                    add_member(c, cls, i);
                    c->t.joined++;
                    done = true;
                }
            if (done) continue;
            /* its own bucket's template: proven at its binding (syntax, else Z3) */
            if (own < 0) own = new_class(c, bk->tmpl, bk->abs);
            const tine_expr_t *e = instantiate(ctx, c->k[own].ast, m, m);
            if (e && e != m->sem) m->z3 = true;
            if (e && agree(ctx, m, e, m->sem) && prove(c, e, m->sem)) add_member(c, own, i);
            else add_member(c, new_class(c, NULL, false), i), c->t.unabstracted++;
        }
        free(bk->m);
    }
    for (int i = 0; i < c->n; i++)
        if (bucket[i] < 0) add_member(c, new_class(c, NULL, false), i), c->t.unabstracted++;
    free(b);
    free(bo);
    free(bucket);
    c->order = tine_xmalloc(sizeof(int) * (size_t)(c->nk ? c->nk : 1));
    for (int j = 0; j < c->nk; j++) c->order[j] = j;
    sort_by_size(c->order, c->nk, c->k);
    /* a bucket's class whose first member did not prove stays empty: not a class */
    c->t.classes = 0;
    for (int j = 0; j < c->nk; j++) c->t.classes += c->k[j].n > 0;
    for (int j = 0; j < c->nk; j++) {
        const klass *k = &c->k[j];
        bool span = false;
        for (int x = 1; x < k->n && !span; x++) span = c->m[k->m[x]].isa != c->m[k->m[0]].isa;
        c->t.spanning += span;
    }
    c->t.seconds = tine_now() - t0;
    return c;
}

void tine_classes_free(tine_classes *c) {
    if (!c) return;
    for (int i = 0; i < c->n; i++) free(c->m[i].own), free(c->m[i].alt);
    for (int j = 0; j < c->nk; j++) free(c->k[j].m);
    free(c->k);
    free(c->m);
    free(c->order);
    tine_arena_free(&c->arena);
    free(c);
}

const tine_classes_totals *tine_classes_totals_of(const tine_classes *c) { return &c->t; }

int tine_classes_of(const tine_classes *c, const char *insn) {
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->m[i].name, insn)) {
            for (int j = 0; j < c->nk; j++)
                if (c->order[j] == c->m[i].cls) return j;
        }
    return -1;
}

const char *tine_classes_template(const tine_classes *c, int cls) {
    return cls >= 0 && cls < c->nk ? c->k[c->order[cls]].tmpl : NULL;
}

static void print_member(const tine_classes *c, const member *m, FILE *out) {
    char tn[16];
    fprintf(out, "  %-14s %-4s", m->name, m->isa);
    if (c->k[m->cls].tmpl) {
        fprintf(out, " T=%s", tine_type_name(m->T, tn));
        for (int k = 0; k < m->nops; k++) fprintf(out, " x%d=%s", k, m->in->opname[m->perm[k]]);
        for (int k = 0; k < m->nc; k++) {
            char s[48];
            fprintf(out, " c%d=%s", k, tine_i128_str(m->c[k], s));
        }
        for (int k = 0; k < m->nn; k++) fprintf(out, " n%d=%d", k, m->n[k]);
    }
    fprintf(out, "  lanes");
    for (int f = 0; f < m->in->nforms; f++) /* the result's lanes in each form's registers */
        fprintf(out, "%s%d", f ? "," : " ", m->in->probe_result * m->in->form[f].bits / m->in->form[0].bits);
    if (m->proven) fprintf(out, "  (joined: proven equal by Z3)");
    else if (m->z3) fprintf(out, "  (proven by Z3)");
    fputc('\n', out);
}

void tine_classes_print_totals(const tine_classes_totals *t, const char *what, FILE *out) {
    fprintf(out, "%s: %d instructions, %d classes (", what, t->insns, t->classes);
    if (t->spanning) fprintf(out, "%d spanning descriptions, ", t->spanning);
    fprintf(out, "%d without a template, %d joined by proof; %ld Z3 queries, %ld not proven; %.2f s)\n", t->unabstracted,
            t->joined, t->z3_queries, t->z3_failed, t->seconds);
}

void tine_classes_print(const tine_classes *c, FILE *out) {
    for (int j = 0; j < c->nk; j++) {
        const klass *k = &c->k[c->order[j]];
        if (k->n == 0) continue; /* the empty ones sort last */
        fprintf(out, "class %d (%d member%s): %s\n", j + 1, k->n, k->n == 1 ? "" : "s",
                k->tmpl ? k->tmpl : "(no template: its own semantics)");
        for (int x = 0; x < k->n; x++) print_member(c, &c->m[k->m[x]], out);
    }
}

/* ---- the public entry (tine.h) ---------------------------------------------------------- */

int tine_isa_classes(tine_ctx_t *ctx, const char *isa, unsigned timeout_ms, FILE *out) {
    const tine_isa *isas[TINE_MAX_ISAS];
    int n = 0;
    bool all = !isa || !strcmp(isa, "all");
    for (int i = 0; tine_isa_name(i); i++)
        if (all || !strcmp(tine_isa_name(i), isa)) isas[n++] = tine_isa_get(ctx, tine_isa_name(i));
    if (!n) {
        tine_set_error(ctx, "unknown instruction set '%s' (x86, arm or all)", isa);
        return -1;
    }
    tine_classes *c = tine_classes_find(ctx, isas, n, timeout_ms);
    tine_classes_print(c, out);
    /* the summary: per description, then all of them together */
    if (n > 1)
        for (int i = 0; i < n; i++) {
            tine_classes *one = tine_classes_find(ctx, &isas[i], 1, timeout_ms);
            tine_classes_print_totals(tine_classes_totals_of(one), isas[i]->name, out);
            tine_classes_free(one);
        }
    tine_classes_print_totals(tine_classes_totals_of(c), all ? "all" : isa, out);
    int k = tine_classes_totals_of(c)->classes;
    tine_classes_free(c);
    return k;
}
