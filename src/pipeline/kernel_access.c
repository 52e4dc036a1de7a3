/* kernel_access.c — what a built kernel tells its users: its stages, its output, inputs
 * and parameters, and the small lookups every file of the front half shares (a
 * declaration by name, a coordinate's variable, a load's coordinates). It calls nothing
 * else of src/pipeline: the rest of the front half is built on it. */
#include "kernel.h"

int tine_kernel_nstages(const tine_kernel_t *k) { return k->nstages; }
const tine_stage *tine_kernel_stage(const tine_kernel_t *k, int i) { return &k->stages[i]; }
const char *tine_kernel_stage_name(const tine_kernel_t *k, int i) {
    return i >= 0 && i < k->nstages ? k->stages[i].name : NULL;
}

const char *tine_kernel_decl(const tine_kernel_t *k, int i, const char **kind, int *line) {
    static const char *const KINDS[] = {[K_INPUT] = "input", [K_PARAM] = "param", [K_FUNC] = "func",
                                        [K_BOUNDARY] = "boundary", [K_OUTPUT] = "output"};
    if (i < 0 || i >= k->ast.ndecls) return NULL;
    const tine_kdecl *d = &k->ast.decls[i];
    if (kind) *kind = KINDS[d->kind];
    if (line) *line = d->line;
    return d->name;
}

const char *tine_kernel_directive(const tine_kernel_t *k, int i, int *line) {
    if (i < 0 || i >= k->ast.nsched) return NULL;
    const tine_kdirective *s = &k->ast.sched[i];
    if (line) *line = s->line;
    return s->func ? s->func : "";
}
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

int tine_kernel_lanes(const tine_kernel_t *k) { return last(k)->lanes; }
const tine_expr_t *tine_kernel_body(const tine_kernel_t *k, int scalar) { return scalar ? last(k)->body1 : last(k)->body; }
int tine_kernel_dims(const tine_kernel_t *k) { return k->out->nargs; }

tine_type_t tine_kernel_output_type(const tine_kernel_t *k) {
    tine_type_t t = {0, 0, 0};
    tine_parse_type_name(k->out->type->name, strlen(k->out->type->name), &t);
    return t;
}

const tine_kdecl *tine_kernel_nth(const tine_kernel_t *k, tine_kdecl_kind kind, int i) {
    for (int j = 0; j < k->ast.ndecls; j++)
        if (k->ast.decls[j].kind == kind && i-- == 0) return &k->ast.decls[j];
    return NULL;
}

int tine_kernel_ninputs(const tine_kernel_t *k) {
    int n = 0;
    while (tine_kernel_nth(k, K_INPUT, n)) n++;
    return n;
}

const char *tine_kernel_input(const tine_kernel_t *k, int i, tine_type_t *elem, int *dims) {
    const tine_kdecl *d = tine_kernel_nth(k, K_INPUT, i);
    if (!d) return NULL;
    if (elem) tine_parse_type_name(d->type->name, strlen(d->type->name), elem);
    if (dims) *dims = d->dims;
    return d->name;
}

int tine_kernel_nparams(const tine_kernel_t *k) {
    int n = 0;
    while (tine_kernel_nth(k, K_PARAM, n)) n++;
    return n;
}

const char *tine_kernel_param(const tine_kernel_t *k, int i, tine_type_t *t) {
    const tine_kdecl *d = tine_kernel_nth(k, K_PARAM, i);
    if (!d) return NULL;
    if (t) tine_parse_type_name(d->type->name, strlen(d->type->name), t);
    return d->name;
}

int tine_kernel_param_range(const tine_kernel_t *k, int i, int64_t *lo, int64_t *hi) {
    const tine_kdecl *d = tine_kernel_nth(k, K_PARAM, i);
    if (!d || !d->ranged) return 0;
    *lo = d->lo;
    *hi = d->hi;
    return 1;
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

tine_ctx_t *tine_kernel_ctx(const tine_kernel_t *k) { return k->ctx; }
const char *tine_kernel_output_name(const tine_kernel_t *k) { return k->out->name; }
