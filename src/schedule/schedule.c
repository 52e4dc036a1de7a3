/* schedule.c — tine_sched_run: a method's candidate orders, measured, the best kept.
 *
 * No scheduler here is optimal for max live on every DAG (the problem is NP-hard), and
 * the local moves can lengthen a live range as well as shorten one; so a method is a set
 * of candidate orders and the input order is always one of them. That is what makes the
 * guarantee hold: the order returned never keeps more values live than the input did.
 * Measuring a candidate is linear, far cheaper than making it.
 */
#include "live.h"

#include "../internal.h"

const char *tine_sched_from_name(tine_sched_from f) {
    switch (f) {
    case TINE_SCHED_FROM_INPUT: return "input";
    case TINE_SCHED_FROM_INPUT_MOVES: return "input+moves";
    case TINE_SCHED_FROM_FFTW: return "fftw";
    case TINE_SCHED_FROM_FFTW_MOVES: return "fftw+moves";
    case TINE_SCHED_FROM_LIST: return "list";
    case TINE_SCHED_FROM_LIST_MOVES: return "list+moves";
    }
    return "?";
}

enum { MAX_CANDIDATES = 6 };
/* Ties of max live go to the fewer spills with this many registers: x86's vector
 * registers before AVX-512, half of AArch64's. */
enum { TIE_REGS = 16 };

typedef struct {
    tine_sched_from from;
    int *order;
    int live, spills;
    long long lifetime;
} candidate;

/* a is better than b */
static bool better(const candidate *a, const candidate *b) {
    if (a->live != b->live) return a->live < b->live;
    if (a->spills != b->spills) return a->spills < b->spills;
    return a->lifetime < b->lifetime;
}

static candidate *add(candidate *cs, int *k, tine_sched_from from, int n) {
    candidate *c = &cs[(*k)++];
    c->from = from;
    c->order = tine_xmalloc(sizeof(int) * ((size_t)n + 1));
    return c;
}

int tine_sched_run(const tine_sched_dag *d, tine_sched_method m, const int *in_order, int *order,
                   tine_sched_stats *st) {
    double t0 = tine_now();
    if (!tine_sched_dag_ok(d) || (in_order && !tine_sched_is_topo(d, in_order))) return -1;
    int n = d->n;
    /* Candidates in the order that wins ties: a scheduler's before the input's. */
    candidate cs[MAX_CANDIDATES];
    int k = 0;
    bool fftw = m == TINE_SCHED_FFTW || m == TINE_SCHED_AUTO;
    bool list = m == TINE_SCHED_LIST || m == TINE_SCHED_AUTO;
    bool moves_alone = m == TINE_SCHED_AUTO;
    if (fftw) {
        candidate *a = add(cs, &k, TINE_SCHED_FROM_FFTW_MOVES, n), *b = add(cs, &k, TINE_SCHED_FROM_FFTW, n);
        tine_sched_fftw(d, b->order);
        memcpy(a->order, b->order, sizeof(int) * (size_t)n);
        tine_sched_local_moves(d, a->order);
    }
    if (list) {
        candidate *a = add(cs, &k, TINE_SCHED_FROM_LIST_MOVES, n), *b = add(cs, &k, TINE_SCHED_FROM_LIST, n);
        tine_sched_list(d, b->order);
        memcpy(a->order, b->order, sizeof(int) * (size_t)n);
        tine_sched_local_moves(d, a->order);
    }
    candidate *moved = moves_alone ? add(cs, &k, TINE_SCHED_FROM_INPUT_MOVES, n) : NULL;
    candidate *input = add(cs, &k, TINE_SCHED_FROM_INPUT, n);
    if (in_order) {
        memcpy(input->order, in_order, sizeof(int) * (size_t)n);
    } else {
        for (int v = 0; v < n; v++) input->order[v] = v;
        if (!tine_sched_is_topo(d, input->order)) TINE_ASSERT(tine_sched_kahn(d, input->order));
    }
    if (moved) {
        memcpy(moved->order, input->order, sizeof(int) * (size_t)n);
        tine_sched_local_moves(d, moved->order);
    }
    int best = 0;
    for (int i = 0; i < k; i++) {
        TINE_ASSERT(tine_sched_is_topo(d, cs[i].order));
        cs[i].live = tine_sched_max_live(d, cs[i].order);
        cs[i].lifetime = tine_sched_lifetime(d, cs[i].order);
        /* -1 (an instruction wider than TIE_REGS) compares as the most */
        int sp = tine_sched_spills(d, cs[i].order, TIE_REGS);
        cs[i].spills = sp < 0 ? INT32_MAX : sp;
        if (better(&cs[i], &cs[best])) best = i;
    }
    memcpy(order, cs[best].order, sizeof(int) * (size_t)n);
    if (st) {
        st->live_before = input->live;
        st->lifetime_before = input->lifetime;
        st->live_after = cs[best].live;
        st->lifetime_after = cs[best].lifetime;
        st->spills_before = input->spills == INT32_MAX ? -1 : input->spills;
        st->spills_after = cs[best].spills == INT32_MAX ? -1 : cs[best].spills;
        st->from = cs[best].from;
        st->tried = k;
    }
    int live = cs[best].live;
    for (int i = 0; i < k; i++) free(cs[i].order);
    if (st) st->seconds = tine_now() - t0;
    return live;
}
