/* kernel_loops.c — the schedule directives that reshape a stage's loop nest: split, fuse,
 * reorder, and the directives (vectorize, unroll, partition, parallel) that name one of
 * the loops they make.
 *
 * A stage starts with one loop per coordinate, the last outermost. The first split, fuse
 * or reorder of a function turns that nest into an explicit list (tine_kdecl.loops,
 * outermost first), carrying over what unroll, partition and parallel already said of
 * each coordinate; later directives edit the list in schedule order, so the names a split
 * or fuse introduces are usable by every directive after it. A stage whose nest no
 * directive reshapes has the plain list (tine_kloops_of); stmt/build_nest.c builds either.
 *
 * The rules that keep every reshaped nest exact and buildable (each broken one a located
 * error at the directive):
 * - split f.y yo yi N: y a whole coordinate's loop (not split or fused already), not yet
 *   unrolled, partitioned or parallel; yo walks blocks of N rows, yi the rows of one
 *   block (the last block shorter: its loop runs over what is left, no guard); a split of
 *   the first coordinate makes strips, each a run of the vector loop with its own tail;
 * - fuse f.y f.z yz: y and z whole coordinates' loops, neither the first (vectorized)
 *   one, z the loop just outside y; yz walks extent(y) * extent(z) points, y = yz mod
 *   extent(y) (the product is at most the stage buffer's size, which fits i32);
 * - reorder f.a f.b ...: innermost first (as Halide's reorder), distinct loops of f; they
 *   take the places they had, in the order given; a split's inner loop stays inside its
 *   outer one, and a parallel loop stays the outermost;
 * - tile f a b W H, when a and b are not the first two coordinates in order or f is
 *   reshaped already: split a by W and b by H, then reorder their inner loops inside
 *   their outer ones (stmt/build_nest.c's own tiles cover the first two coordinates of a
 *   plain nest only: their statement differs, see tile_rows there).
 */
#include "../ir/ast.h"

/* an error at directive s */
#define kerr(ctx, s, ...) tine_diag((ctx), (s)->src, (s)->line, (s)->col, __VA_ARGS__)

bool tine_kdirective_again(tine_ctx_t *ctx, const tine_kdirective *s, const tine_kdirective *first, const char *fmt, ...) {
    tine_buf a = {0}, b = {0}, said = {0};
    tine_directive_print(s, &a);
    tine_directive_print(first, &b);
    va_list ap;
    va_start(ap, fmt);
    tine_buf_vprintf(&said, fmt, ap);
    va_end(ap);
    if (!strcmp(a.p, b.p))
        kerr(ctx, s, "%s: this directive is given twice (first at %d:%d); write it once", s->what, first->line, first->col);
    else
        kerr(ctx, s, "%s: %s (%s at %d:%d); keep one of the two", s->what, said.p, b.p, first->line, first->col);
    free(a.p);
    free(b.p);
    free(said.p);
    return false;
}

int tine_kloops_find(const tine_kdecl *f, const char *name) {
    for (int i = 0; i < f->nloops; i++)
        if (!strcmp(f->loops[i].name, name)) return i;
    return -1;
}

static bool is_coord(const tine_kdecl *f, const char *name) {
    for (int d = 0; d < f->nargs; d++)
        if (!strcmp(f->args[d], name)) return true;
    return false;
}

/* The loop named `name` of f, or -1 with a located error (a coordinate split or fused
 * away names the loops that replaced it). */
static int loop_of(tine_ctx_t *ctx, const tine_kdirective *s, const tine_kdecl *f, const char *name) {
    int i = tine_kloops_find(f, name);
    if (i >= 0) return i;
    if (is_coord(f, name)) {
        for (int j = 0; j < f->nloops; j++) {
            const tine_kloop *l = &f->loops[j];
            if (l->kind == TINE_KLOOP_FUSED && (!strcmp(f->args[l->dim], name) || !strcmp(f->args[l->dim2], name))) {
                kerr(ctx, s, "%s: %s.%s is fused into %s.%s; name that loop", s->what, f->name, name, f->name, l->name);
                return -1;
            }
            if (l->kind == TINE_KLOOP_OUTER && !strcmp(f->args[l->dim], name)) {
                const char *in = "?";
                for (int m = j + 1; m < f->nloops; m++) /* its inner loop, inside it */
                    if (f->loops[m].kind == TINE_KLOOP_INNER && f->loops[m].dim == l->dim) in = f->loops[m].name;
                kerr(ctx, s, "%s: %s.%s is split into %s.%s and %s.%s; name one of them", s->what, f->name, name, f->name,
                     l->name, f->name, in);
                return -1;
            }
        }
    }
    kerr(ctx, s, "%s: '%s' has no loop '%s'", s->what, f->name, name);
    return -1;
}

/* f's plain nest as a list: one loop per coordinate, the last outermost, as unroll,
 * partition and parallel say; its length. */
static int plain_loops(const tine_kdecl *f, tine_kloop *loops) {
    int n = 0;
    for (int d = f->nargs - 1; d >= 0; d--)
        loops[n++] = (tine_kloop){.name = f->args[d], .kind = TINE_KLOOP_WHOLE, .dim = d, .unroll = f->unroll[d],
                                  .partition = f->partition[d], .parallel = f->parallel && d == f->nargs - 1,
                                  .unroll_by = f->unroll_by[d], .partition_by = f->partition_by[d],
                                  .parallel_by = d == f->nargs - 1 ? f->parallel_by : NULL};
    return n;
}

int tine_kloops_of(const tine_kdecl *f, tine_kloop *loops) {
    if (!f->nloops) return plain_loops(f, loops);
    memcpy(loops, f->loops, sizeof *loops * (size_t)f->nloops);
    return f->nloops;
}

/* f's nest as a list, the first time it is reshaped. */
static bool start(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f) {
    if (f->nloops) return true;
    if (f->tile[0]) {
        kerr(ctx, s, "%s: '%s' is tiled; write the tiles as split and reorder to reshape its loops further", s->what,
             f->name);
        return false;
    }
    f->nloops = plain_loops(f, f->loops);
    return true;
}

static bool fresh_name(tine_ctx_t *ctx, const tine_kdirective *s, const tine_kdecl *f, const char *name) {
    if (is_coord(f, name) || tine_kloops_find(f, name) >= 0) {
        kerr(ctx, s, "%s: '%s' already names a %s of '%s'; the new loop needs a name of its own", s->what, name,
             is_coord(f, name) ? "coordinate" : "loop", f->name);
        return false;
    }
    return true;
}

static bool plain(tine_ctx_t *ctx, const tine_kdirective *s, const tine_kdecl *f, const tine_kloop *l) {
    if (l->kind != TINE_KLOOP_WHOLE) {
        kerr(ctx, s, "%s: %s.%s is %s; only a whole coordinate's loop can be %s so far", s->what, f->name, l->name,
             l->kind == TINE_KLOOP_FUSED ? "a fused loop" : "part of a split",
             s->kind == TINE_DIR_FUSE ? "fused" : s->kind == TINE_DIR_TILE ? "tiled" : "split");
        return false;
    }
    if (l->unroll > 1 || l->partition || l->parallel) {
        kerr(ctx, s, "%s: %s.%s is already %s; %s it before giving it other directives", s->what, f->name, l->name,
             l->parallel ? "parallel" : l->unroll > 1 ? "unrolled" : "given a partition mode", s->what);
        return false;
    }
    return true;
}

static bool split(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f) {
    int i = loop_of(ctx, s, f, s->dim);
    if (i < 0 || !plain(ctx, s, f, &f->loops[i]) || !fresh_name(ctx, s, f, s->name) || !fresh_name(ctx, s, f, s->name2))
        return false;
    if (!strcmp(s->name, s->name2)) {
        kerr(ctx, s, "split: the outer and inner loops need different names, not '%s' twice", s->name);
        return false;
    }
    if (f->nloops == TINE_KLOOPS_MAX) {
        kerr(ctx, s, "split: a function has at most %d loops", TINE_KLOOPS_MAX);
        return false;
    }
    int d = f->loops[i].dim;
    memmove(&f->loops[i + 1], &f->loops[i], sizeof *f->loops * (size_t)(f->nloops - i));
    f->nloops++;
    f->loops[i] = (tine_kloop){.name = s->name, .kind = TINE_KLOOP_OUTER, .dim = d, .factor = s->n};
    f->loops[i + 1] = (tine_kloop){.name = s->name2, .kind = TINE_KLOOP_INNER, .dim = d, .factor = s->n};
    return true;
}

static bool fuse(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f) {
    int i = loop_of(ctx, s, f, s->dim);
    if (i < 0) return false;
    int o = loop_of(ctx, s, f, s->dim2);
    if (o < 0 || !plain(ctx, s, f, &f->loops[i]) || !plain(ctx, s, f, &f->loops[o]) || !fresh_name(ctx, s, f, s->name))
        return false;
    for (int j = 0; j < 2; j++) {
        const tine_kloop *l = &f->loops[j ? o : i];
        if (l->dim == 0) {
            kerr(ctx, s, "fuse: %s.%s is the vectorized loop (the first coordinate); fuse loops of other coordinates",
                 f->name, l->name);
            return false;
        }
    }
    if (o != i - 1) {
        kerr(ctx, s, "fuse: %s.%s is not the loop just outside %s.%s (%s); fuse adjacent loops, the inner one first", f->name,
             s->dim2, f->name, s->dim, o == i ? "it is the same loop" : o > i ? "it is inside it" : "others are between them");
        return false;
    }
    f->loops[o] = (tine_kloop){.name = s->name, .kind = TINE_KLOOP_FUSED, .dim = f->loops[i].dim, .dim2 = f->loops[o].dim};
    memmove(&f->loops[i], &f->loops[i + 1], sizeof *f->loops * (size_t)(f->nloops - i - 1));
    f->nloops--;
    return true;
}

static bool reorder(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f) {
    int at[TINE_KLOOPS_MAX], pos[TINE_KLOOPS_MAX];
    for (int j = 0; j < s->ndims; j++) {
        if ((at[j] = loop_of(ctx, s, f, s->dims[j])) < 0) return false;
        for (int m = 0; m < j; m++)
            if (at[m] == at[j]) {
                kerr(ctx, s, "reorder: %s.%s is named twice", f->name, s->dims[j]);
                return false;
            }
        pos[j] = at[j];
    }
    /* the places the loops held, outermost first; the last named takes the outermost */
    for (int j = 1; j < s->ndims; j++)
        for (int m = j; m > 0 && pos[m - 1] > pos[m]; m--) {
            int t = pos[m];
            pos[m] = pos[m - 1];
            pos[m - 1] = t;
        }
    tine_kloop old[TINE_KLOOPS_MAX];
    memcpy(old, f->loops, sizeof old);
    for (int j = 0; j < s->ndims; j++) f->loops[pos[s->ndims - 1 - j]] = old[at[j]];
    for (int j = 0; j < f->nloops; j++) {
        const tine_kloop *l = &f->loops[j];
        if (l->parallel && j) {
            kerr(ctx, s, "reorder: %s.%s is parallel, so it stays the outermost loop", f->name, l->name);
            return false;
        }
        for (int m = 0; l->kind == TINE_KLOOP_INNER && m < f->nloops; m++)
            if (f->loops[m].kind == TINE_KLOOP_OUTER && f->loops[m].dim == l->dim && m > j) {
                kerr(ctx, s, "reorder: %s.%s would be outside %s.%s; a split's inner loop stays inside its outer loop",
                     f->name, l->name, f->name, f->loops[m].name);
                return false;
            }
    }
    return true;
}

/* tile f a b W H of any two coordinates (or of a reshaped f): Halide's tile, split a by W
 * and b by H, then the inner loops inside the outer ones (reorder f.ai f.bi f.ao f.bo);
 * the loops are named a's and b's names with o and i appended. */
bool tine_kloops_tile(tine_ctx_t *ctx, tine_arena *arena, const tine_kdirective *s, tine_kdecl *f) {
    if (!strcmp(s->dim, s->dim2)) {
        kerr(ctx, s, "tile: %s.%s is named twice; a tile has two different loops", f->name, s->dim);
        return false;
    }
    const char *names[4]; /* ao, ai, bo, bi */
    for (int j = 0; j < 4; j++) {
        const char *c = j < 2 ? s->dim : s->dim2;
        char *n = tine_arena_alloc(arena, strlen(c) + 2);
        sprintf(n, "%s%c", c, j % 2 ? 'i' : 'o');
        names[j] = n;
    }
    if (!start(ctx, s, f)) return false;
    tine_kdirective d = *s;
    for (int j = 0; j < 2; j++) {
        d.dim = j ? s->dim2 : s->dim;
        d.name = names[2 * j];
        d.name2 = names[2 * j + 1];
        d.n = j ? s->n2 : s->n;
        if (!split(ctx, &d, f)) return false;
    }
    const char *order[4] = {names[1], names[3], names[0], names[2]};
    d.dims = order;
    d.ndims = 4;
    return reorder(ctx, &d, f);
}

bool tine_kloops_directive(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f) {
    if (!start(ctx, s, f)) return false;
    if (s->kind == TINE_DIR_SPLIT) return split(ctx, s, f);
    if (s->kind == TINE_DIR_FUSE) return fuse(ctx, s, f);
    return reorder(ctx, s, f);
}

/* vectorize, unroll, partition or parallel of a loop of a reshaped f (*handled false: a
 * vectorize naming no loop, a reduction's variable, for the caller). */
bool tine_kloops_apply(tine_ctx_t *ctx, const tine_kdirective *s, tine_kdecl *f, bool *handled) {
    *handled = true;
    bool vec = s->kind == TINE_DIR_VECTORIZE;
    if (vec && tine_kloops_find(f, s->dim) < 0 && !is_coord(f, s->dim)) {
        *handled = false;
        return true;
    }
    int i = loop_of(ctx, s, f, s->dim);
    if (i < 0) return false;
    tine_kloop *l = &f->loops[i];
    if (vec) {
        if (!tine_kloops_is_vector(l)) {
            if (l->dim == 0)
                kerr(ctx, s, "vectorize: %s.%s walks blocks of the first coordinate; vectorize the split's inner loop",
                     f->name, l->name);
            else
                kerr(ctx, s, "only the first coordinate of a function (%s.%s), or the inner loop of its split, can be "
                     "vectorized so far", f->name, f->args[0]);
            return false;
        }
        if (s->n && (s->n & (s->n - 1))) {
            kerr(ctx, s, "the vector width must be a power of two, not %d", s->n);
            return false;
        }
        if (f->lanes_by) return tine_kdirective_again(ctx, s, f->lanes_by, "'%s' is already given its vector width", f->name);
        f->lanes = s->n;
        f->lanes_by = s;
    } else if (s->kind == TINE_DIR_UNROLL) {
        if (l->unroll_by) return tine_kdirective_again(ctx, s, l->unroll_by, "%s.%s is already unrolled", f->name, l->name);
        l->unroll = s->n;
        l->unroll_by = s;
    } else if (s->kind == TINE_DIR_PARTITION) {
        if (l->partition_by)
            return tine_kdirective_again(ctx, s, l->partition_by, "%s.%s is already given a partition mode", f->name, l->name);
        l->partition = 1 + s->n;
        l->partition_by = s;
    } else if (s->kind == TINE_DIR_PARALLEL) {
        /* its iterations write disjoint parts of the buffer; a vector loop's last vector
           shifts back into its neighbour's, so it is not one (but the one of a whole
           one-dimensional stage, run in blocks) */
        if (i) {
            kerr(ctx, s, "parallel: %s.%s is not the outermost loop of '%s' (%s.%s is)", f->name, l->name, f->name,
                 f->name, f->loops[0].name);
            return false;
        }
        if (tine_kloops_is_vector(l) && !(l->kind == TINE_KLOOP_WHOLE && f->nloops == 1)) {
            kerr(ctx, s, "parallel: %s.%s is the vectorized loop; split it and run the outer loop in parallel", f->name,
                 l->name);
            return false;
        }
        if (l->parallel_by) return tine_kdirective_again(ctx, s, l->parallel_by, "%s.%s is already parallel", f->name, l->name);
        l->parallel = true;
        l->parallel_by = s;
    } else {
        kerr(ctx, s, "%s: '%s' has its loops split, fused or reordered; %s does not apply to them so far", s->what, f->name,
             s->what);
        return false;
    }
    return true;
}
