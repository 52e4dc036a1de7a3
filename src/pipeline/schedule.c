/* schedule.c — a kernel's directives, applied: schedule auto's (autosched.c) or the
 * written ones, each kind in one case of apply() — a function materialized or inlined,
 * computed at another's loop, its loops vectorized, unrolled, tiled, split, fused,
 * reordered (kernel_loops.c), parallel — then checked against the whole schedule. What
 * depends on the stages' bodies (a reduction vectorized, a window that slides, what a
 * buffer stores) is checked once they are elaborated (kernel_stages.c, kernel_slide.c). */
#include "front.h"
#include "kernel.h"

/* f computed into a buffer of its own (materialize, compute_root, compute_at). */
static bool materialize(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, tine_kdecl *f) {
    if (f->materialized) return true;
    int n = 1;
    for (int j = 0; j < k->ndecls; j++) n += k->decls[j].materialized;
    if (n >= TINE_KERNEL_MAX_STAGES) {
        tine_diag(ctx, k->src, s->line, s->col, "at most %d functions can be materialized", TINE_KERNEL_MAX_STAGES - 1);
        tine_error_set_kind(ctx, TINE_ERROR_LIMIT);
        return false;
    }
    f->materialized = true;
    return true;
}

/* store_as f T (directive i), as written: f a function, T an integer type, once. Whether
 * T holds f's values is kernel_stages.c's (it knows the values' bounds); that f is
 * materialized, check_schedule's. */
static bool store_as(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, int i, tine_kdecl *f) {
    tine_type_t t;
    if (f->kind != K_FUNC) {
        tine_diag(ctx, k->src, s->line, s->col, "store_as: '%s' is the output; its buffer stores its declared type", f->name);
        return false;
    }
    if (!tine_parse_type_name(s->name, strlen(s->name), &t) || (t.kind != TINE_INT && t.kind != TINE_UINT) || t.bits > 64) {
        tine_diag(ctx, k->src, s->line, s->col, "store_as: '%s' is not an integer element type (u8 ... i64)", s->name);
        return false;
    }
    if (f->store_as_sched)
        return tine_kdirective_again(ctx, s, &k->sched[f->store_as_sched - 1], "'%s' already stores %s", f->name,
                                     k->sched[f->store_as_sched - 1].name);
    f->store_as = t;
    f->store_as_sched = i + 1;
    return true;
}

/* compute_at f g.y and store_at f g.y (directive i), as written: the names exist. What
 * depends on the rest of the schedule is check_at's. */
static bool schedule_at(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, int i, tine_kdecl *f) {
    const tine_src *src = k->src;
    if (f->kind != K_FUNC) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' is the output; only the functions it reads can be computed at its loops",
             s->what, f->name);
        return false;
    }
    const tine_kdecl *g = tine_kernel_find(k, s->at);
    if (!g || (g->kind != K_FUNC && g->kind != K_OUTPUT)) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' is not a function of this kernel", s->what, s->at);
        return false;
    }
    if (g == f) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' cannot be computed inside its own loops", s->what, f->name);
        return false;
    }
    int d = 0;
    while (d < g->nargs && strcmp(g->args[d], s->dim)) d++;
    for (int j = 0; d == g->nargs && j < g->nloops; j++) /* a loop of g's reshaped nest (check_at) */
        if (!strcmp(g->loops[j].name, s->dim)) d = g->loops[j].dim;
    if (d == g->nargs) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' has no coordinate or loop '%s' (a split's loops exist after the split "
             "directive)", s->what, g->name, s->dim);
        return false;
    }
    bool compute = s->kind == TINE_DIR_COMPUTE_AT;
    if (compute ? f->at_sched : f->store_sched) {
        const tine_kdirective *o = &k->sched[(compute ? f->at_sched : f->store_sched) - 1];
        return tine_kdirective_again(ctx, s, o, "'%s' is already %s at %s.%s", f->name, compute ? "computed" : "stored", o->at,
                                     o->dim);
    }
    if (compute && f->mat_by) /* materialize and compute_root compute all of f before its readers */
        return tine_kdirective_again(ctx, s, f->mat_by, "'%s' is already computed whole, before the stages that read it",
                                     f->name);
    if (!compute) {
        f->store_dim = d;
        f->store_sched = i + 1;
        return true;
    }
    f->at = g->name;
    f->at_dim = d;
    f->at_sched = i + 1;
    return materialize(ctx, k, s, f);
}

/* How deep g's loop `name` is in its nest (0 the outermost): a loop of its reshaped
 * nest, or a coordinate's loop (a coordinate split or fused since: its outermost loop). */
static int loop_depth(const tine_kdecl *g, const char *name) {
    if (!g->nloops) {
        int d = 0;
        while (d < g->nargs && strcmp(g->args[d], name)) d++;
        return g->nargs - 1 - d;
    }
    int j = tine_kloops_find(g, name);
    if (j >= 0) return j;
    for (j = 0; j < g->nloops; j++) {
        const tine_kloop *l = &g->loops[j];
        if (!strcmp(g->args[l->dim], name) || (l->kind == TINE_KLOOP_FUSED && !strcmp(g->args[l->dim2], name))) return j;
    }
    return 0;
}

/* compute_at f g.y against the whole schedule: g is a stage whose rows run in order (not
 * tiled, not parallel), y a row coordinate, store_at (if given) at that level or outside
 * it. Whether g's reads of f slide along y is known once the stages are elaborated
 * (kernel_slide.c). */
static bool check_at(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, const tine_kdecl *f) {
    const tine_src *src = k->src;
    const tine_kdecl *g = tine_kernel_find(k, f->at);
    if (g->kind == K_FUNC && !g->materialized) {
        tine_diag(ctx, src, s->line, s->col, "compute_at: '%s' is inlined into its callers; '%s' can be computed at the loops of "
             "the output or of a materialized function", g->name, f->name);
        return false;
    }
    if (f->at_dim == 0) {
        tine_diag(ctx, src, s->line, s->col, "compute_at: %s.%s is the first coordinate of '%s', whose loop is vectorized; compute "
             "'%s' at a row coordinate (%s.%s)", g->name, g->args[0], g->name, f->name, g->name, g->nargs > 1 ? g->args[1] : "y");
        return false;
    }
    if (g->tile[0] || g->parallel) {
        tine_diag(ctx, src, s->line, s->col, "compute_at: '%s' is %s; a sliding window needs its rows one after another, in order",
             g->name, g->tile[0] ? "tiled" : "parallel");
        return false;
    }
    if (f->store_sched) {
        const tine_kdirective *t = &k->sched[f->store_sched - 1];
        if (strcmp(t->at, g->name)) {
            tine_diag(ctx, src, t->line, t->col, "store_at: '%s' is computed at %s.%s, so its buffer belongs to a loop of '%s' "
                 "(%s.%s or one outside it), not of '%s'", f->name, g->name, s->dim, g->name, g->name, s->dim, t->at);
            return false;
        }
        if (loop_depth(g, t->dim) > loop_depth(g, s->dim)) {
            tine_diag(ctx, src, t->line, t->col, "store_at: %s.%s is inside the loop '%s' is computed at (%s.%s): its buffer would "
                 "be new at every row, so its rows could not slide", t->at, t->dim, f->name, g->name, s->dim);
            return false;
        }
    }
    return true;
}

/* compute_at f g.yo into g's reshaped nest: yo the outer loop of `split g.y yo yi N`
 * (strips of N rows; f's window for the whole strip is computed before its inner loops,
 * stmt/build.c), or g.y a whole row loop (f's rows per row, as in a nest not reshaped);
 * every loop outside it of coordinates after y (whose values stay put through a strip)
 * or the outer loop of a split of the first coordinate (channel tiles: f computed per
 * tile, kernel_slide.c), and every loop inside it of y, coordinates before it, or whole
 * or fused loops of later coordinates (f's reads must not depend on those: they run
 * inside the iteration the window is computed at). */
static bool check_at_strip(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, const tine_kdecl *g) {
    if (!g->nloops) return true;
    int at = 0;
    while (at < g->nloops && strcmp(g->loops[at].name, s->dim)) at++;
    if (at == g->nloops || (g->loops[at].kind != TINE_KLOOP_OUTER && g->loops[at].kind != TINE_KLOOP_WHOLE) ||
        g->loops[at].dim == 0) {
        tine_diag(ctx, k->src, s->line, s->col, "compute_at: '%s' has its loops split, fused or reordered; a function can be "
             "computed there only at a whole row loop or the outer loop of a split of a row coordinate (split %s.y yo yi "
             "N, then compute_at %s %s.yo)", g->name, g->name, s->func, g->name);
        return false;
    }
    int d = g->loops[at].dim;
    for (int j = 0; j < g->nloops; j++) {
        const tine_kloop *l = &g->loops[j];
        int hi = l->kind == TINE_KLOOP_FUSED && l->dim2 > l->dim ? l->dim2 : l->dim;
        int lo = l->kind == TINE_KLOOP_FUSED && l->dim2 < l->dim ? l->dim2 : l->dim;
        bool ctile = l->kind == TINE_KLOOP_OUTER && l->dim == 0;
        /* a later coordinate's loop inside the row loop (reorder out.x out.c out.y: every
           channel per row) is fine when f's reads do not move with it; kernel_slide.c
           treats such coordinates as varying within the row and refuses reads that do */
        if (j == at || (j < at ? lo > d || ctile : hi <= d || lo > d)) continue;
        tine_diag(ctx, k->src, s->line, s->col, "compute_at: the loop %s.%s is %s %s.%s; the rows of %s.%s need the loops of "
             "earlier coordinates inside them (later coordinates' loops on either side, channel tiles, a split's outer loop of "
             "%s.%s, outside)",
             g->name, l->name, j < at ? "outside" : "inside", g->name, s->dim, g->name, s->dim, g->name, g->args[0]);
        return false;
    }
    for (int j = 0; j < g->nloops; j++)
        if (g->loops[j].parallel) {
            tine_diag(ctx, k->src, s->line, s->col, "compute_at: %s.%s is parallel; a sliding window's strips run one after "
                 "another, in order", g->name, g->loops[j].name);
            return false;
        }
    return true;
}

/* `inline f`: the default, made explicit (check_schedule refuses it of a materialized f). */
static bool apply_inline(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, tine_kdecl *f) {
    if (f->kind == K_OUTPUT) {
        tine_diag(ctx, k->src, s->line, s->col, "inline: '%s' is the output; it is always computed into its buffer", f->name);
        return false;
    }
    if (f->inline_by) return tine_kdirective_again(ctx, s, f->inline_by, "'%s' is already inlined", f->name);
    f->inlined = true;
    f->inline_by = s;
    return true;
}

/* materialize f, compute_root f: computed whole, into a buffer of its own. */
static bool apply_materialize(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, tine_kdecl *f) {
    if (f->kind == K_OUTPUT) {
        tine_diag(ctx, k->src, s->line, s->col, "%s: '%s' is the output; it is always computed into its buffer", s->what,
                  f->name);
        return false;
    }
    if (f->at_sched)
        return tine_kdirective_again(ctx, s, &k->sched[f->at_sched - 1], "'%s' is already computed at %s.%s, a few "
                                     "rows at a time", f->name, f->at, k->sched[f->at_sched - 1].dim);
    if (f->mat_by) return tine_kdirective_again(ctx, s, f->mat_by, "'%s' is already computed whole", f->name);
    if (!materialize(ctx, k, s, f)) return false;
    f->mat_by = s;
    return true;
}

/* tile f a b W H: build.c's own tiles of the first two coordinates, in order; any other
 * two loops (or f's loops reshaped) as split and reorder (kernel_loops.c). */
static bool apply_tile(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdirective *s, tine_kdecl *f) {
    const tine_kdirective *t = f->tile_by;
    if (t && (!strcmp(s->dim, t->dim) || !strcmp(s->dim, t->dim2) || !strcmp(s->dim2, t->dim) || !strcmp(s->dim2, t->dim2)))
        return tine_kdirective_again(ctx, s, t, "%s.%s and %s.%s are already tiled", f->name, t->dim, f->name, t->dim2);
    if (!t) f->tile_by = s;
    if (f->nloops || f->nargs < 2 || strcmp(s->dim, f->args[0]) || strcmp(s->dim2, f->args[1]))
        return tine_kloops_tile(ctx, &kn->arena, s, f);
    f->tile[0] = s->n;
    f->tile[1] = s->n2;
    return true;
}

enum { LOOP_FAILED = -3, LOOP_DONE = -2, LOOP_REDUCTION = -1 };

/* The loop s->dim of f that vectorize, unroll, parallel or partition names: a loop of f's
 * reshaped nest is kernel_loops.c's (LOOP_DONE, or LOOP_FAILED with its error); else the
 * index of f's coordinate, or, for a vectorize, LOOP_REDUCTION (a loop reduction's
 * variable: kernel_stages.c applies it, rvec_directives). */
static int loop_of(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, tine_kdecl *f) {
    if (f->nloops) {
        bool handled;
        if (!tine_kloops_apply(ctx, s, f, &handled)) return LOOP_FAILED;
        if (handled) return LOOP_DONE;
    }
    for (int d = 0; d < f->nargs; d++)
        if (!strcmp(f->args[d], s->dim)) return d;
    if (s->kind == TINE_DIR_VECTORIZE) return LOOP_REDUCTION;
    tine_diag(ctx, k->src, s->line, s->col, "%s: '%s' has no coordinate '%s'", s->what, s->func, s->dim);
    return LOOP_FAILED;
}

/* vectorize f.x N (acc A): f's vector width, of its first coordinate. */
static bool apply_vectorize(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, tine_kdecl *f) {
    if (s->n2) {
        tine_diag(ctx, k->src, s->acc_line, s->acc_col,
                  "vectorize: acc sets the accumulator of a vectorized reduction; '%s' is a coordinate of '%s'", s->dim,
                  s->func);
        return false;
    }
    if (strcmp(s->dim, f->args[0])) {
        tine_diag(ctx, k->src, s->line, s->col, "only the first coordinate of a function (%s.%s) can be vectorized so far",
                  f->name, f->args[0]);
        return false;
    }
    if (s->n && (s->n & (s->n - 1))) {
        tine_diag(ctx, k->src, s->line, s->col, "the vector width must be a power of two, not %d", s->n);
        return false;
    }
    if (f->lanes_by) return tine_kdirective_again(ctx, s, f->lanes_by, "'%s' is already given its vector width", f->name);
    f->lanes = s->n; /* 0: natural, chosen from the element type */
    f->lanes_by = s;
    return true;
}

/* parallel f.y: the last coordinate's loop is the outermost; its iterations write
 * disjoint rows (or, in one dimension, blocks) of the stage's buffer. */
static bool apply_parallel(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, tine_kdecl *f) {
    if (strcmp(s->dim, f->args[f->nargs - 1])) {
        tine_diag(ctx, k->src, s->line, s->col, "parallel: only the last coordinate of '%s' (%s.%s) can run in parallel so far",
                  f->name, f->name, f->args[f->nargs - 1]);
        return false;
    }
    if (f->parallel_by) return tine_kdirective_again(ctx, s, f->parallel_by, "%s.%s is already parallel", f->name, s->dim);
    f->parallel = true;
    f->parallel_by = s;
    return true;
}

/* Directive i, s, applied to f, the function it names: one case per kind. */
static bool apply(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdirective *s, int i, tine_kdecl *f) {
    tine_kernel_ast *k = &kn->ast;
    int d = 0;
    if (tine_dir_info_of(s->kind)->applies & TINE_DIR_TO_LOOP) { /* of a reshaped nest, a coordinate, a reduction */
        d = loop_of(ctx, k, s, f);
        if (d == LOOP_FAILED || d == LOOP_DONE || d == LOOP_REDUCTION) return d != LOOP_FAILED;
    }
    switch (s->kind) {
    case TINE_DIR_COMPUTE_AT:
    case TINE_DIR_STORE_AT: return schedule_at(ctx, k, s, i, f);
    case TINE_DIR_SPLIT:
    case TINE_DIR_FUSE:
    case TINE_DIR_REORDER: return tine_kloops_directive(ctx, s, f);
    case TINE_DIR_STORE_AS: return store_as(ctx, k, s, i, f);
    case TINE_DIR_INLINE: return apply_inline(ctx, k, s, f);
    case TINE_DIR_MATERIALIZE:
    case TINE_DIR_COMPUTE_ROOT: return apply_materialize(ctx, k, s, f);
    case TINE_DIR_TILE: return apply_tile(ctx, kn, s, f);
    case TINE_DIR_VECTORIZE: return apply_vectorize(ctx, k, s, f);
    case TINE_DIR_PARALLEL: return apply_parallel(ctx, k, s, f);
    case TINE_DIR_UNROLL:
        if (f->unroll_by[d]) return tine_kdirective_again(ctx, s, f->unroll_by[d], "%s.%s is already unrolled", f->name, s->dim);
        f->unroll[d] = s->n;
        f->unroll_by[d] = s;
        return true;
    case TINE_DIR_PARTITION:
        if (f->partition_by[d])
            return tine_kdirective_again(ctx, s, f->partition_by[d], "%s.%s is already given a partition mode", f->name,
                                         s->dim);
        f->partition[d] = 1 + s->n;
        f->partition_by[d] = s;
        return true;
    case TINE_DIR_COUNT: break;
    }
    TINE_ASSERT(!"a directive of the table");
    return false;
}

/* The directives against the whole schedule, once each is applied: compute_at's stage and
 * loop, store_at with its compute_at, inline of a function not materialized, what needs
 * a buffer of its own, what tiles, rows computed at a loop and unrolls exclude. */
static bool check_schedule(tine_ctx_t *ctx, const tine_kernel_ast *k) {
    const tine_src *src = k->src;
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        const tine_kdecl *f = tine_kernel_find(k, s->func);
        if (s->kind == TINE_DIR_COMPUTE_AT && !check_at(ctx, k, s, f)) return false;
        if (s->kind == TINE_DIR_STORE_AT && !f->at_sched) {
            tine_diag(ctx, src, s->line, s->col, "store_at: '%s' has no compute_at; store_at says where the buffer of a function "
                 "computed at a loop lives (give compute_at %s %s.%s too)", f->name, f->name, s->at, s->dim);
            return false;
        }
        if (s->kind == TINE_DIR_INLINE && f->materialized) {
            int j = 0;
            while (j < k->nsched && (strcmp(k->sched[j].func, f->name) || (k->sched[j].kind != TINE_DIR_MATERIALIZE &&
                                                                            k->sched[j].kind != TINE_DIR_COMPUTE_ROOT &&
                                                                            k->sched[j].kind != TINE_DIR_COMPUTE_AT)))
                j++;
            tine_diag(ctx, src, s->line, s->col, "inline: '%s' is also computed into a buffer of its own (%s at line %d); a "
                 "function is either inlined or materialized", f->name, j < k->nsched ? k->sched[j].what : "materialize",
                 j < k->nsched ? k->sched[j].line : s->line);
            return false;
        }
        if (s->kind == TINE_DIR_INLINE) continue;
        if (s->kind == TINE_DIR_COMPUTE_AT && !check_at_strip(ctx, k, s, tine_kernel_find(k, f->at)))
            return false;
        bool par = s->kind == TINE_DIR_PARALLEL;
        if (f->kind == K_FUNC && f->at_sched && (par || s->kind == TINE_DIR_TILE)) {
            tine_diag(ctx, src, s->line, s->col, "%s: '%s' is computed at %s.%s a few rows at a time; it cannot also be %s",
                 s->what, f->name, f->at, k->sched[f->at_sched - 1].dim, par ? "parallel" : "tiled");
            return false;
        }
        if (s->kind == TINE_DIR_STORE_AS && !f->materialized) {
            tine_diag(ctx, src, s->line, s->col, "store_as: '%s' is inlined into its callers and has no buffer; materialize it "
                 "(or compute_root, compute_at) to choose what its buffer stores", f->name);
            return false;
        }
        if (s->kind != TINE_DIR_MATERIALIZE && f->kind == K_FUNC && !f->materialized) {
            tine_diag(ctx, src, s->line, s->col, "%s: '%s' is inlined into its callers; materialize it to %s it on its own",
                 s->what, f->name, s->what);
            return false;
        }
        if (s == f->lanes_by && f->kind == K_FUNC && f->at_sched && f->nargs == 1 && s->n != 1) {
            tine_diag(ctx, src, s->line, s->col, "vectorize: '%s' is computed at %s.%s one value per row: its only coordinate, "
                      "%s.%s, is the rows, which are never vectors; vectorize a loop reduction in it instead (vectorize "
                      "%s.k N, k the reduction's variable)", f->name, f->at, k->sched[f->at_sched - 1].dim, f->name,
                      f->args[0], f->name);
            return false;
        }
        if (s->kind == TINE_DIR_UNROLL && f->tile[0] && f->unroll[1] > 1) {
            tine_diag(ctx, src, s->line, s->col, "%s: '%s' is tiled; its second coordinate cannot also be unrolled", s->what,
                 f->name);
            return false;
        }
    }
    return true;
}

bool tine_front_schedule(tine_kernel_t *kn, int level) {
    tine_ctx_t *ctx = kn->ctx;
    tine_kernel_ast *k = &kn->ast;
    k->auto_level = level;
    if (k->auto_sched) tine_autoschedule(ctx, &kn->arena, k); /* the directives to check and apply */
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        tine_kdecl *f = (tine_kdecl *)tine_kernel_find(k, s->func);
        if (!f || (f->kind != K_FUNC && f->kind != K_OUTPUT)) {
            tine_diag(ctx, k->src, s->line, s->col, "%s: '%s' is not a function of this kernel", s->what, s->func);
            return false;
        }
        if (!apply(ctx, kn, s, i, f)) return false;
    }
    return check_schedule(ctx, k);
}
