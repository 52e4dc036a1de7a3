/* kernel_on.c — functions and directives for one instruction set (`on arm`).
 *
 * A kernel may define a function again, or add functions and schedule directives, for one
 * instruction set: what follows a line `on NAME` (up to the next `on` line, `schedule`,
 * or the end) is for the targets of description NAME alone; `on all` returns to every
 * target. The kernel is checked and elaborated once for every target (the definitions
 * outside any `on` region) and once per named instruction set, where a function of the
 * region replaces the one of the same name. The two must compute the same values — a
 * different algebra for a different instruction set (BENCHMARKS.md: "on dot-product
 * targets the sum expands to 8-bit products plus row/column sums"), not another
 * algorithm: the interpreter runs the every-target definitions, and the compiled code of
 * each target is compared with it and with the kernels' C references. A directive of the
 * region replaces the every-target one of the same kind on the same function and loop.
 */
#include "../ir/ast.h"
#include "../targets/targets.h"

/* Whether some target has description isa. */
static bool known_isa(const char *isa, tine_buf *names) {
    bool found = false;
    for (int i = 0; tine_target_at(i); i++) {
        const char *n = tine_target_at(i)->isa;
        found |= !strcmp(n, isa);
        bool seen = false;
        for (int j = 0; j < i; j++) seen |= !strcmp(tine_target_at(j)->isa, n);
        if (!seen) tine_buf_printf(names, "%s%s", names->n ? ", " : "", n);
    }
    return found;
}

bool tine_kernel_on_check(tine_ctx_t *ctx, const tine_kernel_ast *k) {
    for (int i = 0; i < k->non; i++) {
        tine_buf names = {0};
        bool ok = known_isa(k->on[i].isa, &names);
        if (!ok)
            tine_diag(ctx, k->src, k->on[i].line, k->on[i].col,
                      "on: no target has the instruction set '%s' (the instruction sets: %s)", k->on[i].isa,
                      names.p ? names.p : "");
        free(names.p);
        if (!ok) return false;
    }
    /* a directive for every target names a function that every target has (a kernel without
       `on` lines has nothing to check: no lookups per directive) */
    for (int i = 0; k->non && i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        const char *only = NULL;
        bool everywhere = false;
        for (int j = 0; s->func && !s->on && j < k->ndecls; j++)
            if (!strcmp(k->decls[j].name, s->func)) {
                everywhere |= !k->decls[j].on;
                if (k->decls[j].on) only = k->decls[j].on;
            }
        if (only && !everywhere) {
            tine_diag(ctx, s->src, s->line, s->col,
                      "%s: '%s' is defined on %s alone; write the directive after 'on %s' in the schedule", s->what,
                      s->func, only, only);
            return false;
        }
    }
    return true;
}

/* Whether directive b, for one instruction set, replaces a: the same directive on the same
 * function (and loop), as `vectorize out.k 16 acc 16` on arm replaces `vectorize out.k 16`. */
static bool replaces(const tine_kdirective *b, const tine_kdirective *a) {
    return a->kind == b->kind && a->func && b->func && !strcmp(a->func, b->func) &&
           (a->dim ? b->dim && !strcmp(a->dim, b->dim) : !b->dim);
}

/* The definitions and directives of k for isa (NULL: every target's alone), in place. */
void tine_kernel_on_filter(tine_kernel_ast *k, const char *isa) {
    int n = 0;
    for (int i = 0; i < k->ndecls; i++) {
        const tine_kdecl *d = &k->decls[i];
        bool keep = !d->on || (isa && !strcmp(d->on, isa));
        for (int j = 0; keep && !d->on && isa && j < k->ndecls; j++)
            keep = !(k->decls[j].on && !strcmp(k->decls[j].on, isa) && !strcmp(k->decls[j].name, d->name));
        if (keep) k->decls[n++] = *d;
    }
    k->ndecls = n;
    n = 0;
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        bool keep = !s->on || (isa && !strcmp(s->on, isa));
        for (int j = 0; keep && !s->on && isa && j < k->nsched; j++)
            keep = !(k->sched[j].on && !strcmp(k->sched[j].on, isa) && replaces(&k->sched[j], s));
        if (keep) k->sched[n++] = *s;
    }
    k->nsched = n;
}
