/* peephole.c — the peephole optimizer's engine: the rule file split into passes, each
 * pass run over the program's values to a fixpoint, and the sequence of passes repeated
 * until none changes anything.
 *
 * A pass is committed choice, as FFTW-GEL's: at each node the first rule (in the file's
 * order) whose pattern matches and whose right side the target has is applied, and the
 * result is rewritten again; nothing is undone. Termination is the rules' property (each
 * pass's rules only remove instructions or trade one for a cheaper one); a pass that
 * keeps firing past its round limit is reported as the bug it is.
 */
#include "peephole.h"

#include "../rules/rules.h"

extern const char tine_x86_peep_text[], tine_x86_peep_file[], tine_arm_peep_text[], tine_arm_peep_file[];
extern const char tine_common_peep_text[], tine_common_peep_file[];

/* The rule files of an instruction set, in the order their passes run: the rules of
 * generic ops every target shares (common.peep: lane moves), then the set's own. */
static int peep_sources(const char *isa, const char **text, const char **file) {
    const char *own = NULL, *own_file = NULL;
    if (!strcmp(isa, "x86")) own = tine_x86_peep_text, own_file = tine_x86_peep_file;
    if (!strcmp(isa, "arm")) own = tine_arm_peep_text, own_file = tine_arm_peep_file;
    if (!own) return 0;
    text[0] = tine_common_peep_text, file[0] = tine_common_peep_file;
    text[1] = own, file[1] = own_file;
    return 2;
}

/* A line `pass NAME [contract|lacking]...`: the name's span, and its flags. */
static bool pass_line(const char *s, const char *end, const char **name, int *nlen, bool *contract, bool *lacking) {
    if (end - s < 5 || strncmp(s, "pass ", 5)) return false;
    s += 5;
    while (s < end && *s == ' ') s++;
    *name = s;
    while (s < end && *s != ' ' && *s != '#') s++;
    *nlen = (int)(s - *name);
    *contract = *lacking = false;
    for (;;) {
        while (s < end && *s == ' ') s++;
        if (s >= end || *s == '#') break;
        const char *w = s;
        while (s < end && *s != ' ') s++;
        if (s - w == 8 && !strncmp(w, "contract", 8)) *contract = true;
        if (s - w == 7 && !strncmp(w, "lacking", 7)) *lacking = true;
    }
    return *nlen > 0;
}

/* The text with every line that is not pass k's rule (or, k < 0, every `pass` line)
 * blanked, so that line numbers stay the file's. */
static char *pass_text(const char *text, int k, char *name, size_t namecap, bool *contract, bool *lacking,
                       int *npasses) {
    size_t len = strlen(text);
    char *out = tine_xmalloc(len + 1);
    int cur = -1;
    *npasses = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        const char *nm;
        int nl;
        bool c, l;
        bool is_pass = pass_line(text + i, text + j, &nm, &nl, &c, &l);
        if (is_pass) {
            cur = (*npasses)++;
            if (cur == k && name) {
                snprintf(name, namecap, "%.*s", nl, nm);
                *contract = c;
                *lacking = l;
            }
        }
        bool keep = !is_pass && (k < 0 || cur == k);
        for (size_t q = i; q < j; q++) out[q] = keep ? text[q] : ' ';
        if (j < len) out[j] = '\n';
        i = j + 1;
    }
    out[len] = 0;
    return out;
}

char *tine_peephole_pass(const char *isa, int k, const char **file, char *name, size_t namecap, bool *contract,
                         bool *lacking) {
    const char *texts[2], *files[2];
    int ns = peep_sources(isa, texts, files);
    for (int i = 0; i < ns; i++) {
        int np;
        char *t = pass_text(texts[i], k, name, namecap, contract, lacking, &np);
        if (k < np) {
            *file = files[i];
            return t;
        }
        free(t);
        k -= np;
    }
    return NULL;
}

/* ---- one pass --------------------------------------------------------------------- */

typedef struct {
    tine_tprog *p;
    const tine_ruleset_t *rs;
    bool lacking;
    tine_rewrite_memo memo;
    uint8_t *had; /* node id -> a value of the program before this round */
    uint32_t nhad;
    int fired, depth;
    bool runaway;
    tine_peep_stats *st;
} pass_run;

static bool had(const pass_run *r, const tine_expr_t *e) { return e->id < r->nhad && r->had[e->id]; }

/* Whether the target has every instruction r adds (the nodes above `below`: the matched
 * values are the program's, and so are any older nodes). */
static double avail_cost(void *user, const tine_expr_t *e, const tine_expr_t *r) {
    pass_run *run = user;
    tine_ctx_t *ctx = run->p->ctx;
    if (run->lacking && !(e->op == TINE_OP_INSN && tine_lower_node_cost(ctx, run->p->target, e) < 0)) return -1;
    const tine_expr_t *stack[64];
    int sp = 0;
    stack[sp++] = r;
    while (sp) {
        const tine_expr_t *x = stack[--sp];
        if (x->id <= e->id) continue;
        if (x->op == TINE_OP_INSN && tine_lower_node_cost(ctx, run->p->target, x) < 0) return -1;
        for (int k = 0; k < x->nops && sp < 64; k++) stack[sp++] = x->ops[k];
    }
    return 0;
}

static bool is_operand_of(const tine_expr_t *r, const tine_expr_t *e) {
    /* a rule's right side that is one of its wildcards is one of the matched subterms */
    const tine_expr_t *stack[64];
    int sp = 0;
    stack[sp++] = e;
    while (sp) {
        const tine_expr_t *x = stack[--sp];
        if (x == r) return true;
        for (int k = 0; k < x->nops && sp < 64; k++)
            if (x->ops[k]->id >= r->id) stack[sp++] = x->ops[k];
    }
    return false;
}

static void count_rule(tine_peep_stats *st, const tine_ruleset_t *rs, const tine_rule *used) {
    const char *name = "?";
    tine_rule_info(rs, used->index, &name, NULL, NULL, NULL);
    for (int i = 0; i < st->nfired; i++)
        if (!strcmp(st->fired[i], name)) {
            st->fired_counts[i]++;
            return;
        }
    if (st->nfired < 64) {
        snprintf(st->fired[st->nfired], sizeof st->fired[0], "%s", name);
        st->fired_counts[st->nfired++] = 1;
    }
}

static tine_expr_t *fold_const(tine_ctx_t *ctx, tine_expr_t *n) {
    if (n->nops == 0 || n->op == TINE_OP_CONST) return NULL;
    for (int k = 0; k < n->nops; k++)
        if (n->ops[k]->op != TINE_OP_CONST) return NULL;
    uint64_t lanes[TINE_MAX_LANES];
    tine_env_t *env = tine_env_new(ctx);
    int rc = tine_eval(ctx, n, env, lanes);
    tine_env_free(env);
    if (rc != 0) return NULL;
    return tine_const_lanes(ctx, n->type, lanes);
}

static bool is_lane_move(const tine_expr_t *e) {
    return e->op == TINE_OP_CONCAT || e->op == TINE_OP_SLICE || e->op == TINE_OP_INTERLEAVE ||
           e->op == TINE_OP_DEINTERLEAVE || e->op == TINE_OP_BROADCAST;
}

/* The form the swap rules match: a lane move (or chain of them) whose lanes, traced
 * through the moves to the values they come from (tine_lane_source: the ops' own
 * definitions), are the even or the odd lanes of a value P of its own type in its even
 * lanes and those of Q in its odd ones -- interleave(deinterleave(P, 2, i), deinterleave(Q,
 * 2, j)): a swap of pairs (P = Q, i = 1, j = 0), FFTW-GEL's unpacks (the x86 unpcklpd and
 * unpckhpd), or P itself (a copy). Sources write these permutations many ways (retargeted
 * code: a concat of one-lane slices); NULL where n is not such a move or has that form. */
static tine_expr_t *lane_canon(tine_ctx_t *ctx, tine_expr_t *n) {
    int lanes = n->type.lanes;
    if (!is_lane_move(n) || lanes < 2 || lanes % 2 || lanes > TINE_MAX_LANES) return NULL;
    const tine_expr_t *src[2] = {NULL, NULL};
    int k[2] = {0, 0};
    for (int i = 0; i < lanes; i++) {
        const tine_expr_t *s = n;
        int l = i;
        while (is_lane_move(s)) {
            int j, m;
            if (!tine_lane_source(s, l, &j, &m)) return NULL;
            s = s->ops[j];
            l = m;
        }
        int par = i % 2, base = i - par; /* lane i reads lane base + k[par] of src[par] */
        if (i < 2) {
            if (!tine_type_eq(s->type, n->type) || l - base < 0 || l - base > 1) return NULL;
            src[par] = s, k[par] = l - base;
        } else if (s != src[par] || l != base + k[par]) {
            return NULL;
        }
    }
    tine_expr_t *p = (tine_expr_t *)src[0], *q = (tine_expr_t *)src[1];
    if (p == q && k[0] == 0 && k[1] == 1) return p;
    tine_expr_t *halves[2] = {tine_deinterleave(ctx, p, 2, k[0]), tine_deinterleave(ctx, q, 2, k[1])};
    tine_expr_t *r = tine_interleave(ctx, 2, halves);
    return r == n ? NULL : r;
}

static tine_expr_t *rewrite_root(void *user, tine_expr_t *n, tine_expr_t *orig) {
    (void)orig;
    pass_run *r = user;
    tine_ctx_t *ctx = r->p->ctx;
    if (r->runaway) return n; /* a chain that does not end: stop rewriting, report it */
    tine_expr_t *c = fold_const(ctx, n);
    if (c) {
        if (r->st) r->st->folded++;
        r->fired++;
        return c;
    }
    const tine_rule *used = NULL;
    tine_expr_t *x = tine_rules_try_cost(ctx, r->rs, n, avail_cost, r, &used);
    if (!x || x == n) {
        used = NULL;
        x = lane_canon(ctx, n);
        if (!x) return n;
    }
    r->fired++;
    if (r->st && !used) r->st->lane_moves++;
    else if (r->st) {
        count_rule(r->st, r->rs, used);
        if (is_operand_of(x, n)) r->st->copies++;
        else if (had(r, x)) r->st->redundant++;
    }
    if (++r->depth > 64) { /* a rule chain that does not end */
        r->runaway = true;
        r->depth--;
        return x;
    }
    tine_expr_t *y = tine_rewrite_dag(ctx, &r->memo, x, rewrite_root, r);
    r->depth--;
    return y;
}

/* One round of a pass over every output; returns how many rewrites it made. */
static int pass_round(tine_tprog *p, const tine_ruleset_t *rs, bool lacking, tine_peep_stats *st, bool *runaway) {
    pass_run r = {.p = p, .rs = rs, .lacking = lacking, .st = st};
    r.nhad = 0;
    for (int i = 0; i < p->n; i++)
        if (p->order[i].e->id >= r.nhad) r.nhad = p->order[i].e->id + 1;
    r.had = tine_xcalloc(r.nhad ? r.nhad : 1, 1);
    for (int i = 0; i < p->n; i++) r.had[p->order[i].e->id] = 1;
    for (int i = 0; i < p->nouts; i++) p->outs[i].value = tine_rewrite_dag(p->ctx, &r.memo, p->outs[i].value, rewrite_root, &r);
    free(r.memo.v);
    free(r.had);
    *runaway = r.runaway;
    return r.fired;
}

/* How many of old's values (node ids) p no longer computes. */
static int dropped(const tine_tprog *p, const uint32_t *old, int nold) {
    uint32_t lim = 0;
    for (int i = 0; i < p->n; i++)
        if (p->order[i].e->id >= lim) lim = p->order[i].e->id + 1;
    uint8_t *in = tine_xcalloc(lim ? lim : 1, 1);
    for (int i = 0; i < p->n; i++) in[p->order[i].e->id] = 1;
    int k = 0;
    for (int i = 0; i < nold; i++) k += old[i] >= lim || !in[old[i]];
    free(in);
    return k;
}

static int values(const tine_tprog *p) {
    int k = 0;
    for (int i = 0; i < p->n; i++) k += p->order[i].store < 0 && p->order[i].e->nops > 0;
    return k;
}

/* The passes of rule files, compiled: a pass's rule set, flags, file and name. */
typedef struct {
    int n;
    tine_ruleset_t *rs[TINE_PEEP_MAX_PASSES];
    bool contract[TINE_PEEP_MAX_PASSES], lacking[TINE_PEEP_MAX_PASSES];
    const char *file[TINE_PEEP_MAX_PASSES];
    char name[TINE_PEEP_MAX_PASSES][32];
} passes;

static void passes_free(passes *ps) {
    for (int k = 0; k < ps->n; k++) tine_rules_free(ps->rs[k]);
    ps->n = 0;
}

/* false with an error (ps then holds nothing) */
static bool passes_compile(tine_ctx_t *ctx, const char *const *texts, const char *const *files, int ns, passes *ps) {
    ps->n = 0;
    for (int i = 0; i < ns; i++) {
        int n;
        free(pass_text(texts[i], -1, NULL, 0, NULL, NULL, &n));
        for (int k = 0; k < n; k++) {
            if (ps->n == TINE_PEEP_MAX_PASSES) {
                tine_set_internal_error(ctx, "%s: more than %d peephole passes", files[i], TINE_PEEP_MAX_PASSES);
                passes_free(ps);
                return false;
            }
            int n2, j = ps->n;
            char *t = pass_text(texts[i], k, ps->name[j], sizeof ps->name[j], &ps->contract[j], &ps->lacking[j], &n2);
            ps->rs[j] = tine_rules_compile_kind(ctx, t, files[i], true);
            free(t);
            ps->file[j] = files[i];
            if (!ps->rs[j]) {
                passes_free(ps);
                return false;
            }
            ps->n++;
        }
    }
    return true;
}

/* The instruction sets' own passes, compiled once per context: a producer that optimizes
 * many small programs (tine retarget: one a value it writes) pays for the rules once. */
typedef struct {
    char isa[8][16];
    passes ps[8];
    int n;
} peep_cache;

static void cache_free(tine_ctx_t *ctx, void *state) {
    (void)ctx;
    peep_cache *c = state;
    for (int i = 0; i < c->n; i++) passes_free(&c->ps[i]);
    free(c);
}

static const passes *isa_passes(tine_ctx_t *ctx, const char *isa) {
    peep_cache *c = tine_layer_make(ctx, TINE_LAYER_PEEPHOLE, sizeof *c, cache_free);
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->isa[i], isa)) return &c->ps[i];
    const char *texts[2], *files[2];
    int ns = peep_sources(isa, texts, files);
    passes ps;
    if (!passes_compile(ctx, texts, files, ns, &ps)) return NULL;
    if (c->n == 8 || strlen(isa) >= sizeof c->isa[0]) { /* not kept: never for the sets tine has */
        passes_free(&ps);
        tine_set_internal_error(ctx, "peephole: too many instruction sets to keep compiled");
        return NULL;
    }
    snprintf(c->isa[c->n], sizeof c->isa[0], "%s", isa);
    c->ps[c->n] = ps;
    return &c->ps[c->n++];
}

static bool run(tine_tprog *p, const tine_peep_opts *o, const passes *ps, tine_peep_stats *st);

bool tine_peephole(tine_tprog *p, const tine_peep_opts *o, tine_peep_stats *st) {
    const tine_isa *isa = NULL;
    tine_target_features(p->ctx, p->target, &isa);
    if (!isa) return false;
    const passes *ps = isa_passes(p->ctx, isa->name);
    return ps && run(p, o, ps, st);
}

bool tine_peephole_with(tine_tprog *p, const tine_peep_opts *o, const char *text, const char *file,
                        tine_peep_stats *st) {
    passes ps;
    if (!passes_compile(p->ctx, &text, &file, text ? 1 : 0, &ps)) return false;
    bool ok = run(p, o, &ps, st);
    passes_free(&ps);
    return ok;
}

static bool run(tine_tprog *p, const tine_peep_opts *o, const passes *ps, tine_peep_stats *st) {
    tine_ctx_t *ctx = p->ctx;
    tine_peep_stats local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    st->before = values(p);
    int np = ps->n;
    for (int k = 0; k < np; k++) memcpy(st->pass_name[k], ps->name[k], sizeof st->pass_name[k]);
    st->passes = np;
    bool ok = true;
    int max_rounds = o && o->max_rounds > 0 ? o->max_rounds : 32;
    enum { MAX_SWEEPS = 8 };
    for (int sweep = 0; ok; sweep++) {
        if (sweep == MAX_SWEEPS) { /* passes that keep undoing each other */
            tine_set_internal_error(ctx, "%s: the peephole passes still rewrite after %d sweeps (two passes undo "
                                         "each other's rewrites)", np ? ps->file[np - 1] : "?", MAX_SWEEPS);
            ok = false;
            break;
        }
        int sweep_fired = 0;
        for (int k = 0; k < np && ok; k++) {
            if (ps->contract[k] && !(o && o->contract)) continue;
            for (int round = 0;; round++) {
                if (round == max_rounds) {
                    tine_set_internal_error(ctx,
                                   "%s: peephole pass `%s` still rewriting after %d rounds (its rules do not terminate)",
                                   ps->file[k], ps->name[k], max_rounds);
                    ok = false;
                    break;
                }
                bool runaway = false;
                uint32_t *old = tine_xmalloc(sizeof *old * ((size_t)p->n + 1));
                int nold = 0;
                for (int i = 0; i < p->n; i++)
                    if (p->order[i].store < 0 && p->order[i].e->nops > 0) old[nold++] = p->order[i].e->id;
                int fired = pass_round(p, ps->rs[k], ps->lacking[k], st, &runaway);
                tine_tprog_reorder(p);
                st->dead += dropped(p, old, nold);
                free(old);
                st->pass_rewrites[k] += fired;
                st->pass_rounds[k]++;
                sweep_fired += fired;
                if (runaway) {
                    tine_set_internal_error(ctx, "%s: peephole pass `%s`: a chain of rewrites that does not end",
                                   ps->file[k], ps->name[k]);
                    ok = false;
                }
                if (!fired || !ok) break;
            }
        }
        if (!sweep_fired) break;
    }
    st->after = values(p);
    return ok;
}
