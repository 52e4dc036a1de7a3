/* front.c — tine vectorize's front end: a C kernel run symbolically into its spec.
 *
 * The function is executed with integers concrete and floats symbolic: every loop is
 * unrolled by running it, every `if` (on integers: loop indices) decided, every helper of
 * the file inlined by calling it, and each float operation becomes a hash-consed spec node
 * over the input elements (Diospyros's lifting). What the subset has (issue 35): array
 * parameters of fixed size, const for inputs; int, float and float-array locals; for,
 * while, if, blocks, assignments and compound assignments; + - * /, unary -, sqrtf, fmaf,
 * and `c ? x : y` on a float comparison (a select). Anything else is an error at the
 * construct, naming it.
 */
#include "spec.h"

#include <math.h>

typedef enum { V_NONE, V_INT, V_FLOAT, V_ARRAY } vkind;

typedef struct {
    vkind k;
    int64_t i;      /* V_INT */
    int32_t f;      /* V_FLOAT: a spec node (a CMP node: a condition) */
    int store, off; /* V_ARRAY: the storage and the first element */
    int ndims;
    int dim[4];     /* V_ARRAY: extents, outermost first (dim[0] 0: unknown) */
} value;

typedef struct {
    int array;      /* spec array, or -1 for a local */
    int32_t *elem;  /* node per element; -1 unwritten */
    int count;      /* elements (a parameter's grow as touched) */
    bool param, written, is_const;
} store;

typedef struct {
    const tine_cnode *decl;
    value v;
} binding;

typedef enum { S_OK, S_BREAK, S_CONTINUE, S_RETURN, S_ERR } status;

typedef struct {
    tine_ctx_t *ctx;
    const tine_cfile *f;
    const char *text;
    vz_spec *s;
    vz_front_limits lim;
    store *st;
    int nst, capst;
    binding *b;
    int nb, capb;
    int frame;      /* first binding of the running function */
    int depth;
    value ret;
    long steps;
    bool failed;
} fe;

static bool fail(fe *e, const tine_cnode *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(fe *e, const tine_cnode *at, const char *fmt, ...) {
    if (e->failed) return false;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tine_cfile_error(e->ctx, e->f, at->range.begin, "%s", msg);
    e->failed = true;
    return false;
}

static const char *construct(const tine_cnode *n) {
    switch (n->kind) {
    case TINE_CS_WHILE: return "a while loop";
    case TINE_CS_DO: return "a do loop";
    case TINE_CS_ASM: return "inline assembly";
    case TINE_CS_OTHER: return "this statement (switch, goto, label or declaration)";
    case TINE_CE_MEMBER: return "a struct member";
    case TINE_CE_INIT_LIST: return "an initializer list here";
    case TINE_CE_OTHER: return "this expression";
    default: return "this construct";
    }
}

/* ---- storage and variables ------------------------------------------------------------ */

static int new_store(fe *e, int array, int count, bool param, bool is_const) {
    TINE_GROW(e->st, (size_t)e->nst + 1, e->capst);
    store *x = &e->st[e->nst];
    *x = (store){.array = array, .count = count, .param = param, .is_const = is_const};
    x->elem = tine_xmalloc(sizeof *x->elem * (size_t)(count > 0 ? count : 1));
    for (int i = 0; i < count; i++) x->elem[i] = -1;
    return e->nst++;
}

/* Element idx of a parameter's storage exists (its extent grows to the largest touched). */
static void touch(fe *e, store *x, int idx) {
    if (idx < x->count) return;
    int n = idx + 1;
    x->elem = tine_xrealloc_array(x->elem, (size_t)n, sizeof *x->elem);
    for (int i = x->count; i < n; i++) x->elem[i] = -1;
    x->count = n;
    (void)e;
}

static binding *lookup(fe *e, const tine_cnode *decl) {
    for (int i = e->nb - 1; i >= e->frame; i--)
        if (e->b[i].decl == decl) return &e->b[i];
    return NULL;
}

static void bind(fe *e, const tine_cnode *decl, value v) {
    binding *x = lookup(e, decl);
    if (x) {
        x->v = v;
        return;
    }
    TINE_GROW(e->b, (size_t)e->nb + 1, e->capb);
    e->b[e->nb++] = (binding){decl, v};
}

static bool is_float(const tine_ctype *t) { return t && t->kind == TINE_CT_FLOAT; }
static bool is_int(const tine_ctype *t) { return t && t->kind == TINE_CT_INT; }

/* The float element type under arrays and pointers, with the extents on the way. */
static const tine_ctype *array_shape(const tine_ctype *t, int *dim, int *ndims) {
    *ndims = 0;
    while (t && (t->kind == TINE_CT_ARRAY || t->kind == TINE_CT_PTR) && *ndims < 4) {
        dim[(*ndims)++] = t->kind == TINE_CT_ARRAY ? t->count : 0;
        t = t->pointee;
    }
    return t;
}

/* ---- expressions ---------------------------------------------------------------------- */

static bool eval(fe *e, const tine_cnode *n, value *out);

static value vint(int64_t i) { return (value){.k = V_INT, .i = i}; }
static value vflt(int32_t f) { return (value){.k = V_FLOAT, .f = f}; }

static bool check_nodes(fe *e, const tine_cnode *at) {
    if ((size_t)e->s->nnodes > e->lim.max_nodes)
        return fail(e, at, "the kernel's specification passes %zu nodes (the limit; it is too large to vectorize)",
                    e->lim.max_nodes);
    return true;
}

static int32_t node(fe *e, int op, int64_t data, int n, const int32_t *k) { return vz_add(e->s, op, data, n, k); }

/* A value as a float node: integers convert (C's usual conversions), conditions do not. */
static bool as_float(fe *e, const tine_cnode *at, value v, int32_t *f) {
    if (v.k == V_INT) {
        *f = vz_const(e->s, (double)v.i);
        return true;
    }
    if (v.k == V_FLOAT && e->s->node[v.f].op != VZ_CMP) {
        *f = v.f;
        return true;
    }
    if (v.k == V_FLOAT) return fail(e, at, "a float comparison used as a number (only `c ? x : y` takes one)");
    return fail(e, at, "an array where a number is expected");
}

static bool as_int(fe *e, const tine_cnode *at, value v, int64_t *i) {
    if (v.k == V_INT) {
        *i = v.i;
        return true;
    }
    if (v.k == V_FLOAT)
        return fail(e, at, "this integer depends on a float value; in tine vectorize's subset loop bounds, indices "
                           "and if conditions are integers known while unrolling (a value choice is `c ? x : y`)");
    return fail(e, at, "an array where an integer is expected");
}

/* Applies the implicit conversion around n (an int used as a float). */
static bool convert(fe *e, const tine_cnode *n, value *v) {
    if (v->k == V_INT && is_float(n->conv)) {
        int32_t f = -1;
        if (!as_float(e, n, *v, &f)) return false;
        *v = vflt(f);
    } else if (v->k == V_FLOAT && is_int(n->conv) && e->s->node[v->f].op != VZ_CMP)
        return fail(e, n, "a float converted to an integer (outside tine vectorize's subset)");
    return true;
}

static bool float_literal(fe *e, const tine_cnode *n, value *out) {
    unsigned len = n->range.end.off - n->range.begin.off;
    char buf[128];
    if (len == 0 || len >= sizeof buf) return fail(e, n, "%s", construct(n));
    memcpy(buf, e->text + n->range.begin.off, len);
    buf[len] = 0;
    char *end;
    double d = strtod(buf, &end);
    if (end == buf || (*end && strchr("fFlL", *end) == NULL)) return fail(e, n, "%s", construct(n));
    if (n->type && n->type->elem.bits == 32) d = (float)d; /* a float literal is rounded once, as C does */
    *out = vflt(vz_const(e->s, d));
    return true;
}

/* The element an lvalue or rvalue subscript names: its storage and index. */
static bool element(fe *e, const tine_cnode *n, store **x, int *idx, value *sub) {
    value base, ix;
    if (!eval(e, n->kid[0], &base) || !eval(e, n->kid[1], &ix)) return false;
    if (base.k != V_ARRAY) return fail(e, n, "a subscript of something that is not an array");
    int64_t i = 0;
    if (!as_int(e, n->kid[1], ix, &i)) return false;
    if (i < 0 || (base.dim[0] > 0 && i >= base.dim[0]))
        return fail(e, n, "index %lld is outside the array's %d elements", (long long)i, base.dim[0]);
    int64_t inner = 1;
    for (int d = 1; d < base.ndims; d++) inner *= base.dim[d];
    int64_t at = base.off + i * inner;
    if (at > (1 << 24)) return fail(e, n, "index %lld is too large for tine vectorize (at most 16M elements)", (long long)at);
    *x = &e->st[base.store];
    if (base.ndims > 1) { /* a row: the array one dimension down */
        *sub = base;
        sub->off = (int)at;
        sub->ndims--;
        memmove(sub->dim, sub->dim + 1, sizeof *sub->dim * (size_t)sub->ndims);
        *idx = -1;
        return true;
    }
    if ((*x)->param) touch(e, *x, (int)at);
    else if (at >= (*x)->count) return fail(e, n, "index %lld is outside the local array", (long long)at);
    *idx = (int)at;
    return true;
}

static bool read_element(fe *e, const tine_cnode *n, store *x, int idx, value *out) {
    if (x->elem[idx] < 0) {
        if (!x->param) return fail(e, n, "this element of a local array is read before it is written");
        x->elem[idx] = vz_get(e->s, x->array, idx); /* the parameter's element as the kernel gets it */
    }
    *out = vflt(x->elem[idx]);
    return true;
}

typedef struct {
    binding *var;   /* a variable */
    store *x;       /* or an array element */
    int idx;
} lvalue;

static bool eval_lvalue(fe *e, const tine_cnode *n, lvalue *lv) {
    while (n->kind == TINE_CE_PAREN) n = n->kid[0];
    *lv = (lvalue){0};
    if (n->kind == TINE_CE_REF && n->decl) {
        lv->var = lookup(e, n->decl);
        if (!lv->var) return fail(e, n, "'%s' is not a variable of this function", n->name);
        if (lv->var->v.k == V_ARRAY) return fail(e, n, "assignment to a whole array");
        return true;
    }
    if (n->kind == TINE_CE_SUBSCRIPT) {
        value sub;
        if (!element(e, n, &lv->x, &lv->idx, &sub)) return false;
        if (lv->idx < 0) return fail(e, n, "assignment to a whole row of an array");
        if (lv->x->is_const) return fail(e, n, "a write to a const array");
        return true;
    }
    if (n->kind == TINE_CE_REF) return fail(e, n, "a write to the global '%s' (outside tine vectorize's subset)", n->name);
    return fail(e, n, "%s cannot be assigned to in tine vectorize's subset", construct(n));
}

static bool lv_read(fe *e, const tine_cnode *n, lvalue *lv, value *out) {
    if (lv->var) {
        if (lv->var->v.k == V_NONE) return fail(e, n, "'%s' is read before it is written", lv->var->decl->name);
        *out = lv->var->v;
        return true;
    }
    return read_element(e, n, lv->x, lv->idx, out);
}

static bool lv_write(fe *e, const tine_cnode *n, lvalue *lv, value v) {
    if (lv->var) {
        const tine_ctype *t = lv->var->decl->type;
        if (is_float(t)) {
            int32_t f = -1;
            if (!as_float(e, n, v, &f)) return false;
            v = vflt(f);
        } else if (is_int(t)) {
            int64_t i = 0;
            if (!as_int(e, n, v, &i)) return false;
            v = vint(i);
        }
        lv->var->v = v;
        return true;
    }
    int32_t f = -1;
    if (!as_float(e, n, v, &f)) return false;
    lv->x->elem[lv->idx] = f;
    lv->x->written = true;
    return true;
}

static bool int_binary(fe *e, const tine_cnode *n, const char *op, int64_t a, int64_t b, int64_t *r) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    if (!strcmp(op, "+")) *r = (int64_t)(ua + ub);
    else if (!strcmp(op, "-")) *r = (int64_t)(ua - ub);
    else if (!strcmp(op, "*")) *r = (int64_t)(ua * ub);
    else if (!strcmp(op, "/") || !strcmp(op, "%")) {
        if (b == 0 || (a == INT64_MIN && b == -1)) return fail(e, n, "an integer division by zero");
        *r = op[0] == '/' ? a / b : a % b;
    } else if (!strcmp(op, "<")) *r = a < b;
    else if (!strcmp(op, "<=")) *r = a <= b;
    else if (!strcmp(op, ">")) *r = a > b;
    else if (!strcmp(op, ">=")) *r = a >= b;
    else if (!strcmp(op, "==")) *r = a == b;
    else if (!strcmp(op, "!=")) *r = a != b;
    else if (!strcmp(op, "&&")) *r = a && b;
    else if (!strcmp(op, "||")) *r = a || b;
    else if (!strcmp(op, "&")) *r = a & b;
    else if (!strcmp(op, "|")) *r = a | b;
    else if (!strcmp(op, "^")) *r = a ^ b;
    else if (!strcmp(op, "<<") && b >= 0 && b < 63) *r = (int64_t)(ua << b);
    else if (!strcmp(op, ">>") && b >= 0 && b < 63) *r = a >> b;
    else return fail(e, n, "the integer operator '%s' (outside tine vectorize's subset)", op);
    return true;
}

static int float_op(const char *op) {
    if (!strcmp(op, "+")) return VZ_ADD;
    if (!strcmp(op, "-")) return VZ_SUB;
    if (!strcmp(op, "*")) return VZ_MUL;
    if (!strcmp(op, "/")) return VZ_DIV;
    return -1;
}

static int pred_of(const char *op) {
    static const char *const p[] = {"<", "<=", ">", ">=", "==", "!="};
    for (int i = 0; i < 6; i++)
        if (!strcmp(op, p[i])) return i;
    return -1;
}

/* a OP b for numbers: both integers stay concrete, else a float node. */
static bool arith(fe *e, const tine_cnode *n, const char *op, value a, value b, value *out) {
    if (a.k == V_INT && b.k == V_INT) {
        int64_t r = 0;
        if (!int_binary(e, n, op, a.i, b.i, &r)) return false;
        *out = vint(r);
        return true;
    }
    int fop = float_op(op), pred = pred_of(op);
    if (fop < 0 && pred < 0) return fail(e, n, "the operator '%s' on floats (outside tine vectorize's subset)", op);
    int32_t k[2];
    if (!as_float(e, n->kid[0], a, &k[0]) || !as_float(e, n->kid[1], b, &k[1])) return false;
    *out = vflt(fop >= 0 ? node(e, fop, 0, 2, k) : node(e, VZ_CMP, pred, 2, k));
    return check_nodes(e, n);
}

static bool call(fe *e, const tine_cnode *n, value *out);

static bool check_width(fe *e, const tine_cnode *n) {
    /* float arithmetic of another width than the kernel's: C's double promotion
       (x * 0.5 with x a float) changes the result, so the subset refuses it */
    if (n->type && n->type->kind == TINE_CT_FLOAT && n->type->elem.bits != e->s->elem.bits)
        return fail(e, n, "%s arithmetic in a kernel of %s (write the literal with the kernel's type, 0.5f)",
                    n->type->elem.bits == 64 ? "double" : "float", e->s->elem.bits == 32 ? "float" : "double");
    return true;
}

static bool eval_raw(fe *e, const tine_cnode *n, value *out) {
    if (n->is_const && (n->kind != TINE_CE_OTHER || is_int(n->type))) {
        *out = vint(n->value);
        return true;
    }
    switch (n->kind) {
    case TINE_CE_INT: *out = vint(n->value); return true;
    case TINE_CE_PAREN: return eval(e, n->kid[0], out);
    case TINE_CE_OTHER:
        if (n->nkids == 0 && is_float(n->type)) return float_literal(e, n, out);
        return fail(e, n, "%s (outside tine vectorize's subset)", construct(n));
    case TINE_CE_REF: {
        binding *x = n->decl ? lookup(e, n->decl) : NULL;
        if (!x) return fail(e, n, "'%s' is not a variable of this function (globals are outside the subset)", n->name);
        if (x->v.k == V_NONE) return fail(e, n, "'%s' is read before it is written", n->name);
        *out = x->v;
        return true;
    }
    case TINE_CE_CAST: {
        value v = {0};
        if (!eval(e, n->kid[0], &v)) return false;
        if (n->type && n->type->kind == TINE_CT_VOID) { /* (void)x: evaluated, dropped */
            *out = vint(0);
            return true;
        }
        if (is_float(n->type) && v.k == V_INT) {
            *out = vflt(vz_const(e->s, (double)v.i));
            return true;
        }
        if ((is_float(n->type) && v.k == V_FLOAT) || (is_int(n->type) && v.k == V_INT)) {
            *out = v;
            return check_width(e, n);
        }
        return fail(e, n, "this cast (outside tine vectorize's subset)");
    }
    case TINE_CE_SUBSCRIPT: {
        store *x;
        int idx;
        value sub;
        if (!element(e, n, &x, &idx, &sub)) return false;
        if (idx < 0) {
            *out = sub;
            return true;
        }
        return read_element(e, n, x, idx, out);
    }
    case TINE_CE_UNARY: {
        const char *op = n->name;
        if (!strcmp(op, "++") || !strcmp(op, "--")) {
            lvalue lv;
            value v = {0};
            if (!eval_lvalue(e, n->kid[0], &lv) || !lv_read(e, n, &lv, &v)) return false;
            value r = {0};
            if (v.k == V_INT) r = vint(v.i + (op[0] == '+' ? 1 : -1));
            else if (!arith(e, n, op[0] == '+' ? "+" : "-", v, vint(1), &r)) return false;
            if (!lv_write(e, n, &lv, r)) return false;
            *out = n->postfix ? v : r;
            return true;
        }
        value v = {0};
        if (!eval(e, n->kid[0], &v)) return false;
        if (!strcmp(op, "+")) *out = v;
        else if (!strcmp(op, "-") && v.k == V_INT) *out = vint((int64_t)(0 - (uint64_t)v.i));
        else if (!strcmp(op, "-")) {
            int32_t f = -1;
            if (!as_float(e, n->kid[0], v, &f)) return false;
            *out = vflt(node(e, VZ_NEG, 0, 1, &f));
        } else if (!strcmp(op, "!") && v.k == V_INT) *out = vint(!v.i);
        else if (!strcmp(op, "~") && v.k == V_INT) *out = vint(~v.i);
        else return fail(e, n, "the operator '%s' here (outside tine vectorize's subset)", op);
        return check_width(e, n);
    }
    case TINE_CE_BINARY: {
        const char *op = n->name;
        size_t len = strlen(op);
        bool assign = len >= 1 && op[len - 1] == '=' && strcmp(op, "==") && strcmp(op, "!=") && strcmp(op, "<=") &&
                      strcmp(op, ">=");
        if (assign) {
            lvalue lv;
            value r = {0};
            if (!eval(e, n->kid[1], &r) || !eval_lvalue(e, n->kid[0], &lv)) return false;
            if (len > 1) { /* x OP= y: x OP y, x read first */
                char bop[4] = {0};
                memcpy(bop, op, len - 1 < 3 ? len - 1 : 3);
                value l;
                if (!lv_read(e, n, &lv, &l) || !arith(e, n, bop, l, r, &r)) return false;
            }
            if (!lv_write(e, n, &lv, r)) return false;
            *out = r;
            return check_width(e, n);
        }
        value a, b;
        if (!strcmp(op, "&&") || !strcmp(op, "||")) { /* short circuit, on integers */
            int64_t x = 0, y = 0;
            if (!eval(e, n->kid[0], &a) || !as_int(e, n->kid[0], a, &x)) return false;
            if ((op[0] == '&') == (x != 0)) {
                if (!eval(e, n->kid[1], &b) || !as_int(e, n->kid[1], b, &y)) return false;
            }
            *out = vint(op[0] == '&' ? (x && y) : (x || y));
            return true;
        }
        if (!strcmp(op, ",")) return eval(e, n->kid[0], &a) && eval(e, n->kid[1], out);
        if (!eval(e, n->kid[0], &a) || !eval(e, n->kid[1], &b)) return false;
        return arith(e, n, op, a, b, out) && check_width(e, n);
    }
    case TINE_CE_COND: {
        value c, a, b;
        if (!eval(e, n->kid[0], &c)) return false;
        if (c.k == V_INT) return eval(e, c.i ? n->kid[1] : n->kid[2], out);
        if (c.k != V_FLOAT || e->s->node[c.f].op != VZ_CMP)
            return fail(e, n->kid[0], "the condition of `?:` is a float comparison or an integer in the subset");
        int32_t k[3] = {c.f};
        if (!eval(e, n->kid[1], &a) || !eval(e, n->kid[2], &b) || !as_float(e, n->kid[1], a, &k[1]) ||
            !as_float(e, n->kid[2], b, &k[2]))
            return false;
        *out = vflt(node(e, VZ_SEL, 0, 3, k));
        return check_nodes(e, n);
    }
    case TINE_CE_CALL: return call(e, n, out);
    default: return fail(e, n, "%s (outside tine vectorize's subset)", construct(n));
    }
}

static bool eval(fe *e, const tine_cnode *n, value *out) {
    if (!n) return false;
    return eval_raw(e, n, out) && convert(e, n, out);
}

/* ---- statements ----------------------------------------------------------------------- */

static status exec(fe *e, const tine_cnode *n);

static bool init_array(fe *e, const tine_cnode *list, store *x, int *at, int inner) {
    for (int i = 0; i < list->nkids; i++) {
        const tine_cnode *k = list->kid[i];
        if (k->kind == TINE_CE_INIT_LIST) {
            int start = *at;
            if (!init_array(e, k, x, at, 1)) return false;
            *at = start + inner; /* a row's initializer fills its row; the rest is zero */
            continue;
        }
        value v = {0};
        int32_t f = -1;
        if (!eval(e, k, &v) || !as_float(e, k, v, &f)) return false;
        if (*at >= x->count) return fail(e, k, "too many initializers");
        x->elem[(*at)++] = f;
    }
    return true;
}

static status decl(fe *e, const tine_cnode *n) {
    const tine_ctype *t = n->type;
    const tine_cnode *init = n->nkids ? n->kid[0] : NULL;
    if (n->is_static) return fail(e, n, "a static local (outside tine vectorize's subset)"), S_ERR;
    if (is_int(t) || is_float(t)) {
        value v = {.k = V_NONE};
        if (init && !eval(e, init, &v)) return S_ERR;
        if (init && is_float(t)) {
            int32_t f = -1;
            if (!as_float(e, init, v, &f)) return S_ERR;
            v = vflt(f);
        } else if (init) {
            int64_t i = 0;
            if (!as_int(e, init, v, &i)) return S_ERR;
            v = vint(i);
        }
        if (is_float(t) && t->elem.bits != e->s->elem.bits)
            return fail(e, n, "a variable of another float type than the kernel's arrays"), S_ERR;
        bind(e, n, v);
        return S_OK;
    }
    if (t && t->kind == TINE_CT_ARRAY) {
        value v = {.k = V_ARRAY};
        const tine_ctype *el = array_shape(t, v.dim, &v.ndims);
        int64_t count = 1;
        for (int d = 0; d < v.ndims; d++) count *= v.dim[d];
        if (!is_float(el) || el->elem.bits != e->s->elem.bits || count <= 0 || count > (1 << 20))
            return fail(e, n, "a local array of the kernel's float type and fixed size is expected"), S_ERR;
        v.store = new_store(e, -1, (int)count, false, false);
        if (init) {
            if (init->kind != TINE_CE_INIT_LIST) return fail(e, init, "an array initialized by this expression"), S_ERR;
            store *x = &e->st[v.store];
            int32_t zero = vz_const(e->s, 0.0);
            for (int i = 0; i < x->count; i++) x->elem[i] = zero; /* C: the rest is zero */
            int at = 0;
            if (!init_array(e, init, x, &at, v.ndims > 1 ? v.dim[v.ndims - 1] : 1)) return S_ERR;
        }
        bind(e, n, v);
        return S_OK;
    }
    return fail(e, n, "a variable of type '%s' (the subset has int, float and float arrays)", t ? t->spelling : "?"), S_ERR;
}

static bool cond_of(fe *e, const tine_cnode *c, bool *r) {
    value v = {0};
    int64_t i = 0;
    if (!eval(e, c, &v)) return false;
    if (v.k == V_FLOAT && e->s->node[v.f].op == VZ_CMP)
        return fail(e, c, "an if or loop condition on float values; tine vectorize's subset decides these on loop "
                          "indices only (a value choice is `c ? x : y`)");
    if (!as_int(e, c, v, &i)) return false;
    *r = i != 0;
    return true;
}

static bool step(fe *e, const tine_cnode *n) {
    if (++e->steps > e->lim.max_steps)
        return fail(e, n, "the kernel runs more than %ld statements when unrolled (the limit)", e->lim.max_steps);
    return true;
}

static status loop(fe *e, const tine_cnode *n, const tine_cnode *cond, const tine_cnode *inc, const tine_cnode *body,
                   bool test_first) {
    for (bool first = true;; first = false) {
        bool go = true;
        if ((test_first || !first) && cond && !cond_of(e, cond, &go)) return S_ERR;
        if (!go) return S_OK;
        if (!step(e, n)) return S_ERR;
        status s = body ? exec(e, body) : S_OK;
        if (s == S_ERR || s == S_RETURN) return s;
        if (s == S_BREAK) return S_OK;
        value v = {0};
        if (inc && !eval(e, inc, &v)) return S_ERR;
    }
}

static status exec(fe *e, const tine_cnode *n) {
    if (!n) return S_OK;
    if (!step(e, n)) return S_ERR;
    switch (n->kind) {
    case TINE_CS_COMPOUND:
        for (int i = 0; i < n->nkids; i++) {
            status s = exec(e, n->kid[i]);
            if (s != S_OK) return s;
        }
        return S_OK;
    case TINE_CS_DECL: return decl(e, n);
    case TINE_CS_EXPR: {
        value v = {0};
        return eval(e, n->kid[0], &v) ? S_OK : S_ERR;
    }
    case TINE_CS_NULL: return S_OK;
    case TINE_CS_IF: {
        bool c;
        if (!cond_of(e, n->kid[0], &c)) return S_ERR;
        return exec(e, c ? n->kid[1] : n->kid[2]);
    }
    case TINE_CS_FOR: {
        status s = exec(e, n->kid[0]);
        if (s != S_OK) return s;
        return loop(e, n, n->kid[1], n->kid[2], n->kid[3], true);
    }
    case TINE_CS_WHILE: return loop(e, n, n->kid[0], NULL, n->kid[1], true);
    case TINE_CS_DO: return loop(e, n, n->kid[1], NULL, n->kid[0], false);
    case TINE_CS_BREAK: return S_BREAK;
    case TINE_CS_CONTINUE: return S_CONTINUE;
    case TINE_CS_RETURN:
        e->ret = (value){.k = V_NONE};
        if (n->kid[0] && !eval(e, n->kid[0], &e->ret)) return S_ERR;
        return S_RETURN;
    default: return fail(e, n, "%s (outside tine vectorize's subset)", construct(n)), S_ERR;
    }
}

/* ---- calls: sqrtf, fmaf and the file's own functions, inlined -------------------------- */

static const tine_cfunc *find_func(const tine_cfile *f, const char *name) {
    for (int i = 0; i < tine_cfile_nfuncs(f); i++)
        if (!strcmp(tine_cfile_func(f, i)->name, name)) return tine_cfile_func(f, i);
    return NULL;
}

static bool call(fe *e, const tine_cnode *n, value *out) {
    const char *name = n->name ? n->name : "";
    bool single = e->s->elem.bits == 32;
    int op = !strcmp(name, single ? "sqrtf" : "sqrt") ? VZ_SQRT : !strcmp(name, single ? "fmaf" : "fma") ? VZ_FMA : -1;
    if (op >= 0) {
        int32_t k[3];
        if (n->nkids != vz_op_arity(op)) return fail(e, n, "%s takes %d arguments", name, vz_op_arity(op));
        for (int i = 0; i < n->nkids; i++) {
            value v = {0};
            if (!eval(e, n->kid[i], &v) || !as_float(e, n->kid[i], v, &k[i])) return false;
        }
        *out = vflt(node(e, op, 0, n->nkids, k));
        return check_nodes(e, n);
    }
    const tine_cfunc *fn = n->name ? find_func(e->f, name) : NULL;
    if (!fn)
        return fail(e, n, "a call of '%s': the subset calls %s, %s and functions defined in this file", name,
                    single ? "sqrtf" : "sqrt", single ? "fmaf" : "fma");
    if (fn->nparams != n->nkids) return fail(e, n, "'%s' takes %d arguments", name, fn->nparams);
    if (e->depth >= 64) return fail(e, n, "calls nested more than 64 deep (recursion is outside the subset)");
    value args[64];
    if (n->nkids > 64) return fail(e, n, "a call with more than 64 arguments");
    for (int i = 0; i < n->nkids; i++)
        if (!eval(e, n->kid[i], &args[i])) return false;
    int saved_frame = e->frame, saved_nb = e->nb;
    e->frame = e->nb;
    e->depth++;
    for (int i = 0; i < fn->nparams; i++) {
        const tine_cnode *p = fn->param[i];
        value v = args[i];
        if (p->type && (p->type->kind == TINE_CT_PTR || p->type->kind == TINE_CT_ARRAY)) {
            if (v.k != V_ARRAY) return fail(e, n->kid[i], "an array argument is expected");
            value shaped = {.k = V_ARRAY, .store = v.store, .off = v.off};
            array_shape(p->type, shaped.dim, &shaped.ndims);
            v = shaped;
        } else if (is_float(p->type)) {
            int32_t f = -1;
            if (!as_float(e, n->kid[i], v, &f)) return false;
            v = vflt(f);
        } else if (is_int(p->type)) {
            int64_t x = 0;
            if (!as_int(e, n->kid[i], v, &x)) return false;
            v = vint(x);
        } else return fail(e, p, "a parameter of type '%s' (outside the subset)", p->type ? p->type->spelling : "?");
        bind(e, p, v);
    }
    status s = exec(e, fn->body);
    e->depth--;
    e->nb = saved_nb;
    e->frame = saved_frame;
    if (s == S_ERR) return false;
    if (s == S_BREAK || s == S_CONTINUE) return fail(e, n, "a break or continue outside a loop");
    *out = s == S_RETURN ? e->ret : (value){.k = V_NONE};
    if (out->k == V_NONE && fn->ret && fn->ret->kind != TINE_CT_VOID)
        return fail(e, n, "'%s' ends without returning a value", name);
    return true;
}

/* ---- the kernel ------------------------------------------------------------------------ */

/* The outermost extent as declared (`a[3][3]` → 3): the parameter's text, since C turns the
 * parameter into a pointer. 0 when it is not a literal (a macro, a pointer). */
static int declared_outer(const fe *e, const tine_cnode *p) {
    const char *t = e->text + p->range.begin.off, *end = e->text + p->range.end.off;
    size_t nl = strlen(p->name);
    for (const char *q = t; q + nl <= end; q++)
        if (!strncmp(q, p->name, nl) && q + nl < end && q[nl] == '[') {
            char *stop;
            long v = strtol(q + nl + 1, &stop, 0);
            return stop < end && *stop == ']' && v > 0 && v < (1 << 24) ? (int)v : 0;
        }
    return 0;
}

static bool params(fe *e, const tine_cfunc *fn, tine_type_t *elem) {
    *elem = (tine_type_t){0};
    for (int i = 0; i < fn->nparams; i++) {
        const tine_cnode *p = fn->param[i];
        value v = {.k = V_ARRAY};
        const tine_ctype *el = p->type && (p->type->kind == TINE_CT_PTR || p->type->kind == TINE_CT_ARRAY) ? array_shape(p->type, v.dim, &v.ndims) : NULL;
        if (!is_float(el) || !tine_type_valid(el->elem))
            return fail(e, p, "parameter '%s': tine vectorize takes arrays of float or double of fixed size "
                              "(`const float a[3][3]`, `float out[9]`)", p->name ? p->name : "?");
        if (elem->bits && elem->bits != el->elem.bits)
            return fail(e, p, "parameter '%s': all arrays of a kernel have one float type", p->name);
        *elem = tine_type_with_lanes(el->elem, 1);
        if (!v.dim[0]) v.dim[0] = declared_outer(e, p);
        /* a pointer's flag says its pointee is const; an array parameter's own spelling does */
        bool is_const = p->type->kind == TINE_CT_PTR ? p->type->is_const : !strncmp(p->type->spelling, "const ", 6);
        TINE_GROW(e->s->array, (size_t)e->s->narrays + 1, e->s->caparrays);
        e->s->array[e->s->narrays] = (vz_array){.name = tine_strdup(p->name), .declared = v.dim[0], .pos = i};
        for (int d = 1; d < v.ndims && v.dim[0]; d++) e->s->array[e->s->narrays].declared *= v.dim[d];
        if (v.ndims > 1) e->s->array[e->s->narrays].row = v.dim[v.ndims - 1];
        v.store = new_store(e, e->s->narrays++, 0, true, is_const);
        bind(e, p, v);
    }
    if (!elem->bits) return fail(e, fn->body, "the kernel has no array parameter");
    return true;
}

static char *signature(const fe *e, const tine_cfunc *fn) {
    /* the prototype as written: the definition's text up to its body */
    unsigned b = fn->range.begin.off, n = fn->body_range.begin.off - b;
    char *s = tine_xmalloc(n + 2);
    memcpy(s, e->text + b, n);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\t')) n--;
    s[n] = ';';
    s[n + 1] = 0;
    return s;
}

vz_spec *vz_front(tine_ctx_t *ctx, const tine_cfile *f, const char *name, const vz_front_limits *lim) {
    const tine_cfunc *fn = find_func(f, name);
    if (!fn) {
        tine_set_error(ctx, "%s: no function '%s' is defined in this file", tine_cfile_path(f), name);
        return NULL;
    }
    size_t len;
    fe e = {.ctx = ctx, .f = f, .text = tine_cfile_text(f, &len)};
    e.lim.max_nodes = lim && lim->max_nodes ? lim->max_nodes : 2000000;
    e.lim.max_steps = lim && lim->max_steps ? lim->max_steps : 50000000;
    e.s = tine_xcalloc(1, sizeof *e.s);
    e.s->func = tine_strdup(name);
    bool ok = true;
    if (fn->ret && fn->ret->kind != TINE_CT_VOID) ok = fail(&e, fn->body, "the kernel '%s' returns a value; a kernel returns void and writes its output arrays", name);
    ok = ok && params(&e, fn, &e.s->elem);
    if (ok) {
        status s = exec(&e, fn->body);
        ok = s == S_OK || s == S_RETURN;
        if (s == S_BREAK || s == S_CONTINUE) ok = fail(&e, fn->body, "a break or continue outside a loop");
    }
    if (ok) {
        e.s->out = tine_xcalloc((size_t)e.s->narrays, sizeof *e.s->out);
        bool any = false;
        for (int i = 0; i < e.nst; i++) {
            store *x = &e.st[i];
            if (!x->param) continue;
            vz_array *a = &e.s->array[x->array];
            a->count = x->count;
            a->output = x->written;
            if (a->declared && a->count > a->declared) {
                ok = fail(&e, fn->param[a->pos], "the kernel touches element %d of '%s', declared with %d", a->count - 1,
                          a->name, a->declared);
                break;
            }
            if (!x->written) continue;
            any = true;
            e.s->out[x->array] = tine_xmalloc(sizeof(int32_t) * (size_t)(x->count ? x->count : 1));
            for (int k = 0; k < x->count; k++) {
                /* an element only read keeps its value: not an output */
                int32_t v = x->elem[k];
                e.s->out[x->array][k] = v >= 0 && !(e.s->node[v].op == VZ_GET && e.s->node[v].data == ((int64_t)x->array << 32 | (uint32_t)k)) ? v : -1;
            }
        }
        if (ok && !any) ok = fail(&e, fn->body, "the kernel writes no array");
        if (ok) e.s->signature = signature(&e, fn);
    }
    for (int i = 0; i < e.nst; i++) free(e.st[i].elem);
    free(e.st);
    free(e.b);
    if (!ok) {
        vz_spec_free(e.s);
        return NULL;
    }
    return e.s;
}
