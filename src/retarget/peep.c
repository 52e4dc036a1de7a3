/* peep.c — values selected for the target put through the target-level optimizer before
 * they are written: the peephole's passes on the program the values make (their leaves its
 * inputs), and the rewritten values back.
 *
 * Retargeting is bit-exact, so the contract pass stays off: a source that calls a multiply
 * and an add rounds twice, and so must its rewrite. No schedule either: the C emitter
 * writes a value where the source needs it, reusing what an earlier value computed, and
 * that order is the statements', not the program's.
 */
#include "retarget.h"

#include "../peephole/optimize.h"

bool tine_retarget_optimize(tine_ctx_t *ctx, const char *to, int n, tine_expr_t **values, tine_peep_stats *st) {
    tine_tprog *p = tine_tprog_of(ctx, to, n, NULL, values);
    tine_tprog_opt o = {.no_schedule = true, .contract = false};
    bool ok = tine_tprog_optimize(p, &o, st, NULL);
    for (int k = 0; k < n && ok; k++) values[k] = p->outs[k].value;
    tine_tprog_free(p);
    return ok;
}
