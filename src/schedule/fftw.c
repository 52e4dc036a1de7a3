/* fftw.c — FFTW's scheduler (Frigo, "A fast Fourier transform compiler", PLDI'99 §6;
 * genfft's schedule.ml and annotate.ml), on any DAG.
 *
 * The DAG is scheduled by recursive decomposition. A connected set of nodes is cut in
 * two: the top half grows down from the set's sources and the bottom half up from its
 * sinks, one layer at a time each in turn (a node joins the top when all its operands
 * are in it, the bottom when all its users are), until every node is in one; the top
 * runs first. A set that is not connected is cut into its connected components, the
 * parallel blocks, whose relative order is free. Recursion ends at single nodes. On a
 * 2^k-point FFT the first cut separates the first k/2 stages from the last, and the
 * halves fall into independent sub-transforms of sqrt(N) points, recursively: the
 * cache-oblivious order that makes the spills asymptotically optimal for any number of
 * registers (Hong and Kung's bound), without knowing it.
 *
 * The parallel blocks are then ordered as annotate.ml's linearize does: the smallest
 * block (fewest variables: the values it defines or reads) first, then each next block
 * the one sharing the most variables with the block placed just before it (fewest
 * variables on a tie, then the block found first); the ordered list is halved and each
 * half ordered again the same way, recursively. Blocks that read the same values thus
 * run one after another, and the values die sooner.
 *
 * Where this differs from genfft. Nodes are not assignments but a kind and operands:
 * CONST nodes (genfft's inlined constants) take no part and go first. LOAD nodes are
 * genfft's "special inputs" (its locations_are_special): a load joins the top half when
 * a top node reads it, else the bottom with its readers, instead of sitting at the top of
 * every set it is in. STORE nodes are their mirror image, which genfft does not have: a
 * store joins the top half as soon as its operands are all there. An FFT's stores all
 * read its last stage and stay at the bottom as in genfft, but a DAG that stores values
 * along the way would otherwise keep each one live to the end of its set. A load that
 * many instructions read does not make them one block (broadcast_load). genfft's sort of
 * the blocks leaves ties to its merge sort; here the earlier block wins. The real and
 * imaginary parts of one number are not related variables (genfft's same_class): the
 * DAG has no such notion.
 *
 * Cost. A set's cut and its components are linear in the set's nodes and edges, and
 * every level of the recursion holds each node once. The cut keeps an instruction in
 * the top half when its depth (longest path from a source) is at most its height
 * (longest path to a sink), so both halves have about half the longest path: the
 * levels are O(log n) (a 100k-node chain is some 20 cuts deep). The recursion runs on
 * an explicit stack anyway, over ranges of the order being built: every set is a range
 * of it, cut in place into sub-ranges, so the final order is that array. Ordering k
 * blocks counts shared variables through an index from variables to blocks; a variable
 * read by more than SHARE_LIMIT blocks is left out of the counts (it would add to every
 * candidate alike while costing k per step), which bounds a round to
 * O(SHARE_LIMIT * edges).
 */
#include "live.h"

#include "../internal.h"

enum { BLACK, RED, BLUE, YELLOW, GREEN };
enum { SHARE_LIMIT = 256, BROADCAST_READERS = 8 };

typedef struct {
    int lo, len;
    bool connected;
} item;

/* The nodes ready to join a half at its next layer (now), and those its current layer
 * makes ready (next). */
typedef struct {
    int *now, *next, n;
} frontier;

typedef struct {
    tine_sched_graph g;
    int *perm;            /* the order being built; every pending set is a range of it */
    int *in, stamp;       /* in[v] == stamp: v is in the set being cut */
    uint8_t *color;
    int *wait_top, *wait_bottom; /* operands not yet top / users not yet bottom, in the set */
    int *comp, *tmp, *queue;
    frontier top, bottom;
    item *stack;
    size_t nstack, capstack;
    /* parallel blocks: per block its range of perm and its variables */
    int *blk_lo, *blk_len, *var_start, *vars, *seq, *seq_tmp;
    int *blk_extra, *blk_at, npending; /* the broadcast loads each block takes, and where */
    size_t capblk, capvars;
    int *var_mark, mark;  /* per node, the last block that listed it */
    int *var_local;       /* per node, its index among the variables of one ordering, or -1 */
} fftw_ctx;

static void push(fftw_ctx *c, int lo, int len, bool connected) {
    if (len <= 1) return;
    item it = {lo, len, connected};
    TINE_PUSH(c->stack, c->nstack, c->capstack, it);
}

static bool member(const fftw_ctx *c, int v) { return c->in[v] == c->stamp; }

/* ---- the cut of a connected set -------------------------------------------------- */

/* The colors of genfft's partition: BLACK undecided, RED top, BLUE bottom; YELLOW a
 * special load, top for its readers' sake but free to join either half, GREEN a special
 * store, the mirror image: bottom for its operands' sake but free to join the top. */
static bool top_for_readers(uint8_t k) { return k == RED || k == YELLOW; }
static bool may_join_top(uint8_t k) { return k == BLACK || k == GREEN; }
static bool bottom_for_operands(uint8_t k) { return k == BLUE || k == GREEN; }
static bool may_join_bottom(uint8_t k) { return k == BLACK || k == YELLOW; }

/* The next layer's nodes become the ones ready now. */
static void advance(frontier *f, int nnext) {
    int *t = f->now;
    f->now = f->next;
    f->next = t;
    f->n = nnext;
}

/* One layer grown on the top: every node whose operands were all top when the layer
 * began (its special loads join it). The nodes this layer makes ready wait for the next
 * one. Returns how many nodes joined. */
static int grow_top(fftw_ctx *c) {
    const tine_sched_graph *g = &c->g;
    int joined = 0, nnext = 0;
    for (int i = 0; i < c->top.n; i++) {
        int v = c->top.now[i];
        if (!may_join_top(c->color[v])) continue;
        c->color[v] = RED;
        joined++;
        for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) {
            int o = g->ops[j];
            if (member(c, o) && c->color[o] == YELLOW) c->color[o] = RED;
        }
        for (int j = g->use_start[v]; j < g->use_start[v + 1]; j++) {
            int w = g->uses[j];
            if (member(c, w) && --c->wait_top[w] == 0 && may_join_top(c->color[w])) c->top.next[nnext++] = w;
        }
    }
    advance(&c->top, nnext);
    return joined;
}

/* One layer grown on the bottom: every node (not top) whose users were all bottom. */
static int grow_bottom(fftw_ctx *c) {
    const tine_sched_graph *g = &c->g;
    int joined = 0, nnext = 0;
    for (int i = 0; i < c->bottom.n; i++) {
        int v = c->bottom.now[i];
        if (!may_join_bottom(c->color[v])) continue;
        c->color[v] = BLUE;
        joined++;
        /* A special store reading v can no longer join the top. */
        for (int j = g->use_start[v]; j < g->use_start[v + 1]; j++)
            if (member(c, g->uses[j]) && c->color[g->uses[j]] == GREEN) c->color[g->uses[j]] = BLUE;
        for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) {
            int o = g->ops[j];
            if (member(c, o) && --c->wait_bottom[o] == 0 && may_join_bottom(c->color[o])) c->bottom.next[nnext++] = o;
        }
    }
    advance(&c->bottom, nnext);
    return joined;
}

/* The set's nodes with no operand (dir < 0) or no reader (dir > 0) in the set turned
 * to color k; how many. */
static int recolor_ends(fftw_ctx *c, const int *p, int len, int dir, uint8_t k) {
    const tine_sched_graph *g = &c->g;
    int count = 0;
    for (int i = 0; i < len; i++) {
        int v = p[i], a = dir < 0 ? g->op_start[v] : g->use_start[v], z = dir < 0 ? g->op_start[v + 1] : g->use_start[v + 1];
        const int *e = dir < 0 ? g->ops : g->uses;
        bool end = true;
        for (int j = a; j < z && end; j++) end = !member(c, e[j]);
        if (end) c->color[v] = k, count++;
    }
    return count;
}

/* Cuts the connected set perm[lo, lo + len) into its top half and bottom half, in
 * place, each keeping its nodes' order; returns the top's size. */
static int cut(fftw_ctx *c, int lo, int len) {
    const tine_sched_graph *g = &c->g;
    int *p = c->perm + lo;
    for (int i = 0; i < len; i++) {
        int v = p[i], nin = 0, nout = 0;
        for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) nin += member(c, g->ops[j]);
        for (int j = g->use_start[v]; j < g->use_start[v + 1]; j++) nout += member(c, g->uses[j]);
        TINE_ASSERT(nin + nout > 0);
        /* in genfft's order: sources top, special loads yellow, sinks bottom */
        c->color[v] = BLACK;
        if (nin == 0) c->color[v] = RED;
        if (g->kind[v] == TINE_SCHED_LOAD) c->color[v] = YELLOW;
        if (nout == 0) c->color[v] = g->kind[v] == TINE_SCHED_STORE ? GREEN : BLUE;
        c->wait_top[v] = nin;
        c->wait_bottom[v] = nout;
    }
    for (int i = 0; i < len; i++) {
        int v = p[i];
        if (top_for_readers(c->color[v]))
            for (int j = g->use_start[v]; j < g->use_start[v + 1]; j++)
                if (member(c, g->uses[j])) c->wait_top[g->uses[j]]--;
        if (bottom_for_operands(c->color[v]))
            for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++)
                if (member(c, g->ops[j])) c->wait_bottom[g->ops[j]]--;
    }
    c->top.n = c->bottom.n = 0;
    for (int i = 0; i < len; i++) {
        int v = p[i];
        if (may_join_top(c->color[v]) && c->wait_top[v] == 0) c->top.now[c->top.n++] = v;
        if (may_join_bottom(c->color[v]) && c->wait_bottom[v] == 0) c->bottom.now[c->bottom.n++] = v;
    }
    /* A layer on the top, one on the bottom, ... until neither grows. */
    for (;;) {
        int a = grow_top(c);
        int b = grow_bottom(c);
        if (a == 0 && b == 0) break;
    }
    int nred = 0;
    for (int i = 0; i < len; i++) {
        int v = p[i];
        if (c->color[v] == GREEN) c->color[v] = BLUE;
        TINE_ASSERT(c->color[v] == RED || c->color[v] == BLUE);
        nred += c->color[v] == RED;
    }
    /* When the special nodes all went one way, genfft's fix: the sources top (the loads
     * went down with their readers), and here also the sinks bottom (the stores went up
     * with their operands). Either keeps the halves closed: the top under operands, the
     * bottom under readers. */
    if (nred == 0) nred = recolor_ends(c, p, len, -1, RED);
    if (nred == len) nred -= recolor_ends(c, p, len, 1, BLUE);
    int k = 0, m = 0;
    for (int i = 0; i < len; i++) {
        if (c->color[p[i]] == RED) p[k++] = p[i];
        else c->tmp[m++] = p[i];
    }
    memcpy(p + k, c->tmp, sizeof(int) * (size_t)m);
    TINE_ASSERT(k == nred && k > 0 && k < len);
    return k;
}

/* ---- parallel blocks ---------------------------------------------------------------- */

/* Room for nblk blocks in the block arrays. */
static void grow_blocks(fftw_ctx *c, int nblk) {
    size_t need = (size_t)nblk + 1;
    if (need <= c->capblk) return;
    size_t cap = tine_grow_cap(c->capblk, need);
    c->blk_lo = tine_xrealloc_array(c->blk_lo, cap, sizeof(int));
    c->blk_len = tine_xrealloc_array(c->blk_len, cap, sizeof(int));
    c->var_start = tine_xrealloc_array(c->var_start, cap, sizeof(int));
    c->seq = tine_xrealloc_array(c->seq, cap, sizeof(int));
    c->seq_tmp = tine_xrealloc_array(c->seq_tmp, cap, sizeof(int));
    c->blk_extra = tine_xrealloc_array(c->blk_extra, cap, sizeof(int));
    c->blk_at = tine_xrealloc_array(c->blk_at, cap, sizeof(int));
    c->capblk = cap;
}

/* Whether v is a load that more than BROADCAST_READERS instructions of the set read (a
 * broadcast value, a coefficient). Such a load does not join its readers into one
 * block: the blocks keep their own orders, the ordering of the blocks puts those that
 * read the load one after another (it is a variable they share), and the load goes with
 * the first of them. A load with few readers does join them, as in genfft: the two
 * readers of an FFT's input are the halves of one butterfly, and apart they would keep
 * the input live from one half of the transform to the other. */
static bool broadcast_load(const fftw_ctx *c, int v) {
    const tine_sched_graph *g = &c->g;
    if (g->kind[v] != TINE_SCHED_LOAD) return false;
    int readers = 0;
    for (int j = g->use_start[v]; j < g->use_start[v + 1]; j++) readers += member(c, g->uses[j]);
    return readers > BROADCAST_READERS;
}

/* The connected components of perm[lo, lo + len) without its broadcast loads, numbered
 * in the order of their first source (genfft's: a breadth-first search from the first
 * input left, repeatedly). When there are several, the range is regrouped by component,
 * each keeping its nodes' order, and the broadcast loads (npending of them) put last.
 * Returns how many. */
static int components(fftw_ctx *c, int lo, int len) {
    const tine_sched_graph *g = &c->g;
    int *p = c->perm + lo, ncomp = 0;
    enum { UNSEEN = -1, BROADCAST = -2 };
    for (int i = 0; i < len; i++) c->comp[p[i]] = broadcast_load(c, p[i]) ? BROADCAST : UNSEEN;
    for (int i = 0; i < len; i++) {
        int s = p[i];
        if (c->comp[s] != UNSEEN) continue;
        bool source = true;
        for (int j = g->op_start[s]; j < g->op_start[s + 1] && source; j++)
            source = !member(c, g->ops[j]) || c->comp[g->ops[j]] == BROADCAST;
        if (!source) continue;
        int qh = 0, qt = 0;
        c->queue[qt++] = s;
        c->comp[s] = ncomp;
        while (qh < qt) {
            int v = c->queue[qh++];
            for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) {
                int o = g->ops[j];
                if (member(c, o) && c->comp[o] == UNSEEN) c->comp[o] = ncomp, c->queue[qt++] = o;
            }
            for (int j = g->use_start[v]; j < g->use_start[v + 1]; j++) {
                int w = g->uses[j];
                if (member(c, w) && c->comp[w] == UNSEEN) c->comp[w] = ncomp, c->queue[qt++] = w;
            }
        }
        ncomp++;
    }
    if (ncomp <= 1) return 1;
    grow_blocks(c, ncomp);
    /* a counting sort by component, the broadcast loads after */
    for (int b = 0; b < ncomp; b++) c->blk_len[b] = 0;
    int nmem = 0;
    for (int i = 0; i < len; i++)
        if (c->comp[p[i]] >= 0) c->blk_len[c->comp[p[i]]]++, nmem++;
    for (int b = 0, at = 0; b < ncomp; b++) c->blk_lo[b] = at, at += c->blk_len[b];
    for (int b = 0; b < ncomp; b++) c->blk_at[b] = c->blk_lo[b];
    c->npending = 0;
    for (int i = 0; i < len; i++) {
        int v = p[i];
        if (c->comp[v] >= 0) c->tmp[c->blk_at[c->comp[v]]++] = v;
        else c->tmp[nmem + c->npending++] = v;
    }
    memcpy(p, c->tmp, sizeof(int) * (size_t)len);
    for (int b = 0; b < ncomp; b++) c->blk_lo[b] += lo;
    return ncomp;
}

static void add_var(fftw_ctx *c, size_t *nv, int x) {
    if (c->var_mark[x] == c->mark) return;
    c->var_mark[x] = c->mark;
    TINE_PUSH(c->vars, *nv, c->capvars, x);
}

/* Every block's variables: the values it defines (and its stores, which genfft counts as
 * assignments to locations) and the values it reads. */
static void block_vars(fftw_ctx *c, int nblk) {
    const tine_sched_graph *g = &c->g;
    size_t nv = 0;
    for (int b = 0; b < nblk; b++) {
        c->var_start[b] = (int)nv;
        c->mark++;
        for (int i = c->blk_lo[b]; i < c->blk_lo[b] + c->blk_len[b]; i++) {
            int v = c->perm[i];
            add_var(c, &nv, v);
            for (int j = g->op_start[v]; j < g->op_start[v + 1]; j++) add_var(c, &nv, g->ops[j]);
        }
    }
    c->var_start[nblk] = (int)nv;
}

static int nvars(const fftw_ctx *c, int b) { return c->var_start[b + 1] - c->var_start[b]; }

/* Whether block a goes before block b when both share as much with the last one. */
static bool fewer_vars(const fftw_ctx *c, const int *s, int a, int b) {
    int la = nvars(c, s[a]), lb = nvars(c, s[b]);
    return la < lb || (la == lb && a < b);
}

/* annotate.ml's reorder of the blocks s[0, m): the smallest first, then each next the
 * one sharing the most variables with the one before. */
static void reorder(fftw_ctx *c, int *s, int m) {
    if (m <= 1) return;
    /* The index from variables (numbered locally) to the slots of the blocks using them. */
    int nloc = 0;
    int *vlist = NULL, *vstart = NULL, *vslots = NULL;
    size_t capl = 0;
    for (int k = 0; k < m; k++)
        for (int j = c->var_start[s[k]]; j < c->var_start[s[k] + 1]; j++) {
            int x = c->vars[j];
            if (c->var_local[x] < 0) {
                c->var_local[x] = nloc;
                TINE_PUSH(vlist, nloc, capl, x);
            }
        }
    vstart = tine_xcalloc((size_t)nloc + 2, sizeof(int));
    size_t total = 0;
    for (int k = 0; k < m; k++)
        for (int j = c->var_start[s[k]]; j < c->var_start[s[k] + 1]; j++) vstart[c->var_local[c->vars[j]] + 2]++, total++;
    for (int x = 0; x < nloc; x++) vstart[x + 2] += vstart[x + 1];
    vslots = tine_xmalloc(sizeof(int) * (total + 1));
    for (int k = 0; k < m; k++)
        for (int j = c->var_start[s[k]]; j < c->var_start[s[k] + 1]; j++) vslots[vstart[c->var_local[c->vars[j]] + 1]++] = k;

    /* slots by size, for when nothing shares with the last block */
    int *by_size = tine_xmalloc(sizeof(int) * (size_t)m), *share = tine_xcalloc((size_t)m, sizeof(int));
    int *touched = tine_xmalloc(sizeof(int) * (size_t)m), *out = tine_xmalloc(sizeof(int) * (size_t)m);
    bool *placed = tine_xcalloc((size_t)m, sizeof(bool));
    for (int k = 0; k < m; k++) by_size[k] = k;
    /* a bottom-up merge sort (touched is its scratch here) */
    for (int w = 1; w < m; w *= 2)
        for (int a = 0; a < m; a += 2 * w) {
            int mid = a + w < m ? a + w : m, end = a + 2 * w < m ? a + 2 * w : m;
            int i = a, j = mid, o = a;
            while (i < mid || j < end)
                touched[o++] = (j >= end || (i < mid && !fewer_vars(c, s, by_size[j], by_size[i]))) ? by_size[i++]
                                                                                                    : by_size[j++];
            memcpy(by_size + a, touched + a, sizeof(int) * (size_t)(end - a));
        }
    int smallest = 0, last = by_size[0];
    placed[last] = true;
    out[0] = last;
    for (int step = 1; step < m; step++) {
        int nt = 0;
        int b = s[last];
        for (int j = c->var_start[b]; j < c->var_start[b + 1]; j++) {
            int x = c->var_local[c->vars[j]];
            if (vstart[x + 1] - vstart[x] > SHARE_LIMIT) continue;
            for (int t = vstart[x]; t < vstart[x + 1]; t++) {
                int k = vslots[t];
                if (placed[k]) continue;
                if (share[k]++ == 0) touched[nt++] = k;
            }
        }
        int best = -1;
        for (int t = 0; t < nt; t++) {
            int k = touched[t];
            if (best < 0 || share[k] > share[best] || (share[k] == share[best] && fewer_vars(c, s, k, best)))
                best = k;
        }
        for (int t = 0; t < nt; t++) share[touched[t]] = 0;
        if (best < 0) {
            while (placed[by_size[smallest]]) smallest++;
            best = by_size[smallest];
        }
        placed[best] = true;
        out[step] = best;
        last = best;
    }
    for (int k = 0; k < m; k++) c->seq_tmp[k] = s[out[k]];
    memcpy(s, c->seq_tmp, sizeof(int) * (size_t)m);
    for (int x = 0; x < nloc; x++) c->var_local[vlist[x]] = -1;
    free(vlist);
    free(vstart);
    free(vslots);
    free(by_size);
    free(share);
    free(touched);
    free(out);
    free(placed);
}

/* annotate.ml's linearize of one Par: reorder, halve, and each half again. */
static void linearize(fftw_ctx *c, int nblk) {
    for (int b = 0; b < nblk; b++) c->seq[b] = b;
    /* the halves are disjoint, so a stack of ranges in any order does */
    int *lo = tine_xmalloc(sizeof(int) * (size_t)(2 * nblk + 2)), *hi = lo + nblk + 1, n = 0;
    lo[n] = 0, hi[n] = nblk, n++;
    while (n > 0) {
        n--;
        int a = lo[n], z = hi[n];
        if (z - a <= 1) continue;
        reorder(c, c->seq + a, z - a);
        if (z - a <= 2) continue;
        int mid = a + (z - a) / 2;
        lo[n] = a, hi[n] = mid, n++;
        lo[n] = mid, hi[n] = z, n++;
    }
    free(lo);
}

/* The blocks of perm[lo, lo + len) in their order, each with the broadcast loads it reads
 * first (those that no block before it reads), pushed to be scheduled. */
static void lay_out_blocks(fftw_ctx *c, int lo, int len, int nblk) {
    const tine_sched_graph *g = &c->g;
    int *rank = c->seq_tmp;
    for (int k = 0; k < nblk; k++) rank[c->seq[k]] = k, c->blk_extra[k] = 0;
    int *pending = c->perm + lo + len - c->npending;
    for (int i = 0; i < c->npending; i++) {
        int l = pending[i], first = nblk;
        for (int j = g->use_start[l]; j < g->use_start[l + 1]; j++) {
            int w = g->uses[j];
            if (member(c, w) && rank[c->comp[w]] < first) first = rank[c->comp[w]];
        }
        TINE_ASSERT(first < nblk);
        c->comp[l] = first;  /* now the block's place in the order */
        c->blk_extra[first]++;
    }
    for (int k = 0, at = 0; k < nblk; k++) {
        c->blk_at[k] = at;
        at += c->blk_extra[k] + c->blk_len[c->seq[k]];
    }
    for (int i = 0; i < c->npending; i++) c->tmp[c->blk_at[c->comp[pending[i]]]++] = pending[i];
    for (int k = 0; k < nblk; k++) {
        int b = c->seq[k];
        memcpy(c->tmp + c->blk_at[k], c->perm + c->blk_lo[b], sizeof(int) * (size_t)c->blk_len[b]);
    }
    memcpy(c->perm + lo, c->tmp, sizeof(int) * (size_t)len);
    for (int k = 0, at = lo; k < nblk; k++) {
        int n = c->blk_extra[k] + c->blk_len[c->seq[k]];
        push(c, at, n, true);
        at += n;
    }
}

/* Schedules the set perm[lo, lo + len): cut, or split into ordered blocks. */
static void step(fftw_ctx *c, item it) {
    c->stamp++;
    for (int i = it.lo; i < it.lo + it.len; i++) c->in[c->perm[i]] = c->stamp;
    if (!it.connected) {
        int nblk = components(c, it.lo, it.len);
        if (nblk > 1) {
            block_vars(c, nblk);
            linearize(c, nblk);
            lay_out_blocks(c, it.lo, it.len, nblk);
            return;
        }
    }
    int ntop = cut(c, it.lo, it.len);
    push(c, it.lo, ntop, false);
    push(c, it.lo + ntop, it.len - ntop, false);
}

void tine_sched_fftw(const tine_sched_dag *d, int *order) {
    TINE_ASSERT(tine_sched_dag_ok(d));
    int n = d->n;
    for (int v = 0; v < n; v++) order[v] = v;
    int nconst = tine_sched_consts_first(d, order);
    if (n - nconst <= 1) return;
    fftw_ctx c = {.perm = order, .mark = 0};
    tine_sched_graph_build(d, &c.g);
    size_t sn = (size_t)n + 1;
    c.in = tine_xcalloc(sn, sizeof(int));
    c.color = tine_xmalloc(sn);
    c.wait_top = tine_xmalloc(sizeof(int) * sn);
    c.wait_bottom = tine_xmalloc(sizeof(int) * sn);
    c.comp = tine_xmalloc(sizeof(int) * sn);
    c.tmp = tine_xmalloc(sizeof(int) * sn);
    c.queue = tine_xmalloc(sizeof(int) * sn);
    c.top.now = tine_xmalloc(sizeof(int) * sn);
    c.top.next = tine_xmalloc(sizeof(int) * sn);
    c.bottom.now = tine_xmalloc(sizeof(int) * sn);
    c.bottom.next = tine_xmalloc(sizeof(int) * sn);
    c.var_mark = tine_xcalloc(sn, sizeof(int));
    c.var_local = tine_xmalloc(sizeof(int) * sn);
    for (int v = 0; v < n; v++) c.var_local[v] = -1;
    push(&c, nconst, n - nconst, false);
    while (c.nstack > 0) step(&c, c.stack[--c.nstack]);
    tine_sched_graph_free(&c.g);
    free(c.in);
    free(c.color);
    free(c.wait_top);
    free(c.wait_bottom);
    free(c.comp);
    free(c.tmp);
    free(c.queue);
    free(c.top.now);
    free(c.top.next);
    free(c.bottom.now);
    free(c.bottom.next);
    free(c.stack);
    free(c.blk_lo);
    free(c.blk_len);
    free(c.var_start);
    free(c.seq);
    free(c.seq_tmp);
    free(c.blk_extra);
    free(c.blk_at);
    free(c.vars);
    free(c.var_mark);
    free(c.var_local);
}
