/* affine.h — affine forms of i32 index expressions in one loop variable.
 *
 * a*v + sum(c_i * t_i) + k, with the t_i one-lane i32 terms that do not change in the
 * loop, and lane offsets [dmin, dmax] for vector expressions (ramps, constant vectors).
 * Loop partitioning (stmt/partition.c) bounds a clamp's argument with it; sliding
 * windows (pipeline/kernel_slide.c) find the rows a read moves through. What counts as
 * the variable, as a let bound inside the loop, and as invariant is the caller's: the
 * hooks below. Coefficients and offsets are kept far inside i64 (terms are i32), so
 * every value a form gives is exact; a form that would leave those limits has none. */
#ifndef TINE_AFFINE_H
#define TINE_AFFINE_H

#include "../internal.h"

enum { TINE_AFF_TERMS = 8 };
#define TINE_AFF_COEF_LIMIT ((int64_t)1 << 24)
#define TINE_AFF_OFF_LIMIT ((int64_t)1 << 40)

typedef struct {
    int n;
    tine_expr_t *t[TINE_AFF_TERMS]; /* one-lane i32 terms, invariant in the loop */
    int64_t c[TINE_AFF_TERMS];
    int64_t k, a;                   /* constant; coefficient of the loop variable */
    int64_t dmin, dmax;             /* offsets of the lanes */
} tine_aff;

/* Why an expression has no form (for the caller's message). */
typedef enum {
    TINE_AFF_OK,
    TINE_AFF_NOT_I32,   /* not an i32 value */
    TINE_AFF_LIMITS,    /* too many terms, or coefficients past the limits */
    TINE_AFF_NONLINEAR, /* the variable times something that is not a constant */
    TINE_AFF_VARIANT,   /* a variable of a loop inside (not bound to a form) */
    TINE_AFF_OTHER,     /* an operation with no affine form (division, min, a load ...) */
} tine_aff_why;

typedef struct {
    const tine_expr_t *var; /* the loop variable */
    /* a variable bound inside the loop: 1 and its form, -1 bound without a form, 0 free */
    int (*bound)(void *env, const tine_expr_t *v, tine_aff *form);
    /* whether e keeps one value throughout the loop (a term) */
    bool (*invariant)(void *env, const tine_expr_t *e);
    void *env;
    tine_aff_why why;       /* set when tine_affine fails */
} tine_aff_ctx;

bool tine_affine(tine_aff_ctx *A, const tine_expr_t *e, tine_aff *f);
bool tine_aff_add(tine_aff *f, const tine_aff *g, int64_t s); /* f += s*g; false past the limits */
bool tine_aff_add_term(tine_aff *f, tine_expr_t *t, int64_t c);
bool tine_aff_const(const tine_aff *f);                        /* no variable, terms or lane offsets */
bool tine_aff_same_terms(const tine_aff *f, const tine_aff *g); /* the same nonzero terms */

#endif
