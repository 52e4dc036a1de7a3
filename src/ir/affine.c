/* affine.c — affine forms of i32 index expressions (affine.h). */
#include "affine.h"

static bool aff_ok(const tine_aff *f) {
    if (f->k > TINE_AFF_OFF_LIMIT || f->k < -TINE_AFF_OFF_LIMIT) return false;
    if (f->a > TINE_AFF_COEF_LIMIT || f->a < -TINE_AFF_COEF_LIMIT) return false;
    if (f->dmin < -TINE_AFF_OFF_LIMIT || f->dmax > TINE_AFF_OFF_LIMIT) return false;
    for (int i = 0; i < f->n; i++)
        if (f->c[i] > TINE_AFF_COEF_LIMIT || f->c[i] < -TINE_AFF_COEF_LIMIT) return false;
    return true;
}

bool tine_aff_add_term(tine_aff *f, tine_expr_t *t, int64_t c) {
    for (int i = 0; i < f->n; i++)
        if (f->t[i] == t) {
            f->c[i] += c;
            return true;
        }
    if (f->n == TINE_AFF_TERMS) return false;
    f->t[f->n] = t;
    f->c[f->n++] = c;
    return true;
}

bool tine_aff_add(tine_aff *f, const tine_aff *g, int64_t s) {
    for (int i = 0; i < g->n; i++)
        if (!tine_aff_add_term(f, g->t[i], s * g->c[i])) return false;
    f->k += s * g->k;
    f->a += s * g->a;
    int64_t lo = s * g->dmin, hi = s * g->dmax;
    f->dmin += s < 0 ? hi : lo;
    f->dmax += s < 0 ? lo : hi;
    return aff_ok(f);
}

bool tine_aff_const(const tine_aff *f) { return f->n == 0 && f->a == 0 && f->dmin == 0 && f->dmax == 0; }

bool tine_aff_same_terms(const tine_aff *f, const tine_aff *g) {
    int nf = 0, ng = 0;
    for (int i = 0; i < f->n; i++) nf += f->c[i] != 0;
    for (int i = 0; i < g->n; i++) ng += g->c[i] != 0;
    if (nf != ng) return false;
    for (int i = 0; i < f->n; i++) {
        if (!f->c[i]) continue;
        bool found = false;
        for (int j = 0; j < g->n && !found; j++) found = g->t[j] == f->t[i] && g->c[j] == f->c[i];
        if (!found) return false;
    }
    return true;
}

static bool fail(tine_aff_ctx *A, tine_aff_why why) {
    A->why = why;
    return false;
}

static bool scaled(tine_aff_ctx *A, tine_aff *f, const tine_aff *g, int64_t s) {
    if (s < -TINE_AFF_COEF_LIMIT || s > TINE_AFF_COEF_LIMIT || !tine_aff_add(f, g, s)) return fail(A, TINE_AFF_LIMITS);
    return true;
}

/* Anything with no form of its own: a term, if it is one-lane and invariant. */
static bool term(tine_aff_ctx *A, const tine_expr_t *e, tine_aff *f) {
    memset(f, 0, sizeof *f);
    if (e->type.lanes != 1 || (A->invariant && !A->invariant(A->env, e)))
        return fail(A, e->op == TINE_OP_VAR ? TINE_AFF_VARIANT : TINE_AFF_OTHER);
    return tine_aff_add_term(f, (tine_expr_t *)e, 1);
}

bool tine_affine(tine_aff_ctx *A, const tine_expr_t *e, tine_aff *f) {
    memset(f, 0, sizeof *f);
    if (e->type.kind != TINE_INT || e->type.bits != 32) return fail(A, TINE_AFF_NOT_I32);
    tine_aff x, y;
    switch ((tine_op_t)e->op) {
    case TINE_OP_CONST: {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int i = 0; i < e->type.lanes; i++) {
            int64_t c = (int32_t)(uint32_t)tine_const_value(e, i);
            lo = c < lo ? c : lo;
            hi = c > hi ? c : hi;
            if (e->flags & TINE_F_UNIFORM) break;
        }
        f->k = lo;
        f->dmax = hi - lo;
        return true;
    }
    case TINE_OP_VAR: {
        if (e == A->var) {
            f->a = 1;
            return true;
        }
        int b = A->bound ? A->bound(A->env, e, f) : 0;
        if (b > 0) return true;
        memset(f, 0, sizeof *f);
        if (b < 0) return fail(A, TINE_AFF_VARIANT);
        break;
    }
    case TINE_OP_BROADCAST: return tine_affine(A, e->ops[0], f);
    case TINE_OP_RAMP:
        if (!tine_affine(A, e->ops[0], f) || !tine_affine(A, e->ops[1], &y)) return false;
        if (!tine_aff_const(&y)) return fail(A, TINE_AFF_NONLINEAR);
        int64_t span = y.k * (e->type.lanes - 1);
        if (span < 0) f->dmin += span;
        else f->dmax += span;
        return aff_ok(f) || fail(A, TINE_AFF_LIMITS);
    case TINE_OP_ADD:
    case TINE_OP_SUB:
        if (!tine_affine(A, e->ops[0], f) || !tine_affine(A, e->ops[1], &x)) return false;
        return scaled(A, f, &x, e->op == TINE_OP_ADD ? 1 : -1);
    case TINE_OP_NEG:
        if (!tine_affine(A, e->ops[0], &x)) return false;
        return scaled(A, f, &x, -1);
    case TINE_OP_MUL: {
        bool ok = tine_affine(A, e->ops[0], &x) && tine_affine(A, e->ops[1], &y);
        if (ok && tine_aff_const(&x)) return scaled(A, f, &y, x.k);
        if (ok && tine_aff_const(&y)) return scaled(A, f, &x, y.k);
        if (ok && (x.a || y.a)) return fail(A, TINE_AFF_NONLINEAR);
        /* a product of invariants is one term; else an operand's reason is the better one */
        tine_aff_why why = A->why;
        if (term(A, e, f)) return true;
        if (!ok) A->why = why;
        return false;
    }
    default: break;
    }
    return term(A, e, f);
}
