/* kernel_unrolled.c — what the schedule multiplies: the code each stage is copied into by
 * the unrolls of its own loops and of the loops it is computed at, against the limit on
 * a stage's operations once unrolled (TINE_KLIMIT_UNROLLED). */
#include "front.h"
#include "kernel.h"

/* The unroll directives a stage's code is copied by, and the product of their factors
 * (saturated: 64^8 per stage along a chain of 17 would not fit). */
typedef struct {
    const tine_kdirective *by[TINE_KLOOPS_MAX * TINE_KERNEL_MAX_STAGES];
    int n;
    int64_t times;
} unrolls;

static void add_unroll(unrolls *u, int factor, const tine_kdirective *by) {
    if (factor <= 1) return;
    TINE_ASSERT(by != NULL && u->n < (int)(sizeof u->by / sizeof *u->by));
    u->by[u->n++] = by;
    u->times = u->times > ((int64_t)1 << 40) ? u->times : u->times * factor;
}

/* The unrolls of stage s's own loops (a loop reduction's points jammed are copies too). */
static void own_unrolls(const tine_kernel_t *kn, int s, unrolls *u) {
    const tine_stage *st = &kn->stages[s];
    for (int j = 0; st->reshaped && j < st->nloops; j++) add_unroll(u, st->loops[j].unroll, st->loops[j].unroll_by);
    for (int d = 0; !st->reshaped && d < st->dims; d++) /* coordinate by coordinate, the first first */
        add_unroll(u, tine_stage_loop(st, d)->unroll, tine_stage_loop(st, d)->unroll_by);
}

/* The unrolls around stage s's nest: none at the root; for a stage computed at stage g's
 * loop, those of g's loops at and outside it (stmt/build.c builds s's nest in every
 * unrolled copy of them) and those around g's own nest. */
static void enclosing_unrolls(const tine_kernel_t *kn, int s, unrolls *u) {
    const tine_stage *st = &kn->stages[s];
    if (!st->fold) return;
    const tine_stage *g = &kn->stages[st->at];
    enclosing_unrolls(kn, st->at, u);
    const char *at = kn->ast.sched[kn->sdecl[s]->at_sched - 1].dim;
    for (int j = 0; j < g->nloops; j++) { /* g's loops from the outermost to the one s is at */
        add_unroll(u, g->loops[j].unroll, g->loops[j].unroll_by);
        if (!strcmp(g->loops[j].name, at)) break;
    }
}

static int by_place(const void *a, const void *b) {
    const tine_kdirective *x = *(const tine_kdirective *const *)a, *y = *(const tine_kdirective *const *)b;
    return x->line != y->line ? (x->line > y->line) - (x->line < y->line) : (x->col > y->col) - (x->col < y->col);
}

/* The code the schedule makes of each stage: the operations of its body (as the limit on
 * one body counts them, TINE_KLIMIT_NODES) times the unrolls it is copied by, at most
 * TINE_KLIMIT_UNROLLED = 2 * TINE_KLIMIT_NODES, so that the automatic scheduler's
 * schedules always fit (it unrolls by 2 rows at most, and never a stage computed at
 * another's loop, so nothing is copied more than twice). Known before any
 * statement is built: a schedule that would take minutes to compile is refused at once.
 * The error is at the last of the unrolls and names them all. */
bool tine_front_unrolled_limit(tine_kernel_t *kn) {
    tine_ctx_t *ctx = kn->ctx;
    for (int s = 0; s < kn->nstages; s++) {
        const tine_stage *st = &kn->stages[s];
        unrolls u = {.times = 1};
        enclosing_unrolls(kn, s, &u);
        own_unrolls(kn, s, &u);
        if (u.n == 0) continue; /* not multiplied: the limit on a body's operations is the one */
        uint32_t n;
        free(tine_topo(ctx, st->body, &n));
        int64_t ops = n;
        if (ops * u.times <= TINE_KLIMIT_UNROLLED) continue;
        qsort(u.by, (size_t)u.n, sizeof *u.by, by_place);
        tine_buf b = {0};
        for (int i = 0; i < u.n; i++) {
            if (i) tine_buf_puts(&b, " x ");
            tine_directive_print(u.by[i], &b);
            tine_buf_printf(&b, " at %d:%d", u.by[i]->line, u.by[i]->col);
        }
        const tine_kdirective *at = u.by[u.n - 1];
        tine_diag(ctx, at->src, at->line, at->col,
                  "%s: the schedule makes stage '%s' %lld operations, %lld copied %lld times (%s); at most %d once "
                  "unrolled (unroll less, or materialize some of the functions it calls)", at->what, st->name,
                  (long long)(ops * u.times), (long long)ops, (long long)u.times, b.p, TINE_KLIMIT_UNROLLED);
        tine_error_set_kind(ctx, TINE_ERROR_LIMIT);
        free(b.p);
        return false;
    }
    return true;
}
