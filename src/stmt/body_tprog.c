/* body_tprog.c — the peephole step: each innermost straight-line loop body of a selected
 * statement as a target-level program (body_tprog.h says which bodies and what the
 * program's inputs stand for), optimized by tine_tprog_optimize, and its outputs put back
 * into the stores.
 *
 * Why substituting back is exact: an optimized output equals the output it replaces for
 * every binding of the inputs (the peephole's rules are proven, folding uses the
 * interpreter), and it reads no input the output did not (rules bind their right side's
 * wildcards on the left). Each store computes its value where it stood, so a load put back
 * reads what the store's own load read there, even where a store before it in the body
 * wrote that buffer and the program took both loads for one input. Only an inlined let's
 * value moves (from the let to its readers), and only a let whose loads read no buffer the
 * body stores into is inlined.
 *
 * Bodies repeat (a vector loop and its last vector shifted back, the parts of a partitioned
 * loop): a body whose outputs, written over the stand-ins, are those of one optimized
 * before (the stand-ins are numbered in the order a body reads its loads, so equal bodies
 * give equal nodes) takes that program's result, loads of its own put back.
 */
#include "body_tprog.h"

#include "passes.h"

/* ---- which bodies --------------------------------------------------------------------- */

static bool straight_line(const tine_stmt *s) {
    switch (s->kind) {
    case TINE_S_STORE: return true;
    case TINE_S_LET: return straight_line(s->let.body);
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++)
            if (!straight_line(s->block.v[i])) return false;
        return true;
    default: return false;
    }
}

static bool stores_vector(const tine_stmt *s) {
    switch (s->kind) {
    case TINE_S_STORE: return s->store.value->type.lanes > 1;
    case TINE_S_LET: return stores_vector(s->let.body);
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++)
            if (stores_vector(s->block.v[i])) return true;
        return false;
    default: return false;
    }
}

static bool innermost_body(const tine_stmt *loop) { return straight_line(loop->loop.body) && stores_vector(loop->loop.body); }

/* ---- a body's program ------------------------------------------------------------------- */

typedef struct {
    tine_ctx_t *ctx;
    const tine_stmt *body;
    tine_tprog *prog;
    tine_expr_t **stands_for; /* per input */
    int cap_stands;
    tine_u64map to_prog;      /* node id -> its form over the inputs (this scope's) */
    tine_u64map stand;        /* load id -> its stand-in (a load means the same in every scope) */
    tine_u64map inline_val;   /* let variable id -> its inlined value over the inputs (0: none) */
    tine_u64map back;         /* node id -> its form with the loads back */
    int nloads;
} body_prog;

static bool stored_in(const tine_stmt *s, const char *buffer) {
    switch (s->kind) {
    case TINE_S_STORE: return !strcmp(s->store.buffer, buffer);
    case TINE_S_LET: return stored_in(s->let.body, buffer);
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++)
            if (stored_in(s->block.v[i], buffer)) return true;
        return false;
    default: return false;
    }
}

/* Whether e loads from a buffer the body stores into (seen: node ids visited). */
static bool reads_stored(const body_prog *b, const tine_expr_t *e, tine_u64map *seen) {
    uint64_t v;
    if (tine_u64map_get(seen, e->id, &v)) return false;
    tine_u64map_put(seen, e->id, 1);
    if (e->op == TINE_OP_LOAD && stored_in(b->body, tine_expr_name(e))) return true;
    for (int k = 0; k < e->nops; k++)
        if (reads_stored(b, e->ops[k], seen)) return true;
    return false;
}

static tine_expr_t *add_input(body_prog *b, tine_expr_t *input, tine_expr_t *stands) {
    tine_tprog_input(b->prog, input);
    TINE_GROW(b->stands_for, b->prog->ninputs, b->cap_stands);
    b->stands_for[b->prog->ninputs - 1] = stands;
    return input;
}

/* e on its operands mapped by f (e itself when none changes). */
static tine_expr_t *with_ops(body_prog *b, tine_expr_t *e, tine_expr_t *(*f)(body_prog *, tine_expr_t *)) {
    if (e->nops == 0) return e;
    tine_expr_t **ops = tine_xmalloc(sizeof *ops * e->nops); /* a concat may have many */
    bool changed = false;
    for (int k = 0; k < e->nops; k++) {
        ops[k] = f(b, e->ops[k]);
        changed |= ops[k] != e->ops[k];
    }
    tine_expr_t *r = changed ? tine_rebuild(b->ctx, e, ops) : e;
    free(ops);
    return r;
}

/* e over the program's inputs: a load as its stand-in, an inlined let's variable as its
 * value, any other variable as an input of its own. Recursion follows the expression's
 * depth, which selection keeps small (a stencil's sum of taps). */
static tine_expr_t *to_prog(body_prog *b, tine_expr_t *e) {
    uint64_t v;
    if (tine_u64map_get(&b->to_prog, e->id, &v)) return (tine_expr_t *)(uintptr_t)v;
    tine_expr_t *r = e;
    if (e->op == TINE_OP_LOAD) {
        if (tine_u64map_get(&b->stand, e->id, &v)) return (tine_expr_t *)(uintptr_t)v;
        char name[32];
        snprintf(name, sizeof name, "$.ld%d", b->nloads++);
        r = add_input(b, tine_var(b->ctx, name, e->type), e);
        tine_u64map_put(&b->stand, e->id, (uint64_t)(uintptr_t)r);
    } else if (e->op == TINE_OP_VAR) {
        if (tine_u64map_get(&b->inline_val, e->id, &v) && v) r = (tine_expr_t *)(uintptr_t)v;
        else if (tine_u64map_get(&b->stand, e->id, &v)) return (tine_expr_t *)(uintptr_t)v;
        else {
            r = add_input(b, e, e);
            tine_u64map_put(&b->stand, e->id, (uint64_t)(uintptr_t)r);
        }
    } else {
        r = with_ops(b, e, to_prog);
    }
    tine_u64map_put(&b->to_prog, e->id, (uint64_t)(uintptr_t)r);
    return r;
}

/* The outputs, in the order of the statement; lets entered as inlined or kept. An inlined
 * let changes what its variable means in its body only: the memo of forms is dropped
 * around it (a variable may be bound again by a sibling let). */
static void outputs(body_prog *b, const tine_stmt *s) {
    switch (s->kind) {
    case TINE_S_STORE:
        if (s->store.value->type.lanes > 1) {
            char name[64];
            snprintf(name, sizeof name, "%s.%d", s->store.buffer, b->prog->nouts);
            tine_tprog_output(b->prog, name, to_prog(b, s->store.value));
        }
        break;
    case TINE_S_LET: {
        tine_u64map seen = {0};
        bool inl = s->let.value->type.lanes > 1 && !reads_stored(b, s->let.value, &seen);
        tine_u64map_free(&seen);
        uint64_t outer = 0; /* the variable's meaning around the let (0: not inlined) */
        tine_u64map_get(&b->inline_val, s->let.var->id, &outer);
        if (!inl && !outer) {
            outputs(b, s->let.body);
            break;
        }
        tine_expr_t *val = inl ? to_prog(b, s->let.value) : NULL;
        tine_u64map_free(&b->to_prog);
        tine_u64map_put(&b->inline_val, s->let.var->id, (uint64_t)(uintptr_t)val);
        outputs(b, s->let.body);
        tine_u64map_put(&b->inline_val, s->let.var->id, outer);
        tine_u64map_free(&b->to_prog);
        break;
    }
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++) outputs(b, s->block.v[i]);
        break;
    default: TINE_ASSERT(!"a statement straight_line refuses");
    }
}

/* e (over the inputs) with each stand-in replaced by the load it stands for. */
static tine_expr_t *from_prog(body_prog *b, tine_expr_t *e) {
    uint64_t v;
    if (tine_u64map_get(&b->back, e->id, &v)) return (tine_expr_t *)(uintptr_t)v;
    tine_expr_t *r = e;
    if (e->op == TINE_OP_VAR) {
        for (int i = 0; i < b->prog->ninputs; i++)
            if (b->prog->inputs[i] == e) r = b->stands_for[i];
    } else {
        r = with_ops(b, e, from_prog);
    }
    tine_u64map_put(&b->back, e->id, (uint64_t)(uintptr_t)r);
    return r;
}

static void body_prog_free(body_prog *b) {
    tine_tprog_free(b->prog);
    free(b->stands_for);
    tine_u64map_free(&b->to_prog);
    tine_u64map_free(&b->stand);
    tine_u64map_free(&b->inline_val);
    tine_u64map_free(&b->back);
}

/* ---- the pass ------------------------------------------------------------------------------ */

/* A body optimized before: its outputs over the stand-ins, as built and as optimized. */
typedef struct {
    tine_expr_t **key, **result;
    int nouts;
    body_prog b; /* its program (kept while the pass runs: what `seen` is shown) */
    tine_peep_stats stats;
    char *report;
} done_body;

typedef struct {
    tine_ctx_t *ctx;
    const char *target;
    tine_body_prog_fn seen;
    void *user;
    tine_buf *listing;
    done_body *done;
    int ndone, capdone;
    bool failed;
} pass;

static done_body *find_done(pass *P, const tine_tprog *prog) {
    for (int i = 0; i < P->ndone; i++) {
        done_body *d = &P->done[i];
        if (d->nouts != prog->nouts) continue;
        int k = 0; /* the same values stored into the same buffers */
        while (k < d->nouts && d->key[k] == prog->outs[k].value && !strcmp(d->b.prog->outs[k].name, prog->outs[k].name))
            k++;
        if (k == d->nouts) return d;
    }
    return NULL;
}

/* The program of a body optimized (or found optimized before); NULL with an error. Kernels
 * never contract a * b + c: their code equals the interpreter's, bit for bit, and the
 * language has no operation that rounds once. The order matters only to the ones who look. */
static done_body *optimized(pass *P, body_prog *b) {
    done_body *d = find_done(P, b->prog);
    if (d) return d;
    TINE_GROW(P->done, P->ndone + 1, P->capdone);
    d = &P->done[P->ndone];
    memset(d, 0, sizeof *d);
    d->nouts = b->prog->nouts;
    d->key = tine_xmalloc(sizeof *d->key * (size_t)(d->nouts + 1));
    for (int k = 0; k < d->nouts; k++) d->key[k] = b->prog->outs[k].value;
    tine_tprog_opt o = {.no_schedule = !P->seen && !P->listing, .contract = false};
    tine_buf rep = {0};
    tine_tprog_reorder(b->prog);
    bool ok = tine_tprog_optimize(b->prog, &o, &d->stats, P->listing || P->seen ? &rep : NULL);
    d->report = rep.p ? rep.p : tine_strdup("");
    d->result = tine_xmalloc(sizeof *d->result * (size_t)(d->nouts + 1));
    for (int k = 0; k < d->nouts; k++) d->result[k] = b->prog->outs[k].value;
    d->b = *b; /* the pass owns it now */
    *b = (body_prog){0};
    P->ndone++;
    if (!ok) {
        P->failed = true;
        return NULL;
    }
    return d;
}

/* The listing's lines of one body: its loop, the loads its inputs stand for, the program,
 * the report and the rules that fired. */
static void list_body(tine_ctx_t *ctx, tine_buf *out, const tine_stmt *loop, const body_prog *own, const done_body *d) {
    tine_buf_printf(out, "# %s\n", loop->loop.name ? loop->loop.name : "(loop)");
    for (int i = 0; i < own->prog->ninputs; i++) {
        if (own->stands_for[i] == own->prog->inputs[i]) continue;
        char *text = tine_print(ctx, own->stands_for[i]);
        tine_buf_printf(out, "#   %s = %s\n", tine_expr_name(own->prog->inputs[i]), text);
        free(text);
    }
    tine_tprog_print(d->b.prog, out);
    tine_buf_puts(out, d->report);
    if (d->stats.nfired) {
        tine_buf_puts(out, "          rules:");
        for (int i = 0; i < d->stats.nfired; i++) tine_buf_printf(out, " %s %d", d->stats.fired[i], d->stats.fired_counts[i]);
        tine_buf_puts(out, "\n");
    }
    tine_buf_puts(out, "\n");
}

/* Whether e reads variable x (seen: node ids visited). */
static bool reads_var(const tine_expr_t *e, const tine_expr_t *x, tine_u64map *seen) {
    uint64_t v;
    if (e == x) return true;
    if (tine_u64map_get(seen, e->id, &v)) return false;
    tine_u64map_put(seen, e->id, 1);
    for (int k = 0; k < e->nops; k++)
        if (reads_var(e->ops[k], x, seen)) return true;
    return false;
}

static bool body_reads(const tine_stmt *s, const tine_expr_t *x, tine_u64map *seen) {
    switch (s->kind) {
    case TINE_S_STORE: return reads_var(s->store.index, x, seen) || reads_var(s->store.value, x, seen);
    case TINE_S_LET: return reads_var(s->let.value, x, seen) || (s->let.var != x && body_reads(s->let.body, x, seen));
    case TINE_S_BLOCK:
        for (int i = 0; i < s->block.n; i++)
            if (body_reads(s->block.v[i], x, seen)) return true;
        return false;
    default: return false;
    }
}

/* s with its vector stores, in order from *next on, computing values[]; a let nothing reads
 * any more (an inlined one) dropped. */
static tine_stmt *put_back(tine_stmt_pool *p, tine_stmt *s, tine_expr_t *const *values, int *next) {
    switch (s->kind) {
    case TINE_S_STORE: {
        if (s->store.value->type.lanes == 1) return s;
        tine_expr_t *v = values[(*next)++];
        return v == s->store.value ? s : tine_stmt_store(p, s->store.buffer, s->store.index, v);
    }
    case TINE_S_LET: {
        tine_stmt *body = put_back(p, s->let.body, values, next);
        tine_u64map seen = {0};
        bool read = body_reads(body, s->let.var, &seen);
        tine_u64map_free(&seen);
        if (!read) return body;
        return body == s->let.body ? s : tine_stmt_let(p, s->let.var, s->let.value, body);
    }
    case TINE_S_BLOCK: {
        tine_stmt **v = tine_xmalloc(sizeof *v * (size_t)(s->block.n + 1));
        bool changed = false;
        for (int i = 0; i < s->block.n; i++) {
            v[i] = put_back(p, s->block.v[i], values, next);
            changed |= v[i] != s->block.v[i];
        }
        tine_stmt *r = changed ? tine_stmt_block(p, v, s->block.n) : s;
        free(v);
        return r;
    }
    default: return s;
    }
}

static tine_stmt *one_loop(void *user, tine_stmt_pool *p, tine_stmt *loop) {
    pass *P = user;
    if (P->failed) return loop;
    body_prog b = {.ctx = P->ctx, .body = loop->loop.body, .prog = tine_tprog_new(P->ctx, P->target)};
    outputs(&b, loop->loop.body);
    done_body *d = optimized(P, &b);
    if (!d) {
        body_prog_free(&b);
        return loop;
    }
    /* this body's stand-ins: the same names as the program's, standing for its own loads */
    body_prog *own = b.prog ? &b : &d->b;
    tine_expr_t **values = tine_xmalloc(sizeof *values * (size_t)(d->nouts + 1));
    for (int k = 0; k < d->nouts; k++) values[k] = from_prog(own, d->result[k]);
    int next = 0;
    tine_stmt *body = put_back(p, loop->loop.body, values, &next);
    TINE_ASSERT(next == d->nouts);
    if (P->seen) {
        tine_body_prog bp = {loop, d->b.prog, own->stands_for, &d->stats, d->report};
        P->seen(P->user, &bp);
    }
    if (P->listing) list_body(P->ctx, P->listing, loop, own, d);
    free(values);
    body_prog_free(&b);
    return body == loop->loop.body ? loop : tine_stmt_for_like(p, loop, loop->loop.min, loop->loop.extent, body);
}

tine_stmt *tine_stmt_body_progs(tine_stmt_pool *p, tine_stmt *s, const char *target, tine_body_prog_fn seen,
                                void *user, tine_buf *listing) {
    pass P = {.ctx = p->ctx, .target = target, .seen = seen, .user = user, .listing = listing};
    tine_stmt *r = tine_stmt_map_loops(p, s, innermost_body, one_loop, &P);
    for (int i = 0; i < P.ndone; i++) {
        free(P.done[i].key);
        free(P.done[i].result);
        free(P.done[i].report);
        body_prog_free(&P.done[i].b);
    }
    free(P.done);
    return P.failed ? NULL : r;
}

tine_stmt *tine_stmt_peephole(tine_stmt_pool *p, tine_stmt *s, tine_selection_t sel, const char *target,
                              tine_buf *listing) {
    if (sel != TINE_SELECT_TINE) return s; /* no target-level program: LLVM selects */
    return tine_stmt_body_progs(p, s, target, NULL, NULL, listing);
}
