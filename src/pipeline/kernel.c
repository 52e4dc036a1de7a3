/* kernel.c — a kernel from its .tine text: the front half's steps (front.h) run in order,
 * once per instruction set the file's `on` lines name; the public calls that make, print
 * and free a kernel. The steps themselves live in the files front.h names; a kernel's
 * accessors in kernel_access.c and kernel_scalars.c. */
#include "front.h"
#include "kernel.h"
#include "../targets/targets.h"

/* ---- the steps this file owns ------------------------------------------------------------- */

tine_kernel_t *tine_front_new(tine_ctx_t *ctx) {
    tine_kernel_t *kn = tine_xcalloc(1, sizeof *kn);
    kn->ctx = ctx;
    return kn;
}

bool tine_front_parse(tine_kernel_t *kn, const char *text, const char *file) {
    return tine_parse_kernel(kn->ctx, &kn->arena, text, file, &kn->ast) == 0;
}

bool tine_front_on(tine_kernel_t *kn, const char *isa) {
    if (!tine_kernel_on_check(kn->ctx, &kn->ast)) return false;
    tine_kernel_on_filter(&kn->ast, isa);
    return true;
}

bool tine_front_slide(tine_kernel_t *kn) {
    return tine_kernel_slide(kn->ctx, &kn->ast, kn->stages, kn->sdecl, kn->nstages);
}

/* ---- the front half, in order ---------------------------------------------------------- */

/* A kernel from its text, for instruction set isa (NULL: every target's). Under schedule
 * auto, a choice the checks refuse (a sliding window or a vectorized reduction whose
 * conditions the scheduler did not foresee) is not the user's error: the kernel is made
 * again with the plainer directives only (level 1), and an error then is the kernel's own. */
static tine_kernel_t *parse_for(tine_ctx_t *ctx, const char *text, const char *file, const char *isa) {
    for (int level = 0; level < 2; level++) {
        tine_kernel_t *kn = tine_front_new(ctx);
        if (!tine_front_parse(kn, text, file) ||
            !tine_front_on(kn, isa)) {
            tine_kernel_free(kn);
            return NULL;
        }
        if (tine_front_check(kn) &&
            tine_front_schedule(kn, level) &&
            tine_front_elaborate(kn) &&
            tine_front_slide(kn) &&
            tine_front_unrolled_limit(kn) &&
            tine_front_scalars(kn))
            return kn;
        bool retry = kn->ast.auto_sched && level == 0;
        tine_kernel_free(kn);
        if (!retry) return NULL;
    }
    return NULL;
}

/* The kernel for every target, with one more per instruction set its `on` lines name. */
static tine_kernel_t *kernel_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *k = parse_for(ctx, text, file, NULL);
    for (int i = 0; k && i < k->ast.non; i++) {
        tine_kernel_t *v = parse_for(ctx, text, file, k->ast.on[i].isa);
        if (!v) {
            tine_kernel_free(k);
            return NULL;
        }
        k->isa[k->nvariants] = k->ast.on[i].isa;
        k->variant[k->nvariants++] = v;
    }
    return k;
}

tine_kernel_t *tine_kernel_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *k;
    TINE_GUARD(ctx, NULL, k, kernel_parse(ctx, text, file));
    return k;
}

tine_kernel_t *tine_kernel_parse_common(tine_ctx_t *ctx, const char *text, const char *file) {
    return parse_for(ctx, text, file, NULL);
}

int tine_kernel_has_own(const tine_kernel_t *k, const char *target) {
    return tine_kernel_for_target((tine_kernel_t *)k, target) != k;
}

tine_kernel_t *tine_kernel_for_target(tine_kernel_t *k, const char *target) {
    const tine_target_info *t = k ? tine_target_find(target ? target : "host") : NULL;
    for (int i = 0; t && i < k->nvariants; i++)
        if (!strcmp(k->isa[i], t->isa)) return k->variant[i];
    return k;
}

void tine_kernel_free(tine_kernel_t *k) {
    if (!k) return;
    for (int i = 0; i < k->nvariants; i++) tine_kernel_free(k->variant[i]);
    for (int i = 0; i < k->cap; i++) {
        free(k->stages[i].reds.v);
        free(k->stages[i].reds1.v);
        for (int j = 0; j < k->stages[i].nrvec; j++) {
            free(k->stages[i].rvec[j].vec.v);
            free(k->stages[i].rvec[j].tail.v);
        }
        free(k->stages[i].rvec);
    }
    free(k->stages);
    free(k->sdecl);
    free(k->ks);
    tine_arena_free(&k->arena);
    free(k->reach);
    free(k);
}

static char *print_stages(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    if (target) k = tine_kernel_for_target(k, target);
    tine_buf b = {0};
    int scope = tine_bounds_open(k->ctx, true); /* as compiled: no run's facts */
    for (int s = 0; s < k->nstages; s++) {
        const tine_stage *st = &k->stages[s];
        tine_expr_t *e = sel == TINE_SELECT_TINE && !target ? tine_lift(k->ctx, st->body) /* FPIR, before lowering */
                                                            : tine_select_expr(k->ctx, st->body, sel, target);
        if (!e) {
            tine_bounds_close(k->ctx, scope);
            free(b.p);
            return NULL;
        }
        char *p = tine_print(k->ctx, e);
        tine_buf_printf(&b, "# stage %s (%d lanes, %s)%s\n%s\n", st->name, st->lanes,
                        s == k->nstages - 1 ? "the output" : "materialized",
                        st->reds.n ? "; its loop reductions' results are $.redN" : "", p);
        free(p);
    }
    tine_bounds_close(k->ctx, scope);
    return b.p;
}

char *tine_kernel_print_stages(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    char *text;
    TINE_GUARD(k->ctx, NULL, text, print_stages(k, sel, target));
    return text;
}

char *tine_kernel_print_schedule(const tine_kernel_t *k) {
    tine_buf b = {0};
    tine_schedule_print(&k->ast, &b);
    for (int i = 0; i < k->nvariants; i++) { /* each instruction set's own directives, if any */
        tine_buf own = {0};
        tine_schedule_print_on(&k->variant[i]->ast, k->isa[i], &own);
        if (own.p) tine_buf_printf(&b, "on %s\n%s", k->isa[i], own.p);
        free(own.p);
    }
    return b.p;
}
