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

bool tine_front_on(tine_kernel_t *kn, const tine_on_key *key) {
    if (!tine_kernel_on_check(kn->ctx, &kn->ast)) return false;
    if (!key && kn->ast.non) { /* every section's directives, for the printed schedule */
        kn->nwritten = kn->ast.nsched;
        kn->written = tine_xcalloc((size_t)kn->nwritten + 1, sizeof *kn->written);
        if (kn->nwritten) memcpy(kn->written, kn->ast.sched, (size_t)kn->nwritten * sizeof *kn->written);
    }
    tine_kernel_on_filter(&kn->ast, key);
    return true;
}

bool tine_front_slide(tine_kernel_t *kn) {
    return tine_kernel_slide(kn->ctx, &kn->ast, kn->stages, kn->sdecl, kn->nstages);
}

bool tine_front_retries(const tine_kernel_t *kn, int level) { return kn->ast.auto_sched && level == 0; }

/* The every-target kernel's key. */
static const tine_on_key common_key = {.bits = TINE_NATURAL_BITS};

int tine_front_keys(const tine_kernel_t *k, const char *target, tine_on_key *keys) {
    int n = 0;
    for (int i = 0; n < 8 && (target ? i == 0 : tine_target_at(i) != NULL); i++) {
        const tine_target_info *t = target ? NULL : tine_target_at(i);
        if (t && t->alias_of) continue;
        tine_on_key key;
        tine_kernel_on_key(&k->ast, target ? target : t->name, &key);
        bool have = tine_on_key_eq(&key, &common_key);
        for (int j = 0; j < n && !have; j++) have = tine_on_key_eq(&key, &keys[j]);
        if (!have) keys[n++] = key;
    }
    return n;
}

void tine_front_add_variant(tine_kernel_t *k, const tine_on_key *key, tine_kernel_t *v) {
    k->key[k->nvariants] = *key;
    k->variant[k->nvariants++] = v;
    v->variant_of_key = true;
}

/* ---- the kernel for a target ----------------------------------------------------------- */

int tine_kernel_has_own(const tine_kernel_t *k, const char *target) {
    return tine_kernel_for_target((tine_kernel_t *)k, target) != k;
}

tine_kernel_t *tine_kernel_for_target(tine_kernel_t *k, const char *target) {
    if (!k || !k->nvariants || (target && !tine_target_find(target))) return k;
    tine_on_key key;
    tine_kernel_on_key(&k->ast, target, &key);
    for (int i = 0; i < k->nvariants; i++)
        if (tine_on_key_eq(&key, &k->key[i])) return k->variant[i];
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
    free(k->written);
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
    if (k->variant_of_key) { /* one target's: every directive that applies, sections merged */
        tine_buf_puts(&b, "schedule\n");
        for (int i = 0; i < k->ast.nsched; i++) {
            tine_directive_print(&k->ast.sched[i], &b);
            tine_buf_puts(&b, "\n");
        }
        return b.p;
    }
    tine_schedule_print(&k->ast, &b);
    tine_kernel_ast written = k->ast;
    written.sched = k->written;
    written.nsched = k->nwritten;
    for (int i = 0; i < k->ast.non; i++) { /* each section's own directives, if any */
        tine_buf own = {0};
        tine_schedule_print_on(&written, k->ast.on[i].isa, &own);
        if (own.p) tine_buf_printf(&b, "on %s\n%s", k->ast.on[i].isa, own.p);
        free(own.p);
    }
    return b.p;
}
