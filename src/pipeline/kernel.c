/* kernel.c — kernels: parsing and checking a .tine file, lowering its output to vector
 * bodies, the region each input must cover, and a reference run on the interpreter.
 *
 * Lowering: the output's first coordinate is vectorized. Its body is elaborated twice —
 * at the vector width (the first coordinate a ramp from the scalar variable $c0, the
 * others broadcasts of $c1..$c3) and at one lane (for outputs narrower than a vector) —
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
    int lanes; /* vector width of the first coordinate */
    tine_expr_t *body, *body1; /* at `lanes` lanes and at one lane */
};

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
    kn->lanes = 16;
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        const tine_kdecl *f = tine_kernel_find(k, s->func);
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
            if (f != kn->out || strcmp(s->dim, f->args[0])) {
                kerr(ctx, src, s->line, s->col, "only the output's first coordinate (%s.%s) can be vectorized so far",
                     kn->out->name, kn->out->args[0]);
                return false;
            }
            if (s->n && (s->n & (s->n - 1))) {
                kerr(ctx, src, s->line, s->col, "the vector width must be a power of two, not %d", s->n);
                return false;
            }
            kn->lanes = s->n ? s->n : 0; /* natural: chosen from the output type */
        } else {
            /* parsed and checked, not yet carried out by the loop lowering */
            kerr(ctx, src, s->line, s->col, "the '%s' directive is not supported by the loop lowering yet", s->what);
            return false;
        }
    }
    if (kn->lanes == 0) { /* natural: one 256-bit vector of the output type */
        tine_type_t t;
        tine_parse_type_name(kn->out->type->name, strlen(kn->out->type->name), &t);
        kn->lanes = 256 / t.bits;
    }
    return true;
}

/* ---- lowering --------------------------------------------------------------------------- */

static tine_expr_t *lower(tine_ctx_t *ctx, tine_kernel_t *kn, int lanes) {
    const tine_kdecl *o = kn->out;
    tine_binding binds[4];
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    for (int i = 0; i < o->nargs; i++) {
        char vn[16];
        snprintf(vn, sizeof vn, "$c%d", i);
        tine_expr_t *c = tine_var(ctx, vn, i32);
        binds[i].name = o->args[i];
        binds[i].expr = i == 0 ? tine_ramp(ctx, c, tine_const_int(ctx, i32, 1), lanes) : tine_broadcast(ctx, c, lanes);
    }
    tine_elab_env env = {.binds = binds, .nbinds = o->nargs, .lanes = lanes, .kernel = &kn->ast};
    tine_expr_t *e = tine_elaborate(ctx, o->body, &env);
    if (!e) return NULL;
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

tine_kernel_t *tine_kernel_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *kn = calloc(1, sizeof *kn);
    TINE_ASSERT(kn != NULL);
    kn->ctx = ctx;
    /* one lane first: its errors name element types (u8), not vectors (u8x32) */
    if (tine_parse_kernel(ctx, &kn->arena, text, file, &kn->ast) != 0 || !check(ctx, kn) ||
        !(kn->body1 = lower(ctx, kn, 1)) || !(kn->body = lower(ctx, kn, kn->lanes))) {
        tine_kernel_free(kn);
        return NULL;
    }
    return kn;
}

void tine_kernel_free(tine_kernel_t *k) {
    if (!k) return;
    tine_arena_free(&k->arena);
    free(k);
}

int tine_kernel_lanes(const tine_kernel_t *k) { return k->lanes; }
const tine_expr_t *tine_kernel_body(const tine_kernel_t *k, int scalar) { return scalar ? k->body1 : k->body; }
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

/* The value of a scalar leaf variable of the bodies ($name, $in_min0, $c0 excluded). */
int tine_kernel_scalar(const tine_kernel_t *k, const char *var, tine_buffer_t *const *inputs,
                       const void *const *params, const tine_buffer_t *out, int64_t *value) {
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
    for (int i = -1; i < tine_kernel_ninputs(k); i++) {
        const tine_buffer_t *b = i < 0 ? out : inputs[i];
        const char *name = i < 0 ? k->out->name : tine_kernel_input(k, i, NULL, NULL);
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

/* Elements a buffer spans (the largest flattened index + 1). */
static size_t span(const tine_buffer_t *b, int dims) {
    size_t n = 1;
    for (int d = 0; d < dims; d++) n += (size_t)(b->extent[d] - 1) * (size_t)(d ? b->stride[d] : 1);
    return n;
}

/* The coordinates of a load elab built (index = (x0 - min0) + (x1 - min1) * stride1 + ...),
 * outermost dimension last; false if the index has another shape. */
static bool load_coords(const tine_expr_t *index, int dims, const tine_expr_t **x) {
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

/* Checks every input covers what the kernel reads for `out`: each access's coordinates
 * bounded over the output's domain (bounds inference) must lie inside the buffer, in
 * every dimension (a read past the end of a row is outside the input even where the next
 * row's memory lies), and so must its flattened index. */
int tine_kernel_check_region(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                             const tine_buffer_t *out) {
    tine_ctx_t *ctx = k->ctx;
    int dims = tine_kernel_dims(k);
    for (int d = 0; d < dims; d++)
        if (out->extent[d] < 1) {
            tine_set_error(ctx, "output '%s' has an empty extent in dimension %d", k->out->name, d);
            return -1;
        }
    /* every scalar leaf gets its value as its range; coordinates their output range (all
       are i32 in the bodies: a value beyond that is refused, not left to a stale range) */
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, k->body1, &n);
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const tine_expr_t *v = order[i];
        if (v->op != TINE_OP_VAR) continue;
        const char *name = tine_expr_name(v);
        int64_t x;
        if (name[0] == '$' && name[1] == 'c' && name[2] >= '0' && name[2] <= '3' && !name[3]) {
            int d = name[2] - '0';
            if (tine_bounds_set_var(ctx, v, out->min[d], out->min[d] + out->extent[d] - 1)) {
                tine_set_error(ctx, "output '%s' spans [%lld, %lld] in dimension %d; coordinates must fit in i32",
                               k->out->name, (long long)out->min[d], (long long)(out->min[d] + out->extent[d] - 1), d);
                rc = -1;
            }
        } else if (tine_kernel_scalar(k, name, inputs, params, out, &x) == 0 && tine_type_is_int(v->type)) {
            if (tine_bounds_set_var(ctx, v, x, x)) {
                tine_set_error(ctx, "a buffer's min, extent or stride (%s = %lld) does not fit in i32", name + 1,
                               (long long)x);
                rc = -1;
            }
        }
    }
    for (int i = 0; i < tine_kernel_ninputs(k) && rc == 0; i++) {
        int id;
        const char *name = tine_kernel_input(k, i, NULL, &id);
        /* the coordinates of every load of this input, by dimension, over the whole output:
           all inside the buffer (a read past the end of a row is outside the input, even
           where the next row's memory lies) */
        tine_i128 rlo[4], rhi[4];
        bool any = false, known = true;
        for (uint32_t j = 0; j < n && known; j++) {
            const tine_expr_t *e = order[j], *x[4];
            if (e->op != TINE_OP_LOAD || strcmp(tine_expr_name(e), name)) continue;
            known = load_coords(tine_expr_operand(e, 0), id, x);
            for (int d = 0; d < id && known; d++) {
                tine_i128 lo, hi;
                known = tine_bounds(ctx, x[d], &lo, &hi);
                if (known) {
                    rlo[d] = any && rlo[d] < lo ? rlo[d] : lo;
                    rhi[d] = any && rhi[d] > hi ? rhi[d] : hi;
                }
            }
            any = true;
        }
        bool inside = true;
        for (int d = 0; d < id && known && any; d++)
            inside &= rlo[d] >= inputs[i]->min[d] && rhi[d] <= (tine_i128)inputs[i]->min[d] + inputs[i]->extent[d] - 1;
        if (!inside) {
            tine_buf b = {0};
            tine_buf_printf(&b, "input '%s' is too small for this output: the kernel reads it at ", name);
            for (int d = 0; d < id; d++)
                tine_buf_printf(&b, "%s[%lld, %lld]", d ? " x " : "", (long long)rlo[d], (long long)rhi[d]);
            tine_buf_puts(&b, ", but it covers ");
            for (int d = 0; d < id; d++)
                tine_buf_printf(&b, "%s[%lld, %lld]", d ? " x " : "", (long long)inputs[i]->min[d],
                                (long long)(inputs[i]->min[d] + inputs[i]->extent[d] - 1));
            tine_set_error_str(ctx, b.p);
            rc = -1;
        }
        /* and the flattened index of every load, over the whole output */
        for (uint32_t j = 0; j < n && rc == 0; j++) {
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
                for (int d = 0; d < id; d++)
                    tine_buf_printf(&b, "%s[%lld, %lld]", d ? " x " : "", (long long)inputs[i]->min[d],
                                    (long long)(inputs[i]->min[d] + inputs[i]->extent[d] - 1));
                tine_buf_puts(&b, ")");
                tine_set_error_str(ctx, b.p);
                rc = -1;
            }
        }
    }
    free(order);
    return rc;
}

/* ---- reference run ---------------------------------------------------------------------- */

static void store_lane(void *data, tine_type_t t, size_t index, uint64_t v) {
    memcpy((char *)data + index * (size_t)(t.bits / 8), &v, (size_t)(t.bits / 8)); /* little-endian host */
}

int tine_kernel_interpret(const tine_kernel_t *k, tine_buffer_t *const *inputs, const void *const *params,
                          tine_buffer_t *out) {
    tine_ctx_t *ctx = k->ctx;
    if (tine_kernel_check_region(k, inputs, params, out)) return -1;
    int dims = tine_kernel_dims(k);
    tine_type_t ot = tine_kernel_output_type(k);
    /* bind every scalar and buffer once; then sweep the domain with one lane */
    tine_env_t *env = tine_env_new(ctx);
    for (int i = 0; i < tine_kernel_ninputs(k); i++) {
        tine_type_t et;
        int id;
        const char *name = tine_kernel_input(k, i, &et, &id);
        tine_env_bind_buffer(env, name, et, inputs[i]->data, span(inputs[i], id));
    }
    uint32_t n;
    tine_expr_t **order = tine_topo(ctx, k->body1, &n);
    const tine_expr_t *coord[4] = {0};
    for (uint32_t i = 0; i < n; i++) {
        const tine_expr_t *v = order[i];
        if (v->op != TINE_OP_VAR) continue;
        const char *name = tine_expr_name(v);
        int64_t x;
        if (name[0] == '$' && name[1] == 'c' && name[2] >= '0' && name[2] <= '3' && !name[3]) coord[name[2] - '0'] = v;
        else if (tine_kernel_scalar(k, name, inputs, params, out, &x) == 0) tine_env_bind(env, v, (uint64_t *)&x);
    }
    free(order);
    int64_t c[4] = {0};
    int rc = 0;
    size_t total = 1;
    for (int d = 0; d < dims; d++) total *= (size_t)out->extent[d];
    for (size_t p = 0; p < total && rc == 0; p++) {
        size_t q = p, index = 0;
        for (int d = 0; d < dims; d++) {
            c[d] = out->min[d] + (int64_t)(q % (size_t)out->extent[d]);
            index += (size_t)(c[d] - out->min[d]) * (size_t)(d ? out->stride[d] : 1);
            q /= (size_t)out->extent[d];
            if (coord[d]) tine_env_bind(env, coord[d], (uint64_t *)&c[d]);
        }
        uint64_t v;
        rc = tine_eval(ctx, k->body1, env, &v);
        if (rc == 0) store_lane(out->data, ot, index, v);
    }
    tine_env_free(env);
    return rc;
}

tine_ctx_t *tine_kernel_ctx(const tine_kernel_t *k) { return k->ctx; }
const char *tine_kernel_output_name(const tine_kernel_t *k) { return k->out->name; }
