/* kernel.c — kernels: parsing and checking a .tine file, lowering its output to vector
 * bodies, the region each input must cover, and a reference run on the interpreter.
 *
 * Lowering: the output's first coordinate is vectorized. Its body is elaborated twice —
 * at the vector width (the first coordinate a ramp from the scalar variable $.c0, the
 * others broadcasts of $.c1..$.c3) and at one lane (for outputs narrower than a vector) —
 * with every function inlined, every input access a load at the flattened index
 * (coordinate − min, times the stride; stride 0 of every buffer is 1), and parameters
 * and buffer geometry read from scalar variables ($name, $in_min0, $in_extent1, ...).
 * The compiled code (codegen/llvm.c) and the reference run evaluate these same bodies.
 */
#include "../ir/ast.h"

struct tine_kernel {
    tine_ctx_t *ctx;
    tine_arena arena;
    tine_kernel_ast ast;
    const tine_kdecl *out;
    tine_stage stages[TINE_KERNEL_MAX_STAGES]; /* producers first, the output last */
    const tine_kdecl *sdecl[TINE_KERNEL_MAX_STAGES];
    int nstages;
};

int tine_kernel_nstages(const tine_kernel_t *k) { return k->nstages; }
const tine_stage *tine_kernel_stage(const tine_kernel_t *k, int i) { return &k->stages[i]; }
static const tine_stage *last(const tine_kernel_t *k) { return &k->stages[k->nstages - 1]; }

int tine_kernel_coord_dim(const char *var) {
    return var[0] == '$' && var[1] == '.' && var[2] == 'c' && var[3] >= '0' && var[3] <= '3' && !var[4] ? var[3] - '0'
                                                                                                      : -1;
}

const tine_reduction *tine_kernel_reductions(const tine_kernel_t *k, int scalar, int *n) {
    *n = scalar ? last(k)->reds1.n : last(k)->reds.n;
    return scalar ? last(k)->reds1.v : last(k)->reds.v;
}

const tine_kdecl *tine_kernel_find(const tine_kernel_ast *k, const char *name) {
    for (int i = 0; i < k->ndecls; i++)
        if (!strcmp(k->decls[i].name, name)) return &k->decls[i];
    return NULL;
}

void tine_kernel_var_name(char *out, size_t n, const char *buffer, const char *what, int dim) {
    snprintf(out, n, "$%s_%s%d", buffer, what, dim);
}

static void kerr(tine_ctx_t *ctx, const tine_src *src, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void kerr(tine_ctx_t *ctx, const tine_src *src, int line, int col, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tine_diag(ctx, src, line, col, "%s", msg);
}

/* ---- checks ----------------------------------------------------------------------------- */

/* Does function d (transitively) call `target`? A call graph walk over the syntax. */
static bool calls(const tine_kernel_ast *k, const tine_ast *a, const char *target, int depth) {
    if (!a || depth > 64) return depth > 64;
    if (a->kind == A_CALL) {
        if (!strcmp(a->name, target)) return true;
        const tine_kdecl *d = tine_kernel_find(k, a->name);
        if (d && (d->kind == K_FUNC) && calls(k, d->body, target, depth + 1)) return true;
    }
    for (int i = 0; i < a->nargs; i++)
        if (calls(k, a->args[i], target, depth)) return true;
    return false;
}

static bool check(tine_ctx_t *ctx, tine_kernel_t *kn) {
    tine_kernel_ast *k = &kn->ast;
    const tine_src *src = k->src;
    for (int i = 0; i < k->ndecls; i++) {
        const tine_kdecl *d = &k->decls[i];
        for (int j = 0; j < i; j++)
            if (!strcmp(k->decls[j].name, d->name)) {
                kerr(ctx, src, d->line, d->col, "'%s' is declared twice (first at line %d)", d->name, k->decls[j].line);
                return false;
            }
        tine_type_t t;
        if (d->type && (d->type->nargs || !tine_parse_type_name(d->type->name, strlen(d->type->name), &t))) {
            kerr(ctx, src, d->type->line, d->type->col, "'%s' is not an element type (u8 ... i64, f32, f64)", d->type->name);
            return false;
        }
        if (d->type && d->kind != K_PARAM && t.kind == TINE_BOOL) {
            kerr(ctx, src, d->type->line, d->type->col, "buffers of bool are not supported; use u8");
            return false;
        }
        if (d->kind == K_BOUNDARY) {
            const tine_kdecl *in = tine_kernel_find(k, d->of);
            if (!in || in->kind != K_INPUT) {
                kerr(ctx, src, d->line, d->col, "a boundary condition applies to an input; '%s' is %s", d->of,
                     in ? "not one" : "not declared");
                return false;
            }
        }
        if (d->kind == K_OUTPUT) {
            if (kn->out) {
                kerr(ctx, src, d->line, d->col, "a kernel has one output; '%s' is already it", kn->out->name);
                return false;
            }
            kn->out = d;
        }
        if ((d->kind == K_FUNC || d->kind == K_OUTPUT) && calls(k, d->body, d->name, 0)) {
            kerr(ctx, src, d->line, d->col, "'%s' calls itself (through other functions or directly)", d->name);
            return false;
        }
    }
    if (!kn->out) {
        kerr(ctx, src, 1, 1, "the kernel has no output: declare one, as in output out(x, y): u8 = ...");
        return false;
    }
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        tine_kdecl *f = (tine_kdecl *)tine_kernel_find(k, s->func);
        if (!f || (f->kind != K_FUNC && f->kind != K_OUTPUT)) {
            kerr(ctx, src, s->line, s->col, "%s: '%s' is not a function of this kernel", s->what, s->func);
            return false;
        }
        if (s->dim) {
            bool found = false;
            for (int j = 0; j < f->nargs; j++) found |= !strcmp(f->args[j], s->dim);
            if (!found) {
                kerr(ctx, src, s->line, s->col, "%s: '%s' has no coordinate '%s'", s->what, s->func, s->dim);
                return false;
            }
        }
        if (!strcmp(s->what, "vectorize")) {
            if (strcmp(s->dim, f->args[0])) {
                kerr(ctx, src, s->line, s->col, "only the first coordinate of a function (%s.%s) can be vectorized so far",
                     f->name, f->args[0]);
                return false;
            }
            if (s->n && (s->n & (s->n - 1))) {
                kerr(ctx, src, s->line, s->col, "the vector width must be a power of two, not %d", s->n);
                return false;
            }
            f->lanes = s->n; /* 0: natural, chosen from the element type */
        } else if (!strcmp(s->what, "materialize")) {
            if (f->kind == K_OUTPUT) {
                kerr(ctx, src, s->line, s->col, "materialize: '%s' is the output; it is always computed into its buffer",
                     f->name);
                return false;
            }
            int n = 1;
            for (int j = 0; j < k->ndecls; j++) n += k->decls[j].materialized;
            if (n >= TINE_KERNEL_MAX_STAGES) {
                kerr(ctx, src, s->line, s->col, "at most %d functions can be materialized", TINE_KERNEL_MAX_STAGES - 1);
                tine_error_set_kind(ctx, TINE_ERROR_LIMIT);
                return false;
            }
            f->materialized = true;
        } else if (!strcmp(s->what, "unroll")) {
            int d = 0;
            while (strcmp(f->args[d], s->dim)) d++;
            f->unroll[d] = s->n;
        } else if (!strcmp(s->what, "tile")) {
            bool found = false;
            for (int j = 0; j < f->nargs; j++) found |= !strcmp(f->args[j], s->dim2);
            if (!found) {
                kerr(ctx, src, s->line, s->col, "tile: '%s' has no coordinate '%s'", f->name, s->dim2);
                return false;
            }
            if (f->nargs < 2 || strcmp(s->dim, f->args[0]) || strcmp(s->dim2, f->args[1])) {
                kerr(ctx, src, s->line, s->col, "tile: only the first two coordinates, in order, can be tiled so far (%s %s %s)",
                     f->name, f->args[0], f->nargs > 1 ? f->args[1] : "y");
                return false;
            }
            f->tile[0] = s->n;
            f->tile[1] = s->n2;
        } else if (!strcmp(s->what, "parallel")) {
            if (f->kind != K_OUTPUT || strcmp(s->dim, f->args[f->nargs - 1])) {
                kerr(ctx, src, s->line, s->col, "parallel: only the output's last coordinate (%s.%s) can run in parallel so far",
                     kn->out ? kn->out->name : "out", kn->out ? kn->out->args[kn->out->nargs - 1] : "y");
                return false;
            }
            f->parallel = true;
        } else {
            kerr(ctx, src, s->line, s->col, "the '%s' directive is not supported by the loop lowering yet", s->what);
            return false;
        }
    }
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        const tine_kdecl *f = tine_kernel_find(k, s->func);
        if (strcmp(s->what, "materialize") && f->kind == K_FUNC && !f->materialized) {
            kerr(ctx, src, s->line, s->col, "%s: '%s' is inlined into its callers; materialize it to %s it on its own",
                 s->what, f->name, s->what);
            return false;
        }
        if (!strcmp(s->what, "unroll") && f->tile[0] && f->unroll[1] > 1) {
            kerr(ctx, src, s->line, s->col, "%s: '%s' is tiled; its second coordinate cannot also be unrolled", s->what,
                 f->name);
            return false;
        }
    }
    return true;
}

/* ---- lowering --------------------------------------------------------------------------- */

/* The body of function f at `lanes` lanes: its first coordinate a ramp from $.c0, the
 * others broadcasts of $.c1..; materialized functions it calls are loads. */
static tine_expr_t *lower(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *o, int lanes, tine_reductions *rs) {
    tine_binding binds[4];
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    for (int i = 0; i < o->nargs; i++) {
        char vn[16];
        snprintf(vn, sizeof vn, "$.c%d", i);
        tine_expr_t *c = tine_var(ctx, vn, i32);
        binds[i].name = o->args[i];
        binds[i].expr = i == 0 ? tine_ramp(ctx, c, tine_const_int(ctx, i32, 1), lanes) : tine_broadcast(ctx, c, lanes);
    }
    rs->n = 0;
    rs->current = -1;
    tine_elab_env env = {.binds = binds, .nbinds = o->nargs, .lanes = lanes, .kernel = &kn->ast, .reds = rs};
    tine_expr_t *e = tine_elaborate(ctx, o->body, &env);
    if (!e || o->kind != K_OUTPUT) return e;
    tine_type_t t;
    tine_parse_type_name(o->type->name, strlen(o->type->name), &t);
    if (e->type.kind != t.kind || e->type.bits != t.bits) {
        char a[32], b[32];
        kerr(ctx, kn->ast.src, o->type->line, o->type->col, "output '%s' is declared %s but its definition is %s", o->name,
             tine_type_name(t, a), tine_type_name(e->type, b));
        return NULL;
    }
    return e;
}

/* One stage: the body at one lane first (its errors name element types, u8, not vectors,
 * u8x32), which gives the element type and so the natural width (one 256-bit vector). */
static bool lower_stage(tine_ctx_t *ctx, tine_kernel_t *kn, tine_kdecl *d) {
    tine_stage *st = &kn->stages[kn->nstages];
    memset(st, 0, sizeof *st);
    if (!(st->body1 = lower(ctx, kn, d, 1, &st->reds1))) return false;
    if (st->body1->type.kind == TINE_BOOL) {
        kerr(ctx, kn->ast.src, d->line, d->col, "'%s' is a condition (bool); materialize values, as in u8(c)", d->name);
        return false;
    }
    st->name = d->name;
    st->type = tine_type_with_lanes(st->body1->type, 1);
    st->dims = d->nargs;
    st->lanes = d->lanes ? d->lanes : 256 / st->type.bits;
    for (int i = 0; i < 4; i++) st->unroll[i] = d->unroll[i] > 1 ? d->unroll[i] : 1;
    st->tile[0] = d->tile[0];
    st->tile[1] = d->tile[1];
    st->parallel = d->parallel;
    if (!(st->body = lower(ctx, kn, d, st->lanes, &st->reds))) return false;
    d->mtype = st->type;
    kn->sdecl[kn->nstages++] = d;
    return true;
}

/* The stages: materialized functions in an order where each comes after those it reads
 * (directly or through inlined functions), then the output. */
static bool lower_all(tine_ctx_t *ctx, tine_kernel_t *kn) {
    tine_kernel_ast *k = &kn->ast;
    for (;;) {
        tine_kdecl *next = NULL;
        for (int i = 0; i < k->ndecls && !next; i++) {
            tine_kdecl *d = &k->decls[i];
            bool done = false, ready = d->materialized;
            for (int s = 0; s < kn->nstages; s++) done |= kn->sdecl[s] == d;
            for (int j = 0; j < k->ndecls && ready && !done; j++) {
                const tine_kdecl *e = &k->decls[j];
                bool lowered = false;
                for (int s = 0; s < kn->nstages; s++) lowered |= kn->sdecl[s] == e;
                if (e != d && e->materialized && !lowered && calls(k, d->body, e->name, 0)) ready = false;
            }
            if (ready && !done) next = d;
        }
        if (!next) break;
        if (!lower_stage(ctx, kn, next)) return false;
    }
    return lower_stage(ctx, kn, (tine_kdecl *)kn->out);
}

tine_kernel_t *tine_kernel_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *kn = calloc(1, sizeof *kn);
    TINE_ASSERT(kn != NULL);
    kn->ctx = ctx;
    if (tine_parse_kernel(ctx, &kn->arena, text, file, &kn->ast) != 0 || !check(ctx, kn) || !lower_all(ctx, kn)) {
        tine_kernel_free(kn);
        return NULL;
    }
    return kn;
}

void tine_kernel_free(tine_kernel_t *k) {
    if (!k) return;
    for (int i = 0; i <= k->nstages && i < TINE_KERNEL_MAX_STAGES; i++) {
        free(k->stages[i].reds.v);
        free(k->stages[i].reds1.v);
    }
    tine_arena_free(&k->arena);
    free(k);
}

int tine_kernel_lanes(const tine_kernel_t *k) { return last(k)->lanes; }
const tine_expr_t *tine_kernel_body(const tine_kernel_t *k, int scalar) { return scalar ? last(k)->body1 : last(k)->body; }
int tine_kernel_dims(const tine_kernel_t *k) { return k->out->nargs; }

tine_type_t tine_kernel_output_type(const tine_kernel_t *k) {
    tine_type_t t = {0, 0, 0};
    tine_parse_type_name(k->out->type->name, strlen(k->out->type->name), &t);
    return t;
}

/* The inputs and params, in declaration order. */
static const tine_kdecl *nth(const tine_kernel_t *k, tine_kdecl_kind kind, int i) {
    for (int j = 0; j < k->ast.ndecls; j++)
        if (k->ast.decls[j].kind == kind && i-- == 0) return &k->ast.decls[j];
    return NULL;
}

int tine_kernel_ninputs(const tine_kernel_t *k) {
    int n = 0;
    while (nth(k, K_INPUT, n)) n++;
    return n;
}

const char *tine_kernel_input(const tine_kernel_t *k, int i, tine_type_t *elem, int *dims) {
    const tine_kdecl *d = nth(k, K_INPUT, i);
    if (!d) return NULL;
    if (elem) tine_parse_type_name(d->type->name, strlen(d->type->name), elem);
    if (dims) *dims = d->dims;
    return d->name;
}

int tine_kernel_nparams(const tine_kernel_t *k) {
    int n = 0;
    while (nth(k, K_PARAM, n)) n++;
    return n;
}

const char *tine_kernel_param(const tine_kernel_t *k, int i, tine_type_t *t) {
    const tine_kdecl *d = nth(k, K_PARAM, i);
    if (!d) return NULL;
    if (t) tine_parse_type_name(d->type->name, strlen(d->type->name), t);
    return d->name;
}

/* ---- binding a run ---------------------------------------------------------------------- */

int tine_kernel_scalar_in(const tine_kernel_t *k, const char *var, tine_buffer_t *const *inputs,
                          const void *const *params, const tine_buffer_t *out, const tine_plan *plan, int64_t *value) {
    char vn[96];
    for (int i = 0; i < tine_kernel_nparams(k); i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(k, i, &t);
        snprintf(vn, sizeof vn, "$%s", name);
        if (strcmp(vn, var)) continue;
        int64_t v = 0;
        switch (t.bits) {
        case 8: v = t.kind == TINE_INT ? (int64_t) * (const int8_t *)params[i] : (int64_t) * (const uint8_t *)params[i]; break;
        case 16: v = t.kind == TINE_INT ? (int64_t) * (const int16_t *)params[i] : (int64_t) * (const uint16_t *)params[i]; break;
        case 32: v = t.kind == TINE_INT ? (int64_t) * (const int32_t *)params[i] : (int64_t) * (const uint32_t *)params[i]; break;
        default: v = *(const int64_t *)params[i]; break;
        }
        *value = v;
        return 0;
    }
    /* buffers: the output, the inputs, the scratch buffers of materialized stages */
    for (int i = -1; i < tine_kernel_ninputs(k) + k->nstages - 1; i++) {
        const tine_buffer_t *b;
        const char *name;
        if (i < 0) {
            b = out;
            name = k->out->name;
        } else if (i < tine_kernel_ninputs(k)) {
            b = inputs[i];
            name = tine_kernel_input(k, i, NULL, NULL);
        } else {
            if (!plan) continue;
            int st = i - tine_kernel_ninputs(k);
            b = &plan->buf[st];
            name = k->stages[st].name;
        }
        static const char *const what[3] = {"min", "extent", "stride"};
        for (int w = 0; w < 3; w++)
            for (int d = 0; d < 4; d++) {
                tine_kernel_var_name(vn, sizeof vn, name, what[w], d);
                if (strcmp(vn, var)) continue;
                *value = w == 0 ? b->min[d] : w == 1 ? b->extent[d] : b->stride[d];
                return 0;
            }
    }
    return -1;
}

int tine_kernel_scalar(const tine_kernel_t *k, const char *var, tine_buffer_t *const *inputs,
                       const void *const *params, const tine_buffer_t *out, int64_t *value) {
    return tine_kernel_scalar_in(k, var, inputs, params, out, NULL, value);
}

/* Elements a buffer spans (the largest flattened index + 1). */
static size_t span(const tine_buffer_t *b, int dims) {
    size_t n = 1;
    for (int d = 0; d < dims; d++) n += (size_t)(b->extent[d] - 1) * (size_t)(d ? b->stride[d] : 1);
    return n;
}

/* The coordinates of a load elab built (index = (x0 - min0) + (x1 - min1) * stride1 + ...),
 * outermost dimension last; false if the index has another shape. */
bool tine_kernel_load_coords(const tine_expr_t *index, int dims, const tine_expr_t **x) {
    const tine_expr_t *e = index;
    for (int d = dims - 1; d >= 1; d--) {
        const tine_expr_t *m = e->op == TINE_OP_ADD ? tine_expr_operand(e, 1) : NULL;
        const tine_expr_t *s = m && m->op == TINE_OP_MUL ? tine_expr_operand(m, 0) : NULL;
        if (!s || s->op != TINE_OP_SUB) return false;
        x[d] = tine_expr_operand(s, 0);
        e = tine_expr_operand(e, 0);
    }
    if (e->op != TINE_OP_SUB) return false;
    x[0] = tine_expr_operand(e, 0);
    return true;
}

/* Every node of a stage's one-lane body and of its loop reductions (bounds, updates),
 * except the updates of the reductions skip marks; a node may appear more than once. */
static tine_expr_t **stage_nodes(const tine_kernel_t *k, const tine_stage *st, const bool *skip, uint32_t *count) {
    uint32_t n, total = 0, cap = 0;
    tine_expr_t **all = NULL;
    for (int i = -1; i < st->reds1.n; i++)
        for (int part = 0; part < (i < 0 ? 1 : 3); part++) {
            const tine_reduction *R = i < 0 ? NULL : &st->reds1.v[i];
            if (R && part == 2 && skip && skip[i]) continue;
            tine_expr_t **o = tine_topo(k->ctx, !R ? st->body1 : part == 0 ? R->lo : part == 1 ? R->hi : R->update, &n);
            if (total + n > cap) {
                cap = 2 * (total + n);
                all = realloc(all, cap * sizeof *all);
                TINE_ASSERT(all != NULL);
            }
            memcpy(all + total, o, n * sizeof *o);
            total += n;
            free(o);
        }
    *count = total;
    return all;
}

/* Sets the ranges of a stage's variables for bounds inference over its region `reg`:
 * coordinates over the region, scalars their values, each loop reduction's variable
 * over the values it takes (outer loops first). Returns the nodes whose loads are
 * reads (those of loops that never run are not), or NULL with an error. */
static tine_expr_t **stage_ranges(const tine_kernel_t *k, const tine_stage *st, const tine_buffer_t *reg,
                                  tine_buffer_t *const *inputs, const void *const *params, const tine_buffer_t *out,
                                  const tine_plan *plan, uint32_t *count) {
    tine_ctx_t *ctx = k->ctx;
    uint32_t n;
    tine_expr_t **order = stage_nodes(k, st, NULL, &n);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const tine_expr_t *v = order[i];
        if (v->op != TINE_OP_VAR) continue;
        const char *name = tine_expr_name(v);
        int64_t x;
        int d = tine_kernel_coord_dim(name);
        if (d >= 0) {
            if (tine_bounds_set_var(ctx, v, reg->min[d], reg->min[d] + reg->extent[d] - 1)) {
                tine_set_error(ctx, "'%s' spans [%lld, %lld] in dimension %d; coordinates must fit in i32", st->name,
                               (long long)reg->min[d], (long long)(reg->min[d] + reg->extent[d] - 1), d);
                rc = -1;
            }
        } else if (tine_kernel_scalar_in(k, name, inputs, params, out, plan, &x) == 0 && tine_type_is_int(v->type)) {
            if (tine_bounds_set_var(ctx, v, x, x)) {
                tine_set_error(ctx, "a buffer's min, extent or stride (%s = %lld) does not fit in i32", name + 1,
                               (long long)x);
                rc = -1;
            }
        }
    }
    bool *skip = calloc((size_t)st->reds1.n + 1, sizeof *skip);
    TINE_ASSERT(skip != NULL);
    for (int i = 0; i < st->reds1.n && rc == 0; i++) {
        const tine_reduction *R = &st->reds1.v[i];
        tine_i128 llo, lhi, hlo, hhi;
        if (R->parent >= 0 && skip[R->parent]) skip[i] = true;
        else if (!tine_bounds(ctx, R->lo, &llo, &lhi) || !tine_bounds(ctx, R->hi, &hlo, &hhi)) {
            tine_set_error(ctx, "the bounds of a reduction cannot be bounded");
            rc = -1;
        } else if (hhi <= llo) skip[i] = true;
        else tine_bounds_set_var(ctx, R->r, (int64_t)llo, (int64_t)(hhi - 1));
    }
    free(order);
    order = rc ? NULL : stage_nodes(k, st, skip, count);
    free(skip);
    return order;
}

/* The region of buffer `name` (dims dimensions) that the loads among `order` read, by
 * dimension; false if there are none. *known is false when some load cannot be bounded. */
static bool read_region(tine_ctx_t *ctx, tine_expr_t *const *order, uint32_t n, const char *name, int dims,
                        tine_i128 *rlo, tine_i128 *rhi, bool *known) {
    bool any = false;
    *known = true;
    for (uint32_t j = 0; j < n && *known; j++) {
        const tine_expr_t *e = order[j], *x[4];
        if (e->op != TINE_OP_LOAD || strcmp(tine_expr_name(e), name)) continue;
        *known = tine_kernel_load_coords(tine_expr_operand(e, 0), dims, x);
        for (int d = 0; d < dims && *known; d++) {
            tine_i128 lo, hi;
            *known = tine_bounds(ctx, x[d], &lo, &hi);
            if (*known) {
                rlo[d] = any && rlo[d] < lo ? rlo[d] : lo;
                rhi[d] = any && rhi[d] > hi ? rhi[d] : hi;
            }
        }
        any = true;
    }
    return any;
}

static void region_str(tine_buf *b, int dims, const tine_i128 *lo, const tine_i128 *hi) {
    for (int d = 0; d < dims; d++) tine_buf_printf(b, "%s[%lld, %lld]", d ? " x " : "", (long long)lo[d], (long long)hi[d]);
}

/* Every input covers what stage st reads over its region: each access's coordinates,
 * bounded over the region (bounds inference), inside the buffer in every dimension (a
 * read past the end of a row is outside the input even where the next row's memory
 * lies), and so is its flattened index. */
static int check_inputs(const tine_kernel_t *k, const tine_stage *st, tine_expr_t *const *order, uint32_t n,
                        tine_buffer_t *const *inputs) {
    tine_ctx_t *ctx = k->ctx;
    for (int i = 0; i < tine_kernel_ninputs(k); i++) {
        int id;
        const char *name = tine_kernel_input(k, i, NULL, &id);
        tine_i128 rlo[4], rhi[4], ilo[4], ihi[4];
        bool known, any = read_region(ctx, order, n, name, id, rlo, rhi, &known);
        bool inside = true;
        for (int d = 0; d < id; d++) {
            ilo[d] = inputs[i]->min[d];
            ihi[d] = (tine_i128)inputs[i]->min[d] + inputs[i]->extent[d] - 1;
            if (known && any) inside &= rlo[d] >= ilo[d] && rhi[d] <= ihi[d];
        }
        if (!inside || !known) {
            tine_buf b = {0};
            tine_buf_printf(&b, "input '%s' is too small for %s%s: ", name, st->name == k->out->name ? "this output" : "stage ",
                            st->name == k->out->name ? "" : st->name);
            if (known) {
                tine_buf_puts(&b, "the kernel reads it at ");
                region_str(&b, id, rlo, rhi);
            } else {
                tine_buf_puts(&b, "the region it reads cannot be bounded");
            }
            tine_buf_puts(&b, ", but it covers ");
            region_str(&b, id, ilo, ihi);
            tine_set_error_str(ctx, b.p);
            return -1;
        }
        for (uint32_t j = 0; j < n; j++) {
            const tine_expr_t *e = order[j];
            if (e->op != TINE_OP_LOAD || strcmp(tine_expr_name(e), name)) continue;
            tine_i128 lo, hi;
            size_t size = span(inputs[i], id);
            if (!tine_bounds(ctx, tine_expr_operand(e, 0), &lo, &hi) || lo < 0 || hi >= (tine_i128)size) {
                tine_buf b = {0};
                tine_buf_printf(&b, "input '%s' is too small for this output: ", name);
                if (tine_bounds(ctx, tine_expr_operand(e, 0), &lo, &hi))
                    tine_buf_printf(&b, "the kernel reads its elements %lld to %lld, but it holds %zu (", (long long)lo,
                                    (long long)hi, size);
                else
                    tine_buf_printf(&b, "the region it reads cannot be bounded (");
                region_str(&b, id, ilo, ihi);
                tine_buf_puts(&b, ")");
                tine_set_error_str(ctx, b.p);
                return -1;
            }
        }
    }
    return 0;
}

void tine_plan_free(const tine_kernel_t *k, tine_plan *plan) {
    for (int s = 0; s + 1 < k->nstages; s++) {
        free(plan->buf[s].data);
        plan->buf[s].data = NULL;
    }
}

/* Stages from the output back: each stage's region is known when its turn comes (its
 * consumers run after it, so they came before in this walk); its reads give the regions
 * of the stages it reads and are checked against the inputs. */
int tine_kernel_plan(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                     const tine_buffer_t *out, tine_plan *plan) {
    tine_ctx_t *ctx = k->ctx;
    int dims = tine_kernel_dims(k);
    memset(plan, 0, sizeof *plan);
    for (int d = 0; d < dims; d++)
        if (out->extent[d] < 1) {
            tine_set_error(ctx, "output '%s' has an empty extent in dimension %d", k->out->name, d);
            return -1;
        }
    plan->buf[k->nstages - 1] = *out;
    bool have[TINE_KERNEL_MAX_STAGES] = {false};
    tine_i128 lo[TINE_KERNEL_MAX_STAGES][4], hi[TINE_KERNEL_MAX_STAGES][4];
    have[k->nstages - 1] = true;
    for (int s = k->nstages - 1; s >= 0; s--) {
        const tine_stage *st = &k->stages[s];
        if (!have[s]) continue; /* nothing reads it */
        if (s < k->nstages - 1) { /* a scratch buffer over the region read */
            tine_buffer_t *b = &plan->buf[s];
            size_t total = 1;
            b->dims = st->dims;
            for (int d = 0; d < 4; d++) {
                b->min[d] = d < st->dims ? (int64_t)lo[s][d] : 0;
                b->extent[d] = d < st->dims ? (int64_t)(hi[s][d] - lo[s][d] + 1) : 1;
                b->stride[d] = d == 0 ? 1 : b->stride[d - 1] * b->extent[d - 1];
                if (d < st->dims && (lo[s][d] < INT32_MIN || hi[s][d] > INT32_MAX || b->extent[d] > (1 << 28))) {
                    tine_set_limit_error(ctx, "stage '%s' would span [%lld, %lld] in dimension %d: too large", st->name,
                                   (long long)lo[s][d], (long long)hi[s][d], d);
                    tine_plan_free(k, plan);
                    return -1;
                }
                total *= (size_t)b->extent[d];
            }
            if (total > ((size_t)1 << 31)) {
                tine_set_limit_error(ctx, "stage '%s' would need %zu elements: too large", st->name, total);
                tine_plan_free(k, plan);
                return -1;
            }
            b->data = calloc(total, (size_t)(st->type.bits / 8));
            if (!b->data) { /* the size follows the run's region: the machine's limit, not tine's bug */
                tine_set_limit_error(ctx, "stage '%s': no memory for %zu elements", st->name, total);
                tine_plan_free(k, plan);
                return -1;
            }
        }
        uint32_t n;
        tine_expr_t **order = stage_ranges(k, st, &plan->buf[s], inputs, params, out, plan, &n);
        int rc = order ? check_inputs(k, st, order, n, inputs) : -1;
        for (int p = 0; p < s && rc == 0; p++) { /* the stages it reads */
            tine_i128 rlo[4], rhi[4];
            bool known;
            if (!read_region(ctx, order, n, k->stages[p].name, k->stages[p].dims, rlo, rhi, &known)) continue;
            if (!known) {
                tine_set_error(ctx, "the region of '%s' that '%s' reads cannot be bounded", k->stages[p].name, st->name);
                rc = -1;
            }
            for (int d = 0; d < k->stages[p].dims && rc == 0; d++) {
                lo[p][d] = have[p] && lo[p][d] < rlo[d] ? lo[p][d] : rlo[d];
                hi[p][d] = have[p] && hi[p][d] > rhi[d] ? hi[p][d] : rhi[d];
            }
            have[p] = true;
        }
        free(order);
        if (rc) {
            tine_plan_free(k, plan);
            return -1;
        }
    }
    return 0;
}

int tine_kernel_check_region(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                             const tine_buffer_t *out) {
    tine_plan plan;
    if (tine_kernel_plan(k, inputs, params, out, &plan)) return -1;
    tine_plan_free(k, &plan);
    return 0;
}

/* ---- reference run ---------------------------------------------------------------------- */

static void store_lane(void *data, tine_type_t t, size_t index, uint64_t v) {
    memcpy((char *)data + index * (size_t)(t.bits / 8), &v, (size_t)(t.bits / 8)); /* little-endian host */
}

/* The loop reductions nested directly in `parent` (-1: the body's own), each bound to its
 * result variable. */
static int run_loops(const tine_kernel_t *k, const tine_stage *st, tine_env_t *env, int parent) {
    tine_ctx_t *ctx = k->ctx;
    for (int i = 0; i < st->reds1.n; i++) {
        const tine_reduction *R = &st->reds1.v[i];
        if (R->parent != parent) continue;
        uint64_t lo, hi, acc;
        int rc = tine_eval(ctx, R->lo, env, &lo);
        if (rc == 0) rc = tine_eval(ctx, R->hi, env, &hi);
        if (rc == 0) rc = tine_eval(ctx, R->init, env, &acc);
        for (int64_t r = (int32_t)lo; rc == 0 && r < (int32_t)hi; r++) {
            uint64_t rv = (uint64_t)r;
            tine_env_bind(env, R->r, &rv);
            tine_env_bind(env, R->acc, &acc);
            rc = run_loops(k, st, env, i);
            if (rc == 0) rc = tine_eval(ctx, R->update, env, &acc);
        }
        if (rc) return rc;
        tine_env_bind(env, R->result, &acc);
    }
    return 0;
}

/* One stage over its buffer's region, one element at a time on the interpreter. */
static int interpret_stage(const tine_kernel_t *k, const tine_stage *st, tine_buffer_t *const *inputs,
                           const void *const *params, const tine_buffer_t *out, const tine_plan *plan,
                           const tine_buffer_t *dst) {
    tine_ctx_t *ctx = k->ctx;
    tine_env_t *env = tine_env_new(ctx);
    for (int i = 0; i < tine_kernel_ninputs(k); i++) {
        tine_type_t et;
        int id;
        const char *name = tine_kernel_input(k, i, &et, &id);
        tine_env_bind_buffer(env, name, et, inputs[i]->data, span(inputs[i], id));
    }
    for (int s = 0; s + 1 < k->nstages; s++)
        if (plan->buf[s].data)
            tine_env_bind_buffer(env, k->stages[s].name, k->stages[s].type, plan->buf[s].data,
                                 span(&plan->buf[s], k->stages[s].dims));
    uint32_t n;
    tine_expr_t **order = stage_nodes(k, st, NULL, &n);
    const tine_expr_t *coord[4] = {0};
    for (uint32_t i = 0; i < n; i++) {
        const tine_expr_t *v = order[i];
        if (v->op != TINE_OP_VAR) continue;
        const char *name = tine_expr_name(v);
        int64_t x;
        if (tine_kernel_coord_dim(name) >= 0) coord[tine_kernel_coord_dim(name)] = v;
        else if (tine_kernel_scalar_in(k, name, inputs, params, out, plan, &x) == 0) tine_env_bind(env, v, (uint64_t *)&x);
    }
    free(order);
    int64_t c[4] = {0};
    int rc = 0;
    size_t total = 1;
    for (int d = 0; d < st->dims; d++) total *= (size_t)dst->extent[d];
    for (size_t p = 0; p < total && rc == 0; p++) {
        size_t q = p, index = 0;
        for (int d = 0; d < st->dims; d++) {
            c[d] = dst->min[d] + (int64_t)(q % (size_t)dst->extent[d]);
            index += (size_t)(c[d] - dst->min[d]) * (size_t)(d ? dst->stride[d] : 1);
            q /= (size_t)dst->extent[d];
            if (coord[d]) tine_env_bind(env, coord[d], (uint64_t *)&c[d]);
        }
        uint64_t v;
        rc = run_loops(k, st, env, -1);
        if (rc == 0) rc = tine_eval(ctx, st->body1, env, &v);
        if (rc == 0) store_lane(dst->data, st->type, index, v);
    }
    tine_env_free(env);
    return rc;
}

int tine_kernel_interpret(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                          tine_buffer_t *out) {
    tine_plan plan;
    if (tine_kernel_plan(k, inputs, params, out, &plan)) return -1;
    int rc = 0;
    for (int s = 0; s < k->nstages && rc == 0; s++)
        if (plan.buf[s].data) rc = interpret_stage(k, &k->stages[s], inputs, params, out, &plan, &plan.buf[s]);
    tine_plan_free(k, &plan);
    return rc;
}

char *tine_kernel_print_stages(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    tine_buf b = {0};
    for (int s = 0; s < k->nstages; s++) {
        const tine_stage *st = &k->stages[s];
        tine_expr_t *e = sel == TINE_SELECT_TINE ? tine_lift(k->ctx, st->body) : tine_expand(k->ctx, st->body);
        if (sel == TINE_SELECT_TINE && target) e = tine_lower(k->ctx, e, target);
        if (!e) {
            free(b.p);
            return NULL;
        }
        char *p = tine_print(k->ctx, e);
        tine_buf_printf(&b, "# stage %s (%d lanes, %s)%s\n%s\n", st->name, st->lanes,
                        s == k->nstages - 1 ? "the output" : "materialized",
                        st->reds.n ? "; its loop reductions' results are $.red0..." : "", p);
        free(p);
    }
    return b.p;
}

tine_ctx_t *tine_kernel_ctx(const tine_kernel_t *k) { return k->ctx; }
const char *tine_kernel_output_name(const tine_kernel_t *k) { return k->out->name; }
