/* kernel_on.c — functions and directives for some targets alone (`on arm`, `on avx512`).
 *
 * A kernel may define a function again, or add functions and schedule directives, for
 * some targets: what follows a line `on NAME` (up to the next `on` line, `schedule`, or
 * the end) is for the targets NAME names alone; `on all` returns to every target. NAME is
 *   - an instruction-set description (`on x86`, `on arm`): all its targets;
 *   - a level, the part of a target's name after its architecture (`on sse41`, `on avx2`,
 *     `on avx512`, `on dotprod`, `on i8mm`): that target and every target that has all
 *     its features (`on avx2` is for avx512 too);
 *   - a feature of a target, dots left out (`on avx512vnni`, `on sse41`, `on rdm`): the
 *     targets that have it.
 * Several sections can apply to one target; they apply from the least specific (the
 * description) to the most (the level or feature with the most features below it, the
 * file's order between equals), and a later one's function or directive replaces an
 * earlier one's. The kernel is checked and elaborated once for every target (the
 * definitions outside any `on` region, `natural` 256 bits) and once more for each
 * different pair of `natural` width and sections that a target has (tine_kernel_on_key).
 * The definitions must compute the same values — a different algebra for a different
 * instruction set (BENCHMARKS.md: "on dot-product targets the sum expands to 8-bit
 * products plus row/column sums"), not another algorithm: the interpreter runs the
 * every-target definitions, and the compiled code of each target is compared with it and
 * with the kernels' C references.
 */
#include <limits.h>

#include "../ir/ast.h"
#include "../targets/targets.h"

/* A listed row with a fixed feature list (not the host, not an alias). */
static bool fixed_row(const tine_target_info *r) { return r->features && !r->alias_of && !r->unlisted; }

/* Its level: the name after the architecture ("x86-64-avx512": "avx512"), or "". */
static const char *level_of(const tine_target_info *r) {
    const char *p = strchr(r->name, '-');
    p = p ? strchr(p + 1, '-') : NULL;
    return p ? p + 1 : "";
}

/* Whether word (no dots) is in the space-separated feature list fs (dots left out), and
 * its 1-based place there; 0 if not. */
static int feature_place(const char *fs, const char *word) {
    int place = 0;
    for (const char *p = fs; p && *p;) {
        size_t n = strcspn(p, " ");
        place++;
        const char *w = word;
        size_t i = 0;
        for (; i < n; i++) {
            if (p[i] == '.') continue;
            if (*w != p[i]) break;
            w++;
        }
        if (i == n && !*w) return place;
        p += n + (p[n] == ' ');
    }
    return 0;
}

/* How many features of list fs; whether every one is in gs. */
static int features_in(const char *fs, const char *gs, bool *all) {
    int n = 0;
    *all = true;
    for (const char *p = fs; *p;) {
        size_t len = strcspn(p, " ");
        char w[32] = "";
        for (size_t i = 0, o = 0; i < len && o + 1 < sizeof w; i++)
            if (p[i] != '.') w[o++] = p[i];
        *all &= feature_place(gs, w) > 0;
        n++;
        p += len + (p[len] == ' ');
    }
    return n;
}

/* How specific section name is for fixed row t (0: its description; more: more of its
 * features), or -1 where it does not apply. */
static int section_rank(const char *name, const tine_target_info *t) {
    if (!strcmp(name, t->isa)) return 0;
    int rank = -1;
    for (int i = 0; tine_target_at(i); i++) {
        const tine_target_info *r = tine_target_at(i);
        bool all;
        if (fixed_row(r) && !strcmp(r->isa, t->isa) && !strcmp(level_of(r), name)) {
            int n = features_in(r->features, t->features, &all);
            if (all && n > rank) rank = n;
        }
    }
    int place = feature_place(t->features, name); /* 0: not a feature of t */
    return place > 0 && place > rank ? place : rank;
}

/* Appends word to list b (", "-separated) unless it is there. */
static void add_word(tine_buf *b, const char *w, size_t n) {
    for (const char *p = b->p; p && *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !memcmp(p, w, n)) return;
        p += m + (p[m] == ',' ? 2 : 0);
    }
    tine_buf_printf(b, "%s%.*s", b->n ? ", " : "", (int)n, w);
}

/* Whether some target's description, level or feature is called name; else every such
 * name, by kind, into names. */
static bool known_name(const char *name, tine_buf *names) {
    bool found = false;
    tine_buf isas = {0}, levels = {0}, features = {0};
    for (int i = 0; tine_target_at(i); i++) {
        const tine_target_info *r = tine_target_at(i);
        if (!fixed_row(r)) continue;
        found |= section_rank(name, r) >= 0;
        add_word(&isas, r->isa, strlen(r->isa));
        if (*level_of(r)) add_word(&levels, level_of(r), strlen(level_of(r)));
        for (const char *p = r->features; *p;) {
            size_t n = strcspn(p, " ");
            char w[32];
            size_t o = 0;
            for (size_t j = 0; j < n && o + 1 < sizeof w; j++)
                if (p[j] != '.') w[o++] = p[j];
            add_word(&features, w, o);
            p += n + (p[n] == ' ');
        }
    }
    tine_buf_printf(names, "instruction sets: %s; levels: %s; features: %s", isas.p, levels.p, features.p);
    free(isas.p);
    free(levels.p);
    free(features.p);
    return found;
}

bool tine_kernel_on_check(tine_ctx_t *ctx, const tine_kernel_ast *k) {
    for (int i = 0; i < k->non; i++) {
        tine_buf names = {0};
        bool ok = known_name(k->on[i].isa, &names);
        if (!ok)
            tine_diag(ctx, k->src, k->on[i].line, k->on[i].col,
                      "on: no target has an instruction set, level or feature called '%s' (%s)", k->on[i].isa,
                      names.p);
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

void tine_kernel_on_key(const tine_kernel_ast *k, const char *target, tine_on_key *key) {
    const tine_target_info *t = tine_target_fixed(tine_target_find(target ? target : "host"));
    *key = (tine_on_key){.bits = t ? t->vector_bits : TINE_NATURAL_BITS};
    int rank[8];
    for (int i = 0; t && i < k->non; i++) {
        int r = section_rank(k->on[i].isa, t), at = key->n++;
        if (r < 0) {
            key->n--;
            continue;
        }
        while (at > 0 && rank[at - 1] > r) { /* stable: the file's order between equals */
            key->on[at] = key->on[at - 1];
            rank[at] = rank[at - 1];
            at--;
        }
        key->on[at] = k->on[i].isa;
        rank[at] = r;
    }
}

bool tine_on_key_eq(const tine_on_key *a, const tine_on_key *b) {
    if (a->bits != b->bits || a->n != b->n) return false;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->on[i], b->on[i])) return false;
    return true;
}

/* Where section on applies in key (-1: every target's; INT_MAX: not in key). */
static int place_in(const tine_on_key *key, const char *on) {
    if (!on) return -1;
    for (int i = 0; key && i < key->n; i++)
        if (!strcmp(key->on[i], on)) return i;
    return INT_MAX;
}

/* Whether directive b, for some targets, replaces a: the same directive on the same
 * function (and loop), as `vectorize out.k 16 acc 16` on arm replaces `vectorize out.k 16`. */
static bool replaces(const tine_kdirective *b, const tine_kdirective *a) {
    return a->kind == b->kind && a->func && b->func && !strcmp(a->func, b->func) &&
           (a->dim ? b->dim && !strcmp(a->dim, b->dim) : !b->dim);
}

/* The definitions and directives of k for key (NULL: every target's alone), in place:
 * each kept unless a later section of key replaces it. */
void tine_kernel_on_filter(tine_kernel_ast *k, const tine_on_key *key) {
    k->natural_bits = key ? key->bits : TINE_NATURAL_BITS;
    int n = 0;
    for (int i = 0; i < k->ndecls; i++) {
        const tine_kdecl *d = &k->decls[i];
        int at = place_in(key, d->on);
        bool keep = at != INT_MAX;
        for (int j = 0; keep && j < k->ndecls; j++) {
            int there = place_in(key, k->decls[j].on);
            keep = !(there != INT_MAX && there > at && !strcmp(k->decls[j].name, d->name));
        }
        if (keep) k->decls[n++] = *d;
    }
    k->ndecls = n;
    n = 0;
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        int at = place_in(key, s->on);
        bool keep = at != INT_MAX;
        for (int j = 0; keep && j < k->nsched; j++) {
            int there = place_in(key, k->sched[j].on);
            keep = !(there != INT_MAX && there > at && replaces(&k->sched[j], s));
        }
        if (keep) k->sched[n++] = *s;
    }
    k->nsched = n;
}
