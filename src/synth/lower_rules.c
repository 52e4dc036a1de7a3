/* lower_rules.c — what `tine synth lower` writes: its proven rewrites as rule lines (one
 * rule in T for a rewrite found alike at several element types, each rule proven again by
 * the rule prover, as `tine verify --rules` proves a file), and a level's rules as a rule
 * set for the composition step (lower_synth.c). */
#include "synth.h"

#include "../verify/prove.h"

/* The target's short name in rule names: x86-64-avx2 -> avx2. */
static const char *short_name(const char *t) {
    const char *d = strrchr(t, '-');
    return d ? d + 1 : t;
}

static void rule_line(tine_buf *out, const char *name, const char *target, const char *lhs, const char *rhs,
                      const char *pred, int priority, int cost, int baseline) {
    tine_buf_printf(out, "%s: %s -> %s", name, lhs, rhs);
    if (pred[0]) tine_buf_printf(out, " if %s", pred);
    if (priority) tine_buf_printf(out, " priority %d", priority);
    tine_buf_printf(out, "  # %s: cost %.2f, generic %.2f; found by tine synth lower, proven with Z3\n", target,
                    cost / 4.0, baseline / 4.0);
}

/* Does the one rule of `line` prove for every instantiation (the rule prover, as
 * `tine verify --rules` runs it)? */
static bool proves(tine_ctx_t *ctx, const tine_synth_lower_opts *o, tine_synth_lower_stats *st, const char *line) {
    FILE *null = fopen("/dev/null", "w");
    tine_prove_opts po = {.timeout_ms = o->timeout_ms * 10, .quiet = true};
    tine_prove_totals t = {0};
    tine_saved_error saved = tine_error_save(ctx);
    int rc = null ? tine_prove_rules(ctx, line, "synthesized", true, &po, null, &t) : -1;
    tine_error_restore(ctx, &saved);
    if (null) fclose(null);
    bool ok = rc == 0 && t.counter == 0 && t.unknown == 0 && t.proven > 0;
    if (!ok) {
        st->unproven++;
        if (o->log) fprintf(o->log, "not proven by the rule prover, dropped: %s", line);
    }
    return ok;
}

/* Do a and b state one rewrite of one op at two element types (every variable of each
 * spec of one type, the right sides the same text)? */
static bool same_but_type(const synth_found *a, const synth_found *b) {
    const synth_spec *x = a->sp, *y = b->sp;
    if (strcmp(a->target, b->target) || strcmp(x->tmpl, y->tmpl) || strcmp(x->pred, y->pred) ||
        x->nvars != y->nvars || x->priority != y->priority || strcmp(a->rhs, b->rhs))
        return false;
    for (int k = 0; k < x->nvars; k++)
        if (!tine_type_eq(x->type[k], x->type[0]) || !tine_type_eq(y->type[k], y->type[0])) return false;
    return true;
}

/* The types of group g (indices into F) as a predicate on T; "" for all eight. */
static void type_pred(tine_buf *b, const synth_found *F, const int *g, int n) {
    int sg = 0, un = 0;
    for (int i = 0; i < n; i++) {
        if (F[g[i]].sp->type[0].kind == TINE_INT) sg++;
        else un++;
    }
    if (sg == 4 && un == 4) return;
    if (sg == 4 && !un) {
        tine_buf_puts(b, "is_signed(T)");
        return;
    }
    if (un == 4 && !sg) {
        tine_buf_puts(b, "is_unsigned(T)");
        return;
    }
    for (int i = 0; i < n; i++) {
        tine_type_t t = F[g[i]].sp->type[0];
        tine_buf_printf(b, "%s%s(T) && bits(T) == %d", i ? " || " : "", t.kind == TINE_INT ? "is_signed" : "is_unsigned",
                        t.bits);
    }
}

/* Does out have a rule of this name? */
static bool name_used(const tine_buf *out, const char *name) {
    size_t n = strlen(name);
    for (const char *p = out->p; p && (p = strstr(p, name)); p += n)
        if ((p == out->p || p[-1] == '\n') && p[n] == ':') return true;
    return false;
}

/* Writes the rules found: one rule general in T for a rewrite found alike at several
 * element types (proven for each; the types' own rules where it does not prove), else the
 * rule of each type; the same text found at several levels once. */
void synth_write_rules(tine_ctx_t *ctx, const tine_synth_lower_opts *o, tine_synth_lower_stats *st, tine_buf *out,
                       synth_found *F, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (F[i].done) continue;
        int g[8], ng = 0;
        for (size_t j = i; j < n && ng < 8; j++)
            if (!F[j].done && (j == i || same_but_type(&F[i], &F[j]))) g[ng++] = (int)j;
        const synth_spec *sp = F[i].sp;
        bool written = false;
        if (ng >= 2) {
            tine_buf lhs = {0}, pred = {0}, name = {0}, line = {0};
            synth_spec_pattern_generic(&lhs, sp);
            type_pred(&pred, F, g, ng);
            /* the types' disjunction in parentheses: && binds tighter than || */
            if (sp->pred[0] && pred.p && strstr(pred.p, "||")) {
                tine_buf p2 = {0};
                tine_buf_printf(&p2, "(%s) && %s", pred.p, sp->pred);
                free(pred.p);
                pred = p2;
            } else if (sp->pred[0]) {
                tine_buf_printf(&pred, "%s%s", pred.p ? " && " : "", sp->pred);
            }
            char tn[16];
            const char *ty = tine_type_name(tine_type_with_lanes(sp->type[0], 1), tn);
            const char *at = strstr(sp->name, ty);
            tine_buf_printf(&name, "s_%.*sT%s_%s", at ? (int)(at - sp->name) : (int)strlen(sp->name), sp->name,
                            at ? at + strlen(ty) : "", short_name(F[i].target));
            /* another group of types may have another rewrite of the op: a name each */
            size_t stem = strlen(name.p);
            for (int k = 2; name_used(out, name.p); k++) {
                name.p[stem] = 0;
                name.n = stem;
                tine_buf_printf(&name, "_%d", k);
            }
            int cost = F[i].cost, base = F[i].baseline;
            rule_line(&line, name.p, F[i].target, lhs.p, F[i].rhs, pred.p ? pred.p : "", sp->priority, cost, base);
            if (proves(ctx, o, st, line.p)) {
                bool dup = out->p && strstr(out->p, strchr(line.p, ':'));
                if (!dup) tine_buf_puts(out, line.p), st->rules++;
                for (int k = 0; k < ng; k++) F[g[k]].done = true;
                written = true;
            }
            free(lhs.p);
            free(pred.p);
            free(name.p);
            free(line.p);
        }
        if (written) continue;
        /* this type's own rule, unless an earlier level's says the same */
        tine_buf lhs = {0}, line = {0};
        synth_spec_pattern(&lhs, sp);
        char name[96];
        snprintf(name, sizeof name, "s_%s_%s", sp->name, short_name(F[i].target));
        rule_line(&line, name, F[i].target, lhs.p, F[i].rhs, sp->pred, sp->priority, F[i].cost, F[i].baseline);
        const char *body = strchr(line.p, ':');
        const char *hash = strstr(body, "  # ");
        tine_buf key = {0};
        tine_buf_printf(&key, "%.*s", (int)(hash - body), body);
        if (!(out->p && strstr(out->p, key.p)) && proves(ctx, o, st, line.p)) tine_buf_puts(out, line.p), st->rules++;
        F[i].done = true;
        free(key.p);
        free(lhs.p);
        free(line.p);
    }
}

/* The rules found at level t, each at its own type, as rule text. */
void synth_level_rules(tine_buf *out, const synth_found *F, size_t n, const char *t) {
    for (size_t i = 0; i < n; i++) {
        if (strcmp(F[i].target, t)) continue;
        tine_buf lhs = {0};
        synth_spec_pattern(&lhs, F[i].sp);
        char name[96];
        snprintf(name, sizeof name, "s_%s_%zu", F[i].sp->name, i);
        rule_line(out, name, t, lhs.p, F[i].rhs, F[i].sp->pred, F[i].sp->priority, F[i].cost, F[i].baseline);
        free(lhs.p);
    }
}

