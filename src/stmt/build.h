/* build.h — the builder that build.c and its steps (build_body.c, build_reduce.c,
 * build_nest.c, in that order: each calls only those before it) share while they make
 * one stage's loop nest, and the functions each step offers the others. Private to those
 * files. */
#ifndef TINE_BUILD_H
#define TINE_BUILD_H

#include "passes.h"

typedef struct builder_s {
    tine_stmt_pool *p;
    tine_ctx_t *ctx;
    const tine_kernel_t *k;
    const tine_kernel_plan_t *plan; /* NULL: every stage is read (no guard) */
    const tine_stage *st;
    int sn;
    const char *vp;                 /* prefix of the loop variables: "" at the root, "f$" computed at another stage */
    tine_expr_t *min[4], *extent[4], *stride[4], *coord[4];
    tine_expr_t *lo[4], *ext[4];    /* the range each coordinate's loop runs over */
    tine_expr_t *blo[4], *bext[4];  /* a split coordinate: the block its outer loop is at */
    int xpos;                       /* the vector loop's place in st->loops (set while gen() builds it) */
    tine_expr_t *body, *body1;      /* the stage's bodies, coordinates renamed and folded loads indexed */
    tine_reductions reds, reds1;
    tine_rvec *rvec;                /* the stage's vectorized reductions, their bodies as body's */
    tine_u64map memo;
    tine_type_t i32;
    /* unroll-and-jam: rows of coordinate 1 whose points xrun computes together (their
       reductions share one loop nest), the row coordinate's value for each; 0: none */
    int jrows;
    tine_expr_t **jrow;
    /* jammed reductions chained into one accumulator (chain_sums): jinto[i] is the
       reduction whose accumulator reduction i adds into (i itself unless chained) */
    int *jinto;
    /* the point inside the vector loop (a reshaped nest's loops inside it, the
       reductions, the store): set by tine_build_nest, called by the reductions */
    tine_stmt *(*point)(struct builder_s *b, bool vector);
} builder;

static inline tine_expr_t *ci(builder *b, int64_t v) { return tine_const_int(b->ctx, b->i32, v); }
static inline tine_expr_t *add(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_ADD, x, y); }
static inline tine_expr_t *sub(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_SUB, x, y); }
static inline tine_expr_t *mul(builder *b, tine_expr_t *x, tine_expr_t *y) { return tine_binary(b->ctx, TINE_OP_MUL, x, y); }

/* The loop variable $.<vp><fmt % d> (fmt such as "c%d"). */
static inline tine_expr_t *var(builder *b, const char *fmt, int d) {
    char vn[96], f[32];
    snprintf(f, sizeof f, "$.%%s%s", fmt);
    snprintf(vn, sizeof vn, f, b->vp, d);
    return tine_var(b->ctx, vn, b->i32);
}

/* build_body.c: a builder of stage sn over its region (vp: the loop variables' prefix;
 * plan NULL: no guard on whether a stage is read), and its release; the store of the
 * body at the current coordinates (vector or one lane). */
void tine_build_init(builder *b, tine_stmt_pool *p, const tine_kernel_t *k, const tine_kernel_plan_t *plan, int sn,
                     const char *vp);
void tine_build_free(builder *b);
tine_stmt *tine_build_store(builder *b, bool vector);
/* e with the stage's coordinates renamed to b's and the loads of folded
 * buffers indexed by row modulo the fold; the same for each part of reductions `from`
 * (to->v allocated). */
tine_expr_t *tine_build_xf(builder *b, tine_expr_t *e);
void tine_build_xf_reductions(builder *b, const tine_reductions *from, tine_reductions *to);
/* The origin of channel-tiled stage `name` computed at b's stage (tine_stage.ctile); the
 * stride of dimension d >= 1 of channel-tiled stage t's buffer. */
tine_expr_t *tine_build_org(builder *b, const char *name);
tine_expr_t *tine_build_tile_stride(tine_ctx_t *ctx, const tine_stage *t, int d);


/* build_reduce.c: the reductions of rs nested directly in `parent` (-1: the body's own)
 * around rest; whether unrolled points jam their reductions into one loop nest; the
 * points of one iteration of a run of the first coordinate (nx vectors at x[0..nx), 0:
 * the current one, times the jammed rows). */
tine_stmt *tine_build_reductions(builder *b, const tine_reductions *rs, int parent, tine_stmt *rest);
bool tine_build_jams(const builder *b);
tine_stmt *tine_build_points(builder *b, bool vector, int nx, tine_expr_t **x);

/* build_nest.c: the stage's whole nest, with the rows of the stages computed at its
 * loops (compute_at). */
tine_stmt *tine_build_nest(builder *b);

#endif
