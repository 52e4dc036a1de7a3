/* verify.c — the drivers of `tine verify` for kernels and for the interval rules (the
 * public entry points of tine.h; the rule proofs' driver is in prove.c). */
#include "bounds_check.h"
#include "tv.h"

int tine_verify_kernel_all(tine_ctx_t *ctx, const char *text, const char *file, const char *target,
                           unsigned timeout_ms, FILE *out) {
    /* errors before any output: the target, then the kernel */
    if (target && tine_target_runs_here(ctx, target) < 0) return -1;
    tine_kernel_t *k = tine_kernel_parse(ctx, text, file);
    if (!k) return -1;
    tine_kernel_free(k);
    tine_tv_totals all = {0};
    tine_tv_memo *memo = tine_tv_memo_new(); /* the targets mostly select the same pairs */
    int counter = 0;
    for (int i = 0;; i++) {
        const char *t = target ? (i ? NULL : target) : tine_target_name(ctx, i);
        if (!t) break;
        fprintf(out, "%s at %s:\n", file, t);
        tine_tv_totals one = {0};
        int rc = tine_verify_kernel(ctx, text, file, t, timeout_ms, out, &one, memo);
        if (rc < 0) {
            tine_tv_memo_free(memo);
            return -1;
        }
        counter += rc;
        tine_tv_add(&all, &one);
    }
    tine_tv_memo_free(memo);
    fprintf(out, "all targets: ");
    tine_tv_print_totals(out, &all, "", true);
    return counter;
}

/* The run is bounded as a whole too: it may take as long as one query's limit per
 * interval tuple (at least BOUNDS_MIN_SECONDS), said before it starts; what the deadline
 * leaves unchecked is counted as skipped, never as passed. */
enum { BOUNDS_MIN_SECONDS = 10 };

int tine_verify_bounds_all(tine_ctx_t *ctx, int quick, unsigned timeout_ms, FILE *out) {
    tine_verify_bounds_opts o = {.scale = quick ? TINE_VERIFY_BOUNDS_QUICK : 1, .timeout_ms = timeout_ms, .plan_only = true};
    tine_verify_bounds_totals t = {0};
    if (tine_verify_bounds(ctx, &o, out, &t) < 0) return -1;
    double limit = (double)t.planned * timeout_ms / 1000;
    o.deadline_seconds = limit > BOUNDS_MIN_SECONDS ? limit : BOUNDS_MIN_SECONDS;
    o.plan_only = false;
    fprintf(out,
            "bounds: %ld cases, %ld interval tuples, up to 2 queries each of at most %u ms; the run stops after %.0f s "
            "(one query's limit per tuple, at least %d s), what is left counted as skipped\n",
            t.cases, t.planned, timeout_ms, o.deadline_seconds, BOUNDS_MIN_SECONDS);
    return tine_verify_bounds(ctx, &o, out, &t);
}
