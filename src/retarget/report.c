/* report.c — `tine retarget --report`: what each intrinsic call site became.
 *
 * A call is lifted and selected together with the rest of its run, so what it became is
 * read off the run's values when they are written (a sink): a call whose value, lifted on
 * its own, is still a node of the lifted run kept its identity, and became what its own
 * value selects to (one target instruction: mapped one-to-one; several: emulated); one
 * whose lifted value is gone was fused across intrinsics into the run's FPIR ops. A call
 * no sink reads was dropped (its value is never used). The text ends with the peephole's
 * rewrites over all sinks, by rule (tine_retarget_optimize).
 */
#include "retarget.h"

typedef struct {
    char *name, *from;
    int line, col;
    tine_expr_t *value; /* its (first) result, as the run's graph holds it */
    char *what;         /* NULL until a sink reads it */
    int widened, bits;  /* in a loop widened to this many copies, of registers of bits */
} call;

struct tine_rt_report {
    call *calls;
    int n, cap;
    /* the peephole's rewrites over every sink: by rule (in the order they first fired),
       and the engine's own (constants folded, redundant values merged) */
    char (*rule)[32];
    int nrules, caprules;
    /* one record a rule's rewrites on one sink (rule: its index in `rule`; FOLDED and
       REDUNDANT the engine's own), so that code written again drops its records */
    struct { int rule, n; } *log;
    int nlog, caplog;
};
enum { FOLDED = -1, REDUNDANT = -2 };

tine_rt_report *tine_rt_report_new(void) { return tine_xcalloc(1, sizeof(tine_rt_report)); }

void tine_rt_report_free(tine_rt_report *rep) {
    if (!rep) return;
    for (int i = 0; i < rep->n; i++) free(rep->calls[i].name), free(rep->calls[i].from), free(rep->calls[i].what);
    free(rep->calls);
    free(rep->rule);
    free(rep->log);
    free(rep);
}

static void peep_log(tine_rt_report *rep, int rule, int n) {
    if (!n) return;
    TINE_GROW(rep->log, rep->nlog + 1, rep->caplog);
    rep->log[rep->nlog].rule = rule;
    rep->log[rep->nlog++].n = n;
}

void tine_rt_report_peephole(tine_rt_report *rep, const tine_peep_stats *st) {
    for (int i = 0; i < st->nfired; i++) {
        int k = 0;
        while (k < rep->nrules && strcmp(rep->rule[k], st->fired[i])) k++;
        if (k == rep->nrules) {
            TINE_GROW(rep->rule, rep->nrules + 1, rep->caprules);
            snprintf(rep->rule[k], sizeof rep->rule[k], "%s", st->fired[i]);
            rep->nrules++;
        }
        peep_log(rep, k, st->fired_counts[i]);
    }
    peep_log(rep, FOLDED, st->folded);
    peep_log(rep, REDUNDANT, st->redundant);
}

int tine_rt_report_peep_mark(const tine_rt_report *rep) { return rep->nlog; }

void tine_rt_report_peep_drop(tine_rt_report *rep, int mark) {
    if (mark < rep->nlog) rep->nlog = mark;
}

void tine_rt_report_call(tine_rt_report *rep, const char *name, const char *from, int line, int col, tine_expr_t *value) {
    TINE_GROW(rep->calls, rep->n + 1, rep->cap);
    rep->calls[rep->n++] = (call){tine_strdup(name), tine_strdup(from), line, col, value, NULL, 0, 0};
}

int tine_rt_report_count(const tine_rt_report *rep) { return rep->n; }

void tine_rt_report_cut(tine_rt_report *rep, int from, int to) {
    if (from >= to) return; /* nothing recorded yet: calls may be NULL, no memmove of it */
    for (int i = from; i < to; i++) free(rep->calls[i].name), free(rep->calls[i].from), free(rep->calls[i].what);
    memmove(rep->calls + from, rep->calls + to, sizeof *rep->calls * (size_t)(rep->n - to));
    rep->n -= to - from;
}

void tine_rt_report_widen(tine_rt_report *rep, int from, int to, int copies, int bits) {
    for (int i = from; i < to; i++) rep->calls[i].widened = copies, rep->calls[i].bits = bits;
}

/* Whether x is a node of the graph, seen through reinterprets: a reinterpret of a
 * reinterpret is one node (the value of _mm_set1_epi16, reinterpreted where a byte
 * operation reads it, is its operand's reinterpret). */
static bool in_dag(tine_expr_t *const *order, uint32_t n, const tine_expr_t *x) {
    while (x->op == TINE_OP_REINTERPRET) x = x->ops[0];
    for (uint32_t i = 0; i < n; i++)
        if (order[i] == x) return true;
    return false;
}

/* The names of the target instructions and FPIR ops of e, comma-separated (each once). */
static void ops_of(tine_ctx_t *ctx, tine_expr_t *e, bool fpir, tine_buf *b) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    const char *seen[64];
    int ns = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = NULL;
        if (!fpir && order[i]->op == TINE_OP_INSN) name = tine_insn_name(ctx, order[i]->imm);
        if (fpir && tine_op_is_fpir((tine_op_t)order[i]->op)) name = tine_op_name((tine_op_t)order[i]->op);
        if (!name) continue;
        bool dup = false;
        for (int k = 0; k < ns && !dup; k++) dup = !strcmp(seen[k], name);
        if (dup || ns == 64) continue;
        seen[ns++] = name;
        tine_buf_printf(b, "%s%s", b->n ? ", " : "", name);
    }
    free(order);
}

/* How many operations a selected value has (its nodes that are not leaves). */
static int ops_count(tine_ctx_t *ctx, tine_expr_t *e) {
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, e, &n);
    int k = 0;
    for (uint32_t i = 0; i < n; i++) /* a reinterpret is no instruction */
        k += order[i]->op != TINE_OP_VAR && order[i]->op != TINE_OP_CONST && order[i]->op != TINE_OP_REINTERPRET;
    free(order);
    return k;
}

void tine_rt_report_sink(tine_rt_report *rep, tine_ctx_t *ctx, const char *target, tine_expr_t *raw, tine_expr_t *ready,
                         tine_expr_t *selected) {
    uint32_t nraw, nlift;
    tine_expr_t **oraw = tine_topo(ctx, raw, &nraw);
    tine_expr_t *lifted = ready->type.lanes > 1 ? tine_lift(ctx, ready) : ready;
    tine_expr_t **olift = lifted ? tine_topo(ctx, lifted, &nlift) : NULL;
    for (int i = 0; i < rep->n; i++) {
        call *c = &rep->calls[i];
        if (c->what || !c->value || !in_dag(oraw, nraw, c->value)) continue;
        tine_buf b = {0};
        tine_buf_puts(&b, "");
        tine_expr_t *own = tine_fold_constants(ctx, c->value);
        own = own ? tine_retarget_join(ctx, own) : NULL;
        tine_expr_t *own_lift = own && own->type.lanes > 1 ? tine_lift(ctx, own) : own;
        tine_expr_t *own_sel = own && own->type.lanes > 1 ? tine_select_expr(ctx, own, TINE_SELECT_TINE, target) : own;
        if (!own_lift || !own_sel) {
            tine_clear_error(ctx);
            tine_buf_puts(&b, "selected with its run");
        } else if (olift && in_dag(olift, nlift, own_lift)) {
            int k = ops_count(ctx, own_sel);
            tine_buf i_names = {0};
            tine_buf_puts(&i_names, "");
            ops_of(ctx, own_sel, false, &i_names);
            if (i_names.n && k == 1) tine_buf_printf(&b, "one-to-one: %s", i_names.p);
            else if (k <= 1) tine_buf_printf(&b, "one-to-one: %s", k ? tine_op_name((tine_op_t)own_sel->op) : "no operation (a lane move of registers, or a constant)");
            else tine_buf_printf(&b, "emulated: %d operations%s%s", k, i_names.n ? " with " : "", i_names.p);
            free(i_names.p);
        } else {
            tine_buf f = {0}, t = {0};
            tine_buf_puts(&f, "");
            tine_buf_puts(&t, "");
            if (lifted) ops_of(ctx, lifted, true, &f);
            ops_of(ctx, selected, false, &t);
            tine_buf_printf(&b, "fused across intrinsics%s%s%s%s", f.n ? " into " : "", f.p, t.n ? " -> " : "", t.p);
            free(f.p);
            free(t.p);
        }
        c->what = b.p;
    }
    free(oraw);
    free(olift);
}

/* Whether a value has no variable under it (its lanes are known: _mm_set1_epi16(23170)). */
static bool constant(const tine_expr_t *e) {
    if (e->op == TINE_OP_VAR || e->op == TINE_OP_LOAD) return false;
    for (int i = 0; i < e->nops; i++)
        if (!constant(e->ops[i])) return false;
    return true;
}

char *tine_rt_report_text(tine_rt_report *rep, const char *path) {
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    int kinds[5] = {0}, nwide = 0;
    for (int i = 0; i < rep->n; i++) {
        call *c = &rep->calls[i];
        const char *what = c->what ? c->what
                           : !c->value ? "a store: the run's value written where the source writes it"
                           : constant(c->value) ? "a constant, folded into its uses"
                                                : "dropped: its value is never used";
        tine_buf_printf(&b, "%s:%d:%d: %s (%s): ", path, c->line, c->col, c->name, c->from);
        if (c->widened) tine_buf_printf(&b, "widened (%d copies in %d-bit registers), ", c->widened, c->bits);
        tine_buf_printf(&b, "%s\n", what);
        nwide += c->widened > 0;
        kinds[!strncmp(what, "one-to-one", 10) ? 0 : !strncmp(what, "fused", 5) ? 1 : !strncmp(what, "emulated", 8) ? 2
              : !c->value ? 3 : 4]++;
    }
    tine_buf_printf(&b, "%d call sites: %d one-to-one, %d fused across intrinsics, %d emulated, %d stores, %d dropped; %d widened\n",
                    rep->n, kinds[0], kinds[1], kinds[2], kinds[3], kinds[4], nwide);
    int *by_rule = tine_xcalloc((size_t)rep->nrules + 1, sizeof *by_rule), total = 0, folded = 0, redundant = 0, shown = 0;
    for (int i = 0; i < rep->nlog; i++) {
        int k = rep->log[i].rule, n = rep->log[i].n;
        if (k == FOLDED) folded += n;
        else if (k == REDUNDANT) redundant += n;
        else by_rule[k] += n, total += n;
    }
    tine_buf_printf(&b, "peephole: %d rewrites", total);
    for (int k = 0; k < rep->nrules; k++)
        if (by_rule[k]) tine_buf_printf(&b, "%s%s %d", shown++ ? ", " : " (", rep->rule[k], by_rule[k]);
    tine_buf_printf(&b, "%s; %d constants folded, %d redundant values merged\n", shown ? ")" : "", folded, redundant);
    free(by_rule);
    return b.p;
}
