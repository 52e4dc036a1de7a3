/* tprog.c — the target-level program: building it from selected outputs, keeping its order
 * valid as the optimizer rewrites values, its dependence graph for the scheduler, and its
 * listing. */
#include "tprog.h"

tine_tprog *tine_tprog_new(tine_ctx_t *ctx, const char *target) {
    tine_tprog *p = tine_xcalloc(1, sizeof *p);
    p->ctx = ctx;
    p->target = tine_strdup(target);
    return p;
}

void tine_tprog_free(tine_tprog *p) {
    if (!p) return;
    for (int i = 0; i < p->nouts; i++) free(p->outs[i].name);
    free(p->outs);
    free(p->inputs);
    free(p->order);
    free(p->target);
    free(p);
}

void tine_tprog_input(tine_tprog *p, tine_expr_t *leaf) { TINE_PUSH(p->inputs, p->ninputs, p->capinputs, leaf); }

void tine_tprog_output(tine_tprog *p, const char *name, tine_expr_t *value) {
    tine_tprog_out o = {tine_strdup(name), value};
    TINE_PUSH(p->outs, p->nouts, p->capouts, o);
}

tine_tprog *tine_tprog_of(tine_ctx_t *ctx, const char *target, int n, const char *const *names,
                          tine_expr_t *const *values) {
    tine_tprog *p = tine_tprog_new(ctx, target);
    tine_u64map seen = {0};
    for (int k = 0; k < n; k++) {
        char name[32];
        if (!names) snprintf(name, sizeof name, "out%d", k);
        tine_tprog_output(p, names ? names[k] : name, values[k]);
        uint32_t m;
        tine_expr_t **t = tine_topo(ctx, values[k], &m);
        for (uint32_t i = 0; i < m; i++) {
            uint64_t one;
            if (t[i]->nops || t[i]->op == TINE_OP_CONST || tine_u64map_get(&seen, t[i]->id, &one)) continue;
            tine_u64map_put(&seen, t[i]->id, 1);
            tine_tprog_input(p, t[i]);
        }
        free(t);
    }
    tine_u64map_free(&seen);
    tine_tprog_reorder(p);
    return p;
}

bool tine_tprog_select(tine_tprog *p) {
    for (int i = 0; i < p->nouts; i++) {
        tine_expr_t *r = tine_lower(p->ctx, p->outs[i].value, p->target);
        if (!r) return false;
        p->outs[i].value = r;
    }
    tine_tprog_reorder(p);
    return true;
}

/* ---- order -------------------------------------------------------------------------- */

/* Node ids are dense in the context; the maps below are indexed by them. */
static uint32_t id_limit(const tine_tprog *p) {
    uint32_t m = 0;
    for (int i = 0; i < p->n; i++)
        if (p->order[i].e->id >= m) m = p->order[i].e->id + 1;
    for (int i = 0; i < p->nouts; i++)
        if (p->outs[i].value->id >= m) m = p->outs[i].value->id + 1;
    return m;
}

typedef struct {
    tine_tprog_item *v;
    int n, cap;
    uint8_t *done;  /* node id -> placed */
} rebuild;

/* Places x after its operands (depth first, operands in the old order's order of
 * appearance so that a kept value stays where its old position put it). */
static void place(rebuild *r, tine_expr_t *root) {
    typedef struct {
        tine_expr_t *x;
        int next;
    } frame;
    frame *st = NULL;
    int sp = 0, cap = 0;
    frame f0 = {root, 0};
    if (r->done[root->id]) return;
    TINE_PUSH(st, sp, cap, f0);
    while (sp) {
        frame *f = &st[sp - 1];
        if (f->next < f->x->nops) {
            tine_expr_t *o = f->x->ops[f->next++];
            if (!r->done[o->id]) {
                r->done[o->id] = 1; /* on the stack: a DAG never reaches it again through itself */
                frame g = {o, 0};
                TINE_PUSH(st, sp, cap, g);
            }
            continue;
        }
        tine_tprog_item it = {f->x, -1};
        r->done[f->x->id] = 1;
        TINE_PUSH(r->v, r->n, r->cap, it);
        sp--;
    }
    free(st);
}

/* Whether every value of the old order that x needs (through values the old order did
 * not have) is placed: then x can be placed without pulling an old value forward. */
static bool ready(const rebuild *r, const uint8_t *old, const tine_expr_t *x) {
    if (r->done[x->id]) return true;
    if (old[x->id]) return false;
    for (int k = 0; k < x->nops; k++)
        if (!ready(r, old, x->ops[k])) return false;
    return true;
}

void tine_tprog_reorder(tine_tprog *p) {
    uint32_t lim = id_limit(p);
    rebuild r = {0};
    r.done = tine_xcalloc(lim ? lim : 1, 1);
    /* Which values are still needed: mark from the outputs. */
    uint8_t *need = tine_xcalloc(lim ? lim : 1, 1), *old = tine_xcalloc(lim ? lim : 1, 1);
    for (int i = 0; i < p->nouts; i++) {
        uint32_t n;
        tine_expr_t **t = tine_topo(p->ctx, p->outs[i].value, &n);
        for (uint32_t k = 0; k < n; k++) need[t[k]->id] = 1;
        free(t);
    }
    for (int i = 0; i < p->n; i++)
        if (p->order[i].store < 0 && need[p->order[i].e->id]) old[p->order[i].e->id] = 1;
    /* Walk the old order: each kept value is placed where it was (after any new operands
     * it has); a store waits at its old place, or later, until every old value its (maybe
     * rewritten) value needs is placed, so that no old value is pulled forward for it;
     * then whatever is left. */
    bool *stored = tine_xcalloc((size_t)p->nouts + 1, sizeof *stored);
    int *pending = tine_xmalloc(sizeof *pending * ((size_t)p->nouts + 1)), npending = 0, head = 0;
    for (int i = 0; i <= p->n; i++) {
        if (i < p->n) {
            tine_tprog_item it = p->order[i];
            if (it.store >= 0) {
                if (it.store < p->nouts && !stored[it.store]) {
                    stored[it.store] = true;
                    pending[npending++] = it.store;
                }
            } else if (need[it.e->id]) {
                place(&r, it.e);
            }
        }
        /* in their old order: the first waiting store goes first */
        while (head < npending && (i == p->n || ready(&r, old, p->outs[pending[head]].value))) {
            int k = pending[head++];
            place(&r, p->outs[k].value);
            tine_tprog_item s = {p->outs[k].value, k};
            TINE_PUSH(r.v, r.n, r.cap, s);
        }
    }
    for (int k = 0; k < p->nouts; k++)
        if (!stored[k]) {
            place(&r, p->outs[k].value);
            tine_tprog_item s = {p->outs[k].value, k};
            TINE_PUSH(r.v, r.n, r.cap, s);
        }
    free(pending);
    free(stored);
    free(need);
    free(old);
    free(r.done);
    free(p->order);
    p->order = r.v;
    p->n = r.n;
    p->cap = r.cap;
}

bool tine_tprog_check(const tine_tprog *p) {
    uint32_t lim = id_limit(p);
    uint8_t *seen = tine_xcalloc(lim ? lim : 1, 1);
    int *stores = tine_xcalloc((size_t)p->nouts + 1, sizeof *stores);
    bool ok = true;
    for (int i = 0; i < p->n && ok; i++) {
        const tine_tprog_item *it = &p->order[i];
        if (it->store >= 0) {
            ok = it->store < p->nouts && it->e == p->outs[it->store].value && seen[it->e->id];
            if (ok) stores[it->store]++;
            continue;
        }
        if (seen[it->e->id]) ok = false;
        for (int k = 0; k < it->e->nops && ok; k++) ok = seen[it->e->ops[k]->id];
        seen[it->e->id] = 1;
    }
    for (int k = 0; k < p->nouts && ok; k++) ok = stores[k] == 1;
    free(seen);
    free(stores);
    return ok;
}

/* ---- the scheduler's view ----------------------------------------------------------- */

void tine_tprog_dag_make(const tine_tprog *p, tine_tprog_dag *d) {
    uint32_t lim = id_limit(p);
    int *pos = tine_xmalloc(sizeof *pos * (lim ? lim : 1));
    for (int i = 0; i < p->n; i++)
        if (p->order[i].store < 0) pos[p->order[i].e->id] = i;
    d->kind = tine_xmalloc((size_t)p->n + 1);
    d->op_start = tine_xmalloc(sizeof *d->op_start * ((size_t)p->n + 1));
    int nops = 0, cap = 0;
    d->ops = NULL;
    for (int i = 0; i < p->n; i++) {
        const tine_tprog_item *it = &p->order[i];
        d->op_start[i] = nops;
        if (it->store >= 0) {
            d->kind[i] = TINE_SCHED_STORE;
            TINE_PUSH(d->ops, nops, cap, pos[it->e->id]);
            continue;
        }
        d->kind[i] = it->e->op == TINE_OP_CONST ? TINE_SCHED_CONST
                     : it->e->nops == 0         ? TINE_SCHED_LOAD
                                                : TINE_SCHED_OP;
        for (int k = 0; k < it->e->nops; k++) TINE_PUSH(d->ops, nops, cap, pos[it->e->ops[k]->id]);
    }
    d->op_start[p->n] = nops;
    d->dag.n = p->n;
    d->dag.kind = d->kind;
    d->dag.op_start = d->op_start;
    d->dag.ops = d->ops;
    free(pos);
}

void tine_tprog_dag_free(tine_tprog_dag *d) {
    free(d->kind);
    free(d->op_start);
    free(d->ops);
}

void tine_tprog_permute(tine_tprog *p, const int *perm) {
    tine_tprog_item *v = tine_xmalloc(sizeof *v * ((size_t)p->n + 1));
    for (int k = 0; k < p->n; k++) v[k] = p->order[perm[k]];
    free(p->order);
    p->order = v;
    p->cap = p->n;
}

/* ---- what it holds -------------------------------------------------------------------- */

tine_tprog_stats tine_tprog_stats_of(const tine_tprog *p) {
    tine_tprog_stats s = {0};
    uint32_t lim = id_limit(p);
    int *last = tine_xmalloc(sizeof *last * (lim ? lim : 1));
    for (int i = 0; i < p->n; i++) {
        const tine_tprog_item *it = &p->order[i];
        if (it->store >= 0) {
            s.stores++;
            last[it->e->id] = i;
            continue;
        }
        last[it->e->id] = i;
        for (int k = 0; k < it->e->nops; k++) last[it->e->ops[k]->id] = i;
        if (it->e->op == TINE_OP_CONST) s.consts++;
        else if (it->e->nops == 0) s.inputs++;
        else if (it->e->op == TINE_OP_INSN) s.insns++;
        else s.generic++;
    }
    /* live: defined at i (not a constant), not yet past its last use */
    int live = 0;
    for (int i = 0; i < p->n; i++) {
        const tine_tprog_item *it = &p->order[i];
        if (it->store < 0 && it->e->op != TINE_OP_CONST) live++;
        if (live > s.max_live) s.max_live = live;
        /* values whose last use is here die after it */
        if (it->store >= 0) {
            if (last[it->e->id] == i && it->e->op != TINE_OP_CONST) live--;
            continue;
        }
        for (int k = 0; k < it->e->nops; k++) {
            const tine_expr_t *o = it->e->ops[k];
            bool first = true;
            for (int j = 0; j < k; j++) first &= it->e->ops[j] != o;
            if (first && o->op != TINE_OP_CONST && last[o->id] == i) live--;
        }
        if (last[it->e->id] == i && it->e->op != TINE_OP_CONST) live--; /* never read */
    }
    free(last);
    return s;
}

static void print_ref(const tine_tprog *p, const int32_t *num, const tine_expr_t *e, tine_buf *out) {
    if (e->op == TINE_OP_CONST) {
        tine_buf b = {0};
        tine_print_named(p->ctx, e, e->type.lanes, true, &b);
        tine_buf_puts(out, b.p ? b.p : "?");
        free(b.p);
        return;
    }
    tine_buf_printf(out, "%%%d", num[e->id]);
}

void tine_tprog_print(const tine_tprog *p, tine_buf *out) {
    uint32_t lim = id_limit(p);
    int32_t *num = tine_xmalloc(sizeof *num * (lim ? lim : 1));
    int next = 0;
    char tb[64];
    for (int i = 0; i < p->n; i++) {
        const tine_tprog_item *it = &p->order[i];
        const tine_expr_t *e = it->e;
        if (it->store >= 0) {
            tine_buf_printf(out, "store %s ", p->outs[it->store].name);
            print_ref(p, num, e, out);
            tine_buf_putc(out, '\n');
            continue;
        }
        if (e->op == TINE_OP_CONST) continue; /* printed where used */
        num[e->id] = next++;
        tine_type_str(e->type, tb, sizeof tb);
        tine_buf_printf(out, "%%%d = ", num[e->id]);
        if (e->nops == 0) {
            tine_buf_printf(out, "input %s : %s\n", tine_expr_name(e) ? tine_expr_name(e) : "?", tb);
            continue;
        }
        tine_buf_puts(out, e->op == TINE_OP_INSN ? tine_insn_name(p->ctx, e->imm) : tine_op_name((tine_op_t)e->op));
        for (int k = 0; k < e->nops; k++) {
            tine_buf_puts(out, k ? ", " : " ");
            print_ref(p, num, e->ops[k], out);
        }
        tine_buf_printf(out, " : %s\n", tb);
    }
    free(num);
}
