/* moves.c — FFTW-GEL's local moves (Kral's thesis, §4.2.1): small reorderings of a
 * schedule that shorten live ranges where FFTW's scheduler, made for scalar code, leaves
 * SIMD code's loads, stores and shuffles (unary instructions) too early or too late.
 *
 * To move an instruction up is to move it toward the top of the program until it shares
 * an operand with the instruction just above it; to move it down, until it shares one
 * with the instruction just below. Two instructions share an operand here when one
 * defines an operand of the other or both read one value (CONST operands are no
 * registers and do not count), so an instruction never passes one it depends on or one
 * that depends on it: the order stays topological. In turn, over the whole program,
 *   (i)   loads move down (to just above their first reader),
 *   (ii)  stores move up (to just below where their operand is defined or last read),
 *   (iii) unary instructions whose operand no later instruction reads move up,
 *   (iv)  the other unary instructions move down,
 *   (v)   binary instructions move up when no later instruction reads either operand.
 * An instruction is unary or binary by its distinct register operands. Each step visits
 * the instructions in the order they had when it began, top first, and decides on each
 * (the "no later reader" conditions) as the program stands when it is reached.
 *
 * A move shifts the instructions it passes, so a step can cost the product of the
 * program's length and the distance moved. Each move stops after MOVE_LIMIT positions,
 * which bounds a step to O(MOVE_LIMIT * (n + e)): in the schedules the moves polish an
 * instruction's neighbours are close, and only a poor input order (all loads first)
 * asks for longer moves, which then go MOVE_LIMIT of the way.
 */
#include "live.h"

#include "../internal.h"

enum { MOVE_LIMIT = 1024 };

typedef struct {
    tine_sched_graph g;
    int *ord, len;   /* the instructions after the CONST nodes */
    int *pos;        /* per node, its index in ord */
    int *opmark, stamp;
    int *snap;
} moves_ctx;

static int nregops(const moves_ctx *c, int v) { return c->g.op_start[v + 1] - c->g.op_start[v]; }

/* Marks x's operands, for related(). */
static void mark_ops(moves_ctx *c, int x) {
    c->stamp++;
    for (int j = c->g.op_start[x]; j < c->g.op_start[x + 1]; j++) c->opmark[c->g.ops[j]] = c->stamp;
}

/* Whether y shares an operand with x (marked by mark_ops). */
static bool related(const moves_ctx *c, int x, int y) {
    if (c->opmark[y] == c->stamp) return true;
    for (int j = c->g.op_start[y]; j < c->g.op_start[y + 1]; j++) {
        int o = c->g.ops[j];
        if (o == x || c->opmark[o] == c->stamp) return true;
    }
    return false;
}

/* Whether an instruction after position p reads the value v. The readers are listed in
 * node order, which is mostly program order: the last ones answer yes soonest. */
static bool read_after(const moves_ctx *c, int v, int p) {
    for (int k = c->g.use_start[v + 1] - 1; k >= c->g.use_start[v]; k--)
        if (c->pos[c->g.uses[k]] > p) return true;
    return false;
}

static void move_up(moves_ctx *c, int x) {
    mark_ops(c, x);
    int i = c->pos[x], j = i;
    while (j > 0 && i - j < MOVE_LIMIT && !related(c, x, c->ord[j - 1])) j--;
    for (int k = i; k > j; k--) {
        c->ord[k] = c->ord[k - 1];
        c->pos[c->ord[k]] = k;
    }
    c->ord[j] = x;
    c->pos[x] = j;
}

static void move_down(moves_ctx *c, int x) {
    mark_ops(c, x);
    int i = c->pos[x], j = i;
    while (j + 1 < c->len && j - i < MOVE_LIMIT && !related(c, x, c->ord[j + 1])) j++;
    for (int k = i; k < j; k++) {
        c->ord[k] = c->ord[k + 1];
        c->pos[c->ord[k]] = k;
    }
    c->ord[j] = x;
    c->pos[x] = j;
}

enum { LOADS_DOWN, STORES_UP, DYING_UNARY_UP, OTHER_UNARY_DOWN, DYING_BINARY_UP };

/* Whether step s moves instruction x, and up (1) or down (-1); 0 for neither. */
static int direction(const moves_ctx *c, int s, int x) {
    uint8_t k = c->g.kind[x];
    int nops = nregops(c, x), p = c->pos[x];
    const int *ops = c->g.ops + c->g.op_start[x];
    switch (s) {
    case LOADS_DOWN: return k == TINE_SCHED_LOAD ? -1 : 0;
    case STORES_UP: return k == TINE_SCHED_STORE ? 1 : 0;
    case DYING_UNARY_UP: return k == TINE_SCHED_OP && nops == 1 && !read_after(c, ops[0], p) ? 1 : 0;
    case OTHER_UNARY_DOWN: return k == TINE_SCHED_OP && nops == 1 && read_after(c, ops[0], p) ? -1 : 0;
    case DYING_BINARY_UP:
        return k == TINE_SCHED_OP && nops == 2 && !read_after(c, ops[0], p) && !read_after(c, ops[1], p) ? 1 : 0;
    }
    return 0;
}

void tine_sched_local_moves(const tine_sched_dag *d, int *order) {
    TINE_ASSERT(tine_sched_is_topo(d, order));
    int n = d->n;
    int nconst = tine_sched_consts_first(d, order);
    moves_ctx c = {.ord = order + nconst, .len = n - nconst};
    if (c.len <= 1) return;
    tine_sched_graph_build(d, &c.g);
    size_t sn = (size_t)n + 1;
    c.pos = tine_xmalloc(sizeof(int) * sn);
    c.opmark = tine_xcalloc(sn, sizeof(int));
    c.snap = tine_xmalloc(sizeof(int) * sn);
    for (int v = 0; v < n; v++) c.pos[v] = -1;
    for (int i = 0; i < c.len; i++) c.pos[c.ord[i]] = i;
    for (int s = LOADS_DOWN; s <= DYING_BINARY_UP; s++) {
        memcpy(c.snap, c.ord, sizeof(int) * (size_t)c.len);
        for (int i = 0; i < c.len; i++) {
            int x = c.snap[i], dir = direction(&c, s, x);
            if (dir > 0) move_up(&c, x);
            else if (dir < 0) move_down(&c, x);
        }
    }
    tine_sched_graph_free(&c.g);
    free(c.pos);
    free(c.opmark);
    free(c.snap);
}
