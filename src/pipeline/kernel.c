/* kernel.c — the front half's own small steps (front.h), the kernel for a target, and the
 * calls that print and free a kernel; the compile driver (driver/compile.c) runs the
 * steps in order. The steps themselves live in the files front.h names; a kernel's
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

bool tine_front_retries(const tine_kernel_t *kn, int level) { return kn->ast.auto_sched && level == 0; }

int tine_front_non(const tine_kernel_t *k) { return k->ast.non; }
const char *tine_front_on_isa(const tine_kernel_t *k, int i) { return k->ast.on[i].isa; }

void tine_front_add_variant(tine_kernel_t *k, int i, tine_kernel_t *v) {
    k->isa[k->nvariants] = k->ast.on[i].isa;
    k->variant[k->nvariants++] = v;
}

/* ---- the kernel for a target ----------------------------------------------------------- */

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
    free(k->calls);
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
