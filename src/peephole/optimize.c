/* optimize.c — after selection, every target-level program goes through the same two
 * steps: the peephole optimizer's passes, then the order with the fewest spills. */
#include "optimize.h"

#include "../targets/targets.h"

int tine_tprog_nregs(tine_ctx_t *ctx, const char *target) {
    const tine_target_info *ti = tine_target_find(target);
    if (!ti || !ti->isa) return 16;
    if (!strcmp(ti->isa, "arm")) return 32;
    /* x86: 32 vector registers come with AVX-512 (its 512-bit add is the witness) */
    uint32_t features = tine_target_features(ctx, target, NULL);
    int code = tine_isa_lookup(ctx, "addps");
    const tine_insn *in = code >= 0 ? tine_insn_info(ctx, (uint32_t)code, NULL) : NULL;
    int f = in ? tine_insn_pick_form(in, features, 4096) : -1;
    return f >= 0 && in->form[f].bits >= 512 ? 32 : 16;
}

void tine_tprog_report_line(tine_buf *r, const char *step, const tine_tprog *p, double ms) {
    tine_tprog_stats s = tine_tprog_stats_of(p);
    tine_buf_printf(r, "%-9s %5d instructions, %4d other ops, %3d constants, max live %3d   %.1f ms\n", step, s.insns,
                    s.generic, s.consts, s.max_live, ms);
}

/* The order with the fewest spills at the target's registers among the scheduler's
 * candidates (FFTW's decomposition, the list scheduler, the current order, each with
 * and without the local moves): what straight-line code pays for is spills, and max live
 * (what tine_sched_run ranks by) says little about them once it is past the register
 * count. The current order wins ties, so the result never spills more than it. */
static bool schedule(tine_tprog *p, int nregs, tine_buf *rep) {
    tine_tprog_dag d;
    tine_tprog_dag_make(p, &d);
    size_t sz = sizeof(int) * ((size_t)p->n + 1);
    int *in = tine_xmalloc(sz), *cand = tine_xmalloc(sz), *best = tine_xmalloc(sz);
    for (int i = 0; i < p->n; i++) in[i] = i;
    static const char *const names[6] = {"selection", "selection+moves", "fftw", "fftw+moves", "list", "list+moves"};
    int before = tine_sched_spills(&d.dag, in, nregs), best_spills = -1, from = 0;
    for (int k = 0; k < 6; k++) {
        if (k / 2 == 0) memcpy(cand, in, sz);
        else if (k / 2 == 1) tine_sched_fftw(&d.dag, cand);
        else tine_sched_list(&d.dag, cand);
        if (k % 2) tine_sched_local_moves(&d.dag, cand);
        if (!tine_sched_is_topo(&d.dag, cand)) continue;
        int sp = tine_sched_spills(&d.dag, cand, nregs);
        if (sp >= 0 && (best_spills < 0 || sp < best_spills)) {
            best_spills = sp, from = k;
            memcpy(best, cand, sz);
        }
    }
    bool ok = best_spills >= 0;
    if (ok) {
        tine_tprog_permute(p, best);
        if (rep)
            tine_buf_printf(rep, "          from %s; spills at %d registers: %d in the selection's order, %d\n",
                            names[from], nregs, before, best_spills);
    }
    free(in);
    free(cand);
    free(best);
    tine_tprog_dag_free(&d);
    return ok && tine_tprog_check(p);
}

bool tine_tprog_optimize(tine_tprog *p, const tine_tprog_opt *o, tine_peep_stats *st, tine_buf *rep) {
    tine_peep_stats own;
    if (!st) st = &own;
    memset(st, 0, sizeof *st);
    if (!o->no_peephole) {
        double t0 = tine_now();
        tine_peep_opts po = {.contract = o->contract};
        if (!tine_peephole(p, &po, st)) return false;
        if (rep) {
            tine_tprog_report_line(rep, "peephole", p, (tine_now() - t0) * 1e3);
            tine_buf_printf(rep, "          rewrites:");
            for (int k = 0; k < st->passes; k++) tine_buf_printf(rep, " %s %d", st->pass_name[k], st->pass_rewrites[k]);
            tine_buf_printf(rep, "; folded %d, copies %d, redundant %d, lane moves %d\n", st->folded, st->copies,
                            st->redundant, st->lane_moves);
        }
    }
    if (!o->no_schedule) {
        double t0 = tine_now();
        int nregs = o->nregs > 0 ? o->nregs : tine_tprog_nregs(p->ctx, p->target);
        if (!schedule(p, nregs, rep)) {
            if (!tine_error(p->ctx)) tine_set_internal_error(p->ctx, "the schedule of a target-level program is not a valid order");
            return false;
        }
        if (rep) tine_tprog_report_line(rep, "schedule", p, (tine_now() - t0) * 1e3);
    }
    return true;
}
