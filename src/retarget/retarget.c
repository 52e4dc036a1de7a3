/* retarget.c — intrinsic C from one instruction set to another, through FPIR.
 *
 * A function that uses the source's intrinsics is rewritten statement by statement,
 * everything else is copied as written. Vector code is not translated call by call: the
 * calls of a straight run of statements (up to a branch, a loop, or the end of a block)
 * build one dataflow graph over its leaves, each call through its semantics
 * (src/targets/intrin.c), local vector variables being names for values in it. Only
 * what leaves the run is computed: a store, a scalar result, a variable read after it.
 * Each such value is lifted to FPIR and lowered for the target together
 * (tine_select_expr), so several source intrinsics that compute one FPIR op become the
 * target's one instruction for it, and written as C (src/codegen/c.c).
 *
 * The leaves are read where the source reads them: a load is done at its statement,
 * into a temporary, and a scalar operand is copied there; so computing a value later,
 * at its use, means what the source meant. A vector variable is written (to a variable of
 * the target's type) where the run ends, and read back as a leaf after it.
 */
#include "retarget.h"

#include "../cfront/cfront.h"
#include "../codegen/c.h"
#include "../targets/intrin.h"

/* The most vectors one variable holds (an array of them, a tuple). */
enum { TINE_RT_MAXVEC = 32 };

typedef struct {
    const tine_cnode *decl;
    const char *name;
    int n;                   /* 1, or a tuple's or an array's vectors */
    tine_type_t ir;          /* each vector's type */
    tine_expr_t *val[TINE_RT_MAXVEC];  /* the value in this run; NULL: the C variable's */
    tine_expr_t *leaf[TINE_RT_MAXVEC]; /* the C variable's, read as a leaf */
    bool dirty;              /* val is not in the C variable yet */
    bool scalar;             /* an inlined helper's integer parameter (its copy) */
    char cname[32];          /* the copy's C name */
    int mark;                /* its declaration's mark in the output (rt.declused) */
    int alias;               /* an inlined helper's pointer to the caller's vectors: that
                                variable's index, or -1 */
    bool is_constant;        /* a scalar known to be cval (an unrolled loop's variable) */
    int64_t cval;
} vvar;

typedef struct {
    tine_ctx_t *ctx;
    const tine_cfile *f;
    const char *text;
    const char *from, *to, *ffam;
    tine_cemit *em;
    vvar *vars;
    int nvars, capvars;
    int ntmp;
    char indent[64];
    tine_rt_report *report;
    bool failed;
    int inline_depth;       /* helpers being inlined */
    bool *declused;         /* per declaration written: whether its C variable is read or written */
    struct { const tine_cnode *decl; unsigned off; } *refs; /* the function's reads of vector variables */
    int nrefs, caprefs;
    tine_crange loops[32];  /* the loops being rewritten, outermost first */
    int nloops;
    int ndecl, capdecl;
} rt;

/* A declaration is written with a mark before it ("\001N\001"), and dropped at the end of
 * the function when nothing wrote or read its C variable: a vector that only ever lived
 * inside one straight run needs none. */
static int new_mark(rt *r) {
    TINE_GROW(r->declused, r->ndecl + 1, r->capdecl);
    r->declused[r->ndecl] = false;
    return r->ndecl++;
}

static char *drop_unused_decls(const rt *r, const char *text) {
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        const char *m = memchr(p, 1, len);
        if (!m) {
            tine_buf_printf(&b, "%.*s", (int)len, p);
        } else {
            int id = atoi(m + 1);
            const char *end = strchr(m + 1, 1);
            if (id >= 0 && id < r->ndecl && r->declused[id])
                tine_buf_printf(&b, "%.*s%.*s", (int)(m - p), p, (int)(len - (size_t)(end + 1 - p)), end + 1);
        }
        p += len;
    }
    return b.p;
}

static bool fail_at(rt *r, tine_cpos at, const char *fmt, const char *arg) {
    if (!r->failed) tine_cfile_error(r->ctx, r->f, at, fmt, arg);
    r->failed = true;
    return false;
}

static char *dup_range(const rt *r, tine_crange g) {
    size_t n = g.end.off - g.begin.off;
    char *s = tine_xmalloc(n + 1);
    memcpy(s, r->text + g.begin.off, n);
    s[n] = 0;
    return s;
}

static vvar *var_of(rt *r, const tine_cnode *decl) {
    for (int i = r->nvars - 1; i >= 0; i--)
        if (r->vars[i].decl == decl) return r->vars[i].alias > 0 ? &r->vars[r->vars[i].alias - 1] : &r->vars[i];
    return NULL;
}

/* The value of an integer constant expression, or of a variable bound to a constant (an
 * unrolled loop's counter). */
static bool const_of(rt *r, const tine_cnode *e, int64_t *v) {
    if (e->is_const) {
        *v = e->value;
        return true;
    }
    if (e->kind == TINE_CE_PAREN || e->kind == TINE_CE_CAST) return e->nkids == 1 && const_of(r, e->kid[0], v);
    int64_t a, b;
    if (e->kind == TINE_CE_UNARY && !strcmp(e->name, "-") && const_of(r, e->kid[0], &a)) {
        *v = (int64_t)(0 - (uint64_t)a);
        return true;
    }
    if (e->kind == TINE_CE_BINARY && e->nkids == 2 && const_of(r, e->kid[0], &a) && const_of(r, e->kid[1], &b)) {
        /* an index computed from an unrolled counter: r[i + 1], val[2 * c] */
        const char *op = e->name;
        if (!strcmp(op, "+")) *v = (int64_t)((uint64_t)a + (uint64_t)b);
        else if (!strcmp(op, "-")) *v = (int64_t)((uint64_t)a - (uint64_t)b);
        else if (!strcmp(op, "*")) *v = (int64_t)((uint64_t)a * (uint64_t)b);
        else if (!strcmp(op, "/") && b != 0 && !(a == INT64_MIN && b == -1)) *v = a / b;
        else if (!strcmp(op, "%") && b != 0 && !(a == INT64_MIN && b == -1)) *v = a % b;
        else if (!strcmp(op, "&")) *v = a & b;
        else if (!strcmp(op, "|")) *v = a | b;
        else if (!strcmp(op, "^")) *v = a ^ b;
        else if (!strcmp(op, "<<") && b >= 0 && b < 63) *v = (int64_t)((uint64_t)a << b);
        else if (!strcmp(op, ">>") && b >= 0 && b < 63) *v = a >> b;
        else return false;
        return true;
    }
    if (e->kind == TINE_CE_REF && e->decl) {
        vvar *x = var_of(r, e->decl);
        if (x && x->scalar && x->is_constant) {
            *v = x->cval;
            return true;
        }
    }
    return false;
}

static bool is_vec(const tine_ctype *t) {
    return t && (t->kind == TINE_CT_VECTOR || t->kind == TINE_CT_TUPLE || (t->kind == TINE_CT_ARRAY && is_vec(t->pointee)));
}

/* The vectors a variable of type t holds, and their type. */
static int vec_count(const tine_ctype *t, tine_type_t *elem) {
    if (t->kind == TINE_CT_ARRAY) {
        int inner = vec_count(t->pointee, elem);
        return t->count > 0 && inner > 0 ? t->count * inner : -1;
    }
    *elem = t->elem;
    return t->kind == TINE_CT_TUPLE ? t->count : 1;
}

/* The IR type of a source vector type: clang's canonical type. */
static tine_type_t ir_type(const tine_ctype *t) { return t->elem; }

/* A value as type t: the same bits seen as other lanes. */
static tine_expr_t *as_type(rt *r, tine_expr_t *v, tine_type_t t, tine_cpos at) {
    if (tine_type_eq(v->type, t)) return v;
    if (v->type.bits * v->type.lanes != t.bits * t.lanes) {
        char a[32], b[32];
        char msg[128];
        snprintf(msg, sizeof msg, "a vector of %s where the intrinsic takes %s", tine_type_str(v->type, a, sizeof a),
                 tine_type_str(t, b, sizeof b));
        fail_at(r, at, "%s", msg);
        return NULL;
    }
    tine_expr_t *x = tine_bitcast(r->ctx, t, v);
    if (!x) fail_at(r, at, "%s", tine_error(r->ctx));
    return x;
}

/* ---- leaves ---------------------------------------------------------------------------- */

static tine_expr_t *leaf(rt *r, const char *cname, tine_type_t t) {
    char vn[48];
    snprintf(vn, sizeof vn, "$rt%d", r->ntmp++);
    tine_expr_t *v = tine_var(r->ctx, vn, t);
    char ty[48], expr[160];
    tine_cemit_type(r->em, t, ty, sizeof ty);
    snprintf(expr, sizeof expr, "((%s)%s)", ty, cname);
    tine_cemit_bind(r->em, v, expr);
    return v;
}

/* The text of an expression, with an inlined helper's integer parameters read from their
 * copies. */
static void node_text_into(rt *r, const tine_cnode *e, unsigned *pos, tine_buf *b) {
    if (e->kind == TINE_CE_REF && e->decl) {
        vvar *v = var_of(r, e->decl);
        if (v && v->scalar) {
            tine_buf_printf(b, "%.*s%s", (int)(e->range.begin.off - *pos), r->text + *pos, v->cname);
            *pos = e->range.end.off;
            return;
        }
    }
    for (int i = 0; i < e->nkids; i++)
        if (e->kid[i] && e->kid[i]->range.begin.off >= *pos) node_text_into(r, e->kid[i], pos, b);
}

static char *node_text(rt *r, const tine_cnode *e) {
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    unsigned pos = e->range.begin.off;
    if (r->inline_depth && !e->from_macro) node_text_into(r, e, &pos, &b);
    tine_buf_printf(&b, "%.*s", (int)(e->range.end.off - pos), r->text + pos);
    return b.p;
}

/* A scalar operand copied where the source reads it. */
static tine_expr_t *capture_scalar(rt *r, const tine_cnode *a, tine_type_t t, tine_buf *out, char *cname) {
    int64_t cv;
    if (const_of(r, a, &cv)) return tine_const_int(r->ctx, t, cv);
    char *s = node_text(r, a);
    char name[32], ty[48];
    snprintf(name, sizeof name, "s%d", r->ntmp);
    tine_buf_printf(out, "%sconst %s %s = (%s)(%s);\n", r->indent, tine_cemit_type(r->em, t, ty, sizeof ty), name, ty, s);
    free(s);
    if (cname) snprintf(cname, 32, "%s", name);
    return leaf(r, name, t);
}

/* The address a load or a store intrinsic is given, as C the target compiles: a pointer to
 * the source's vector type (_mm_loadu_si128((const __m128i *)(p + i)), (__m128i *)dst + k)
 * becomes the byte address it stands for. NULL after a located error. */
static char *ptr_text(rt *r, const tine_cnode *p) {
    const tine_ctype *t = p->type;
    bool vec_ptr = t && t->kind == TINE_CT_PTR && t->pointee && t->pointee->kind == TINE_CT_VECTOR;
    if (!vec_ptr) return node_text(r, p);
    if (p->kind == TINE_CE_PAREN) return ptr_text(r, p->kid[0]);
    if (p->kind == TINE_CE_CAST) {
        char *in = node_text(r, p->kid[0]);
        char *res = tine_xmalloc(strlen(in) + 32);
        sprintf(res, "(const char *)(%s)", in);
        free(in);
        return res;
    }
    if (p->kind == TINE_CE_BINARY && (!strcmp(p->name, "+") || !strcmp(p->name, "-")) && p->kid[0]->type == t) {
        char *base = ptr_text(r, p->kid[0]);
        if (!base) return NULL;
        char *k = node_text(r, p->kid[1]);
        int bytes = t->pointee->elem.bits * t->pointee->elem.lanes / 8;
        char *res = tine_xmalloc(strlen(base) + strlen(k) + 48);
        sprintf(res, "(%s %s (%s) * %d)", base, p->name, k, bytes);
        free(base);
        free(k);
        return res;
    }
    fail_at(r, p->range.begin, "%s", "a pointer to vectors that is not a cast of an address (tine rewrites (__m128i *)p, not a variable of that type)");
    return NULL;
}

/* A load where the source does it: `lanes` elements of `elem` at the pointer, read in
 * pieces of a power of two of bytes (vld3q_u8's 48 bytes are three of 16, concatenated). */
static tine_expr_t *capture_load(rt *r, const tine_cnode *p, tine_type_t elem, int lanes, tine_buf *out) {
    int piece = lanes;
    while ((piece & (piece - 1)) || piece * elem.bits / 8 > 64) piece = (piece & (piece - 1)) ? piece & -piece : piece / 2;
    int np = lanes / piece;
    tine_type_t pt = tine_type_with_lanes(elem, piece);
    char *s = ptr_text(r, p);
    if (!s) return NULL;
    char ty[48];
    tine_cemit_type(r->em, pt, ty, sizeof ty);
    tine_expr_t *parts[64];
    for (int i = 0; i < np && i < 64; i++) {
        char name[32];
        snprintf(name, sizeof name, "ld%d", r->ntmp);
        tine_buf_printf(out, "%s%s %s;\n%smemcpy(&%s, (const char *)(%s) + %d, sizeof %s);\n", r->indent, ty, name,
                        r->indent, name, s, i * piece * elem.bits / 8, name);
        parts[i] = leaf(r, name, pt);
    }
    free(s);
    return np == 1 ? parts[0] : tine_concat(r->ctx, np, parts);
}

/* ---- variables -------------------------------------------------------------------------- */

/* The vectors an expression names: a variable (x), a tuple's member (x.val[i]), an
 * array's element at any depth (ch[c][half]), through a helper's pointer (*p, p[i]): the
 * variable, the first of its vectors named and how many. false if it names none (not an
 * error: the caller says what it expected). */
static bool place(rt *r, const tine_cnode *e, vvar **v, int *slot, int *count) {
    int64_t idx;
    switch (e->kind) {
    case TINE_CE_PAREN: return place(r, e->kid[0], v, slot, count);
    case TINE_CE_REF:
        if (!e->decl || !(*v = var_of(r, e->decl)) || (*v)->scalar) return false;
        *slot = 0;
        *count = (*v)->n;
        return true;
    case TINE_CE_MEMBER: /* a tuple's val: its vectors */
        return !e->arrow && !strcmp(e->name, "val") && place(r, e->kid[0], v, slot, count);
    case TINE_CE_UNARY: /* *p: p's first vector */
        if (strcmp(e->name, "*") || !place(r, e->kid[0], v, slot, count)) return false;
        *count = 1;
        return true;
    case TINE_CE_SUBSCRIPT: {
        const tine_ctype *bt = e->kid[0]->type;
        if (!place(r, e->kid[0], v, slot, count) || !const_of(r, e->kid[1], &idx)) return false;
        /* the element's vectors: an array of arrays divides its vectors by its count */
        int dim = bt && bt->kind == TINE_CT_ARRAY && bt->count > 0 ? bt->count : *count;
        if (dim <= 0 || *count % dim) return false;
        int each = *count / dim;
        if (idx < 0 || idx >= dim) return false;
        *slot += (int)idx * each;
        *count = each;
        return true;
    }
    default: return false;
    }
}

/* ---- expressions ------------------------------------------------------------------------ */

static int eval(rt *r, const tine_cnode *e, tine_expr_t **vals, tine_buf *out);
static bool has_vector(rt *r, const tine_cnode *e);

/* A scalar operand as a value of type t: copied where the source reads it, unless it holds
 * an intrinsic (vdupq_n_u16(vgetq_lane_u16(v, 0))), which is then part of the graph: its
 * casts and arithmetic as C converts them, in the expression's own type. */
static tine_expr_t *scalar_value(rt *r, const tine_cnode *a, tine_type_t t, tine_buf *out) {
    if (!has_vector(r, a) || !a->type || a->type->kind != TINE_CT_INT) return capture_scalar(r, a, t, out, NULL);
    tine_expr_t *v = NULL;
    tine_type_t at = a->type->elem;
    switch (a->kind) {
    case TINE_CE_PAREN: return scalar_value(r, a->kid[0], t, out);
    case TINE_CE_CAST: v = scalar_value(r, a->kid[0], at, out); break;
    case TINE_CE_CALL: {
        tine_expr_t *vals[TINE_RT_MAXVEC];
        int n = eval(r, a, vals, out);
        if (n < 0) return NULL;
        if (n != 1 || vals[0]->type.lanes != 1) return fail_at(r, a->range.begin, "%s", "a vector where a scalar is expected"), NULL;
        v = vals[0];
        break;
    }
    case TINE_CE_BINARY: {
        static const struct { const char *tok; tine_op_t op; } ops[] = {
            {"+", TINE_OP_ADD}, {"-", TINE_OP_SUB}, {"*", TINE_OP_MUL}, {"&", TINE_OP_AND}, {"|", TINE_OP_OR},
            {"^", TINE_OP_XOR}, {"<<", TINE_OP_SHL}, {">>", TINE_OP_SHR}};
        for (size_t k = 0; k < sizeof ops / sizeof *ops && !v; k++) {
            if (strcmp(a->name, ops[k].tok)) continue;
            tine_expr_t *x = scalar_value(r, a->kid[0], at, out), *y = x ? scalar_value(r, a->kid[1], at, out) : NULL;
            if (!y) return NULL;
            v = tine_binary(r->ctx, ops[k].op, x, y);
        }
        break;
    }
    default: break;
    }
    if (!v) return r->failed ? NULL : (fail_at(r, a->range.begin, "%s", "a scalar expression around an intrinsic that tine cannot follow"), NULL);
    if (v->type.bits != at.bits || v->type.kind != at.kind) v = tine_cast(r->ctx, at, v);
    if (v && (at.bits != t.bits || at.kind != t.kind)) v = tine_cast(r->ctx, t, v);
    if (!v) fail_at(r, a->range.begin, "%s", tine_error(r->ctx));
    return v;
}
static void decl(rt *r, const tine_cnode *s, tine_buf *out, bool declare);
static void assign(rt *r, const tine_cnode *lhs, const tine_cnode *rhs, tine_buf *out);
static int run_inline(rt *r, const tine_cnode *s, tine_expr_t **vals, int *n, tine_buf *out);
static void store_stmt(rt *r, const tine_cnode *e, tine_buf *out);

/* A call of an intrinsic: its results (0 for a store, whose value and pointer are given). */
static int eval_call(rt *r, const tine_cnode *e, tine_expr_t **vals, tine_buf *out, tine_expr_t **stored,
                     const tine_cnode **ptr) {
    const tine_intrin *in = tine_intrin_find(r->ctx, r->ffam, e->name);
    if (!in) {
        if (tine_error(r->ctx)) return fail_at(r, e->range.begin, "%s", tine_error(r->ctx)), -1;
        return fail_at(r, e->range.begin, "'%s' is not an intrinsic tine knows", e->name), -1;
    }
    if (in->nparams != e->nkids) return fail_at(r, e->range.begin, "'%s': wrong number of arguments", e->name), -1;
    tine_expr_t *args[TINE_INTRIN_MAX_PARAMS * 4], *mem = NULL;
    int64_t imms[TINE_INTRIN_MAX_PARAMS];
    int na = 0, ni = 0;
    const tine_cnode *p = NULL;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        const tine_cnode *a = e->kid[k];
        switch (pp->kind) {
        case TINE_IP_IMM:
            if (!const_of(r, a, &imms[ni])) return fail_at(r, a->range.begin, "'%s' takes a constant here", e->name), -1;
            ni++;
            break;
        case TINE_IP_PTR: p = a; break;
        case TINE_IP_SCALAR:
            if (!(args[na++] = scalar_value(r, a, pp->type, out))) return -1;
            break;
        case TINE_IP_VEC:
        case TINE_IP_TUPLE: {
            tine_expr_t *v[TINE_RT_MAXVEC];
            int nv = eval(r, a, v, out);
            int want = pp->kind == TINE_IP_TUPLE ? pp->n : 1;
            if (nv < 0) return -1;
            if (nv != want) return fail_at(r, a->range.begin, "'%s': an operand of another shape", e->name), -1;
            for (int j = 0; j < nv; j++)
                if (!(args[na++] = as_type(r, v[j], pp->type, a->range.begin))) return -1;
            break;
        }
        }
    }
    if (in->mem == TINE_INTRIN_LOAD && !(mem = capture_load(r, p, in->mem_elem, in->mem_lanes, out))) return -1;
    tine_expr_t *res[TINE_INTRIN_MAX_RESULTS];
    if (!tine_intrin_apply(r->ctx, in, args, imms, mem, res))
        return fail_at(r, e->range.begin, "%s", tine_error(r->ctx)), -1;
    if (r->report)
        tine_rt_report_call(r->report, e->name, in->from, e->range.begin.line, e->range.begin.col,
                            in->mem == TINE_INTRIN_STORE ? NULL : res[0]);
    if (in->mem == TINE_INTRIN_STORE) {
        *stored = res[0];
        *ptr = p;
        return 0;
    }
    for (int i = 0; i < in->nresults; i++) vals[i] = res[i];
    return in->nresults;
}

/* A function this file defines, by name. */
static const tine_cfunc *local_func(const rt *r, const char *name) {
    for (int i = 0; i < tine_cfile_nfuncs(r->f); i++)
        if (!strcmp(tine_cfile_func(r->f, i)->name, name)) return tine_cfile_func(r->f, i);
    return NULL;
}

/* Whether `name` is a helper of this file that takes or returns vectors (inlined). */
static bool vector_helper(const rt *r, const char *name) {
    const tine_cfunc *fn = local_func(r, name);
    if (!fn) return false;
    bool v = is_vec(fn->ret);
    for (int k = 0; k < fn->nparams && !v; k++)
        v = is_vec(fn->param[k]->type) ||
            (fn->param[k]->type && fn->param[k]->type->pointee && fn->param[k]->type->pointee->kind == TINE_CT_VECTOR);
    return v;
}

/* A call of a helper of this file that takes or returns vectors (static inline uint8x8_t
 * div255(uint16x8_t x) { ... }): its body evaluated on the arguments' values, as if
 * written in place. Its body is a straight run of vector declarations and assignments
 * ending in a return; a scalar parameter is copied at the call and read from the copy. */
static int eval_inline(rt *r, const tine_cfunc *fn, const tine_cnode *call, tine_expr_t **vals, tine_buf *out) {
    if (r->inline_depth > 16) return fail_at(r, call->range.begin, "'%s': helpers nested too deep", fn->name), -1;
    if (fn->nparams != call->nkids) return fail_at(r, call->range.begin, "'%s': wrong number of arguments", fn->name), -1;
    int nv0 = r->nvars;
    for (int k = 0; k < fn->nparams && !r->failed; k++) {
        const tine_cnode *pd = fn->param[k], *a = call->kid[k];
        TINE_GROW(r->vars, r->nvars + 1, r->capvars);
        vvar *v = &r->vars[r->nvars++];
        memset(v, 0, sizeof *v);
        v->decl = pd;
        v->name = pd->name;
        bool to_vectors = pd->type && (pd->type->kind == TINE_CT_ARRAY || pd->type->kind == TINE_CT_PTR) &&
                          pd->type->pointee && pd->type->pointee->kind == TINE_CT_VECTOR;
        if (is_vec(pd->type) && !to_vectors) {
            v->n = vec_count(pd->type, &v->ir);
            tine_expr_t *av[TINE_RT_MAXVEC];
            int n = eval(r, a, av, out);
            if (n < 0) break;
            if (n != v->n) { fail_at(r, a->range.begin, "'%s': an argument of another shape", fn->name); break; }
            for (int j = 0; j < n; j++)
                if (!(v->val[j] = v->leaf[j] = as_type(r, av[j], v->ir, a->range.begin))) break;
        } else if (to_vectors) {
            /* a pointer to the caller's vectors (uint8x8_t out[3] is one, as C says): the
               helper's writes are the caller variable's */
            const tine_cnode *ref = a;
            while (ref->kind == TINE_CE_PAREN || (ref->kind == TINE_CE_UNARY && !strcmp(ref->name, "&"))) ref = ref->kid[0];
            vvar *cv = ref->kind == TINE_CE_REF && ref->decl ? var_of(r, ref->decl) : NULL;
            if (!cv || cv->scalar) { fail_at(r, a->range.begin, "'%s': a pointer to vectors that are not a local variable", fn->name); break; }
            v = &r->vars[r->nvars - 1]; /* var_of may not move the table, but keep to the index */
            v->alias = (int)(cv - r->vars) + 1;
            v->n = cv->n;
            v->ir = cv->ir;
        } else if (pd->type && pd->type->kind == TINE_CT_PTR) {
            /* a pointer (the address a helper loads from): copied at the call, its copy
               named where the helper's text reads it */
            char *t = ptr_text(r, a);
            if (!t) break;
            v = &r->vars[r->nvars - 1];
            v->n = 1;
            v->scalar = true;
            snprintf(v->cname, sizeof v->cname, "p%d", r->ntmp++);
            tine_buf_printf(out, "%s%s const %s = (%s)(%s);\n", r->indent, pd->type->spelling, v->cname,
                            pd->type->spelling, t);
            free(t);
        } else if (pd->type && pd->type->kind == TINE_CT_INT) {
            v->n = 1;
            v->ir = pd->type->elem;
            v->scalar = true;
            v->val[0] = v->leaf[0] = capture_scalar(r, a, pd->type->elem, out, v->cname);
            if (a->is_const) snprintf(v->cname, sizeof v->cname, "%lld", (long long)a->value);
        } else {
            fail_at(r, a->range.begin, "'%s': a parameter that is neither a vector nor an integer", fn->name);
        }
    }
    int n = -1;
    r->inline_depth++;
    if (!r->failed && run_inline(r, fn->body, vals, &n, out) == 0 && !r->failed) {
        if (fn->ret && fn->ret->kind != TINE_CT_VOID) fail_at(r, call->range.begin, "'%s' returns no vector", fn->name);
        n = 0;
    }
    r->inline_depth--;
    r->nvars = nv0;
    return r->failed ? -1 : n;
}

/* The value(s) of a vector expression: a variable, a tuple's member, a call, a cast. */
static int eval(rt *r, const tine_cnode *e, tine_expr_t **vals, tine_buf *out) {
    switch (e->kind) {
    case TINE_CE_PAREN: return eval(r, e->kid[0], vals, out);
    case TINE_CE_UNARY: /* *p, p a helper's pointer to the caller's vectors */
        if (!strcmp(e->name, "*")) {
            vvar *v;
            int slot, count;
            if (!place(r, e, &v, &slot, &count)) break;
            for (int i = 0; i < count; i++) vals[i] = v->val[slot + i] ? v->val[slot + i] : v->leaf[slot + i];
            return count;
        }
        break;
    case TINE_CE_COND: { /* c ? x : y: a constant c picks; else a select on it, both computed */
        int64_t cv;
        if (const_of(r, e->kid[0], &cv)) return eval(r, cv ? e->kid[1] : e->kid[2], vals, out);
        if (!is_vec(e->type)) break;
        tine_expr_t *a[TINE_RT_MAXVEC], *b[TINE_RT_MAXVEC];
        int na = eval(r, e->kid[1], a, out), nb = na < 0 ? -1 : eval(r, e->kid[2], b, out);
        if (nb < 0) return -1;
        if (na != nb) return fail_at(r, e->range.begin, "%s", "the two sides of ?: of other shapes"), -1;
        tine_type_t it = tine_type(TINE_INT, 32, 1);
        tine_expr_t *c = capture_scalar(r, e->kid[0], it, out, NULL);
        tine_expr_t *cb = tine_binary(r->ctx, TINE_OP_NE, c, tine_const_int(r->ctx, it, 0));
        for (int i = 0; i < na; i++) {
            tine_expr_t *bi = as_type(r, b[i], a[i]->type, e->range.begin);
            if (!bi) return -1;
            vals[i] = tine_select(r->ctx, tine_broadcast(r->ctx, cb, a[i]->type.lanes), a[i], bi);
            if (!vals[i]) return fail_at(r, e->range.begin, "%s", tine_error(r->ctx)), -1;
        }
        return na;
    }
    case TINE_CE_INIT_LIST: { /* an array's or a tuple's initializer: its vectors in order */
        int n = 0;
        for (int i = 0; i < e->nkids; i++) {
            const tine_cnode *k = e->kid[i];
            if (k->kind == TINE_CE_INIT_LIST && k->nkids == 1 && !is_vec(k->type)) k = k->kid[0];
            if (k->kind == TINE_CE_INIT_LIST && n == 0 && e->nkids == 1) return eval(r, k, vals, out); /* { {a, b} } */
            tine_expr_t *t[TINE_RT_MAXVEC];
            int m = eval(r, k, t, out);
            if (m < 0) return -1;
            if (n + m > TINE_RT_MAXVEC) return fail_at(r, e->range.begin, "%s", "an initializer of more than 32 vectors"), -1;
            for (int j = 0; j < m; j++) vals[n++] = t[j];
        }
        return n;
    }
    case TINE_CE_REF:
    case TINE_CE_SUBSCRIPT:
    case TINE_CE_MEMBER: {
        vvar *v;
        int slot, count;
        if (!place(r, e, &v, &slot, &count)) {
            if (e->kind == TINE_CE_REF)
                return fail_at(r, e->range.begin, "'%s' is not a vector variable of this function", e->name), -1;
            return fail_at(r, e->range.begin, "%s", "an element of vectors whose index is not a constant, or out of range"), -1;
        }
        for (int i = 0; i < count; i++) {
            vals[i] = v->val[slot + i] ? v->val[slot + i] : v->leaf[slot + i];
            if (vals[i] == v->leaf[slot + i] && !r->inline_depth) r->declused[v->mark] = true;
        }
        return count;
    }
    case TINE_CE_CAST:
        if (is_vec(e->type) && e->type->kind == TINE_CT_VECTOR) {
            tine_expr_t *v[TINE_RT_MAXVEC];
            int n = eval(r, e->kid[0], v, out);
            if (n != 1) return n < 0 ? -1 : (fail_at(r, e->range.begin, "%s", "a cast of a tuple"), -1);
            return (vals[0] = as_type(r, v[0], ir_type(e->type), e->range.begin)) ? 1 : -1;
        }
        break;
    case TINE_CE_CALL: {
        tine_expr_t *stored = NULL;
        const tine_cnode *p = NULL;
        const tine_cfunc *fn = e->name && !tine_intrin_find(r->ctx, r->ffam, e->name) ? local_func(r, e->name) : NULL;
        if (fn) return eval_inline(r, fn, e, vals, out);
        int n = eval_call(r, e, vals, out, &stored, &p);
        if (n == 0 && stored) return fail_at(r, e->range.begin, "%s", "a store used as a value"), -1;
        return n;
    }
    default: break;
    }
    return fail_at(r, e->range.begin, "%s", "a vector expression tine cannot retarget (an intrinsic call, a variable or a cast is expected)"), -1;
}

/* ---- sinks: what leaves the run --------------------------------------------------------- */

/* e lowered for the target and written; its C name. */
static const char *sink(rt *r, tine_expr_t *e, tine_buf *out, tine_cpos at) {
    tine_expr_t *raw = e;
    e = tine_fold_constants(r->ctx, e);
    if (e) e = tine_retarget_join(r->ctx, e);
    tine_expr_t *s = e && e->type.lanes > 1 ? tine_select_expr(r->ctx, e, TINE_SELECT_TINE, r->to) : e;
    if (getenv("TINE_RETARGET_TRACE") && e && s) { /* what each value was, and what it became */
        char *a = tine_print(r->ctx, e), *b = tine_print(r->ctx, s);
        fprintf(stderr, "sink %d:%d\n  %s\n  => %s\n", at.line, at.col, a, b);
        free(a);
        free(b);
    }
    if (!s) return fail_at(r, at, "%s", tine_error(r->ctx)), NULL;
    if (r->report) tine_rt_report_sink(r->report, r->ctx, r->to, raw, e, s);
    tine_cemit_set_indent(r->em, r->indent);
    const char *v = tine_cemit_value(r->em, s, out);
    if (!v) fail_at(r, at, "%s", tine_error(r->ctx));
    return v;
}

static void collect_refs(rt *r, const tine_cnode *e) {
    if (!e) return;
    if (e->kind == TINE_CE_REF && e->decl && is_vec(e->type)) {
        TINE_GROW(r->refs, r->nrefs + 1, r->caprefs);
        r->refs[r->nrefs].decl = e->decl;
        r->refs[r->nrefs++].off = e->range.begin.off;
    }
    for (int i = 0; i < e->nkids; i++) collect_refs(r, e->kid[i]);
}

/* Whether a variable's C value may be read after offset `at`: a read of it later in the
 * function, or anywhere in a loop around `at` that it was declared outside of (the next
 * iteration's). */
static bool live_after(const rt *r, const tine_cnode *decl, unsigned at) {
    for (int i = 0; i < r->nrefs; i++) {
        if (r->refs[i].decl != decl) continue;
        if (r->refs[i].off > at) return true;
        for (int l = 0; l < r->nloops; l++)
            if (decl->range.begin.off < r->loops[l].begin.off && r->refs[i].off >= r->loops[l].begin.off &&
                r->refs[i].off < r->loops[l].end.off)
                return true;
    }
    return false;
}

static void flush(rt *r, tine_buf *out, tine_cpos at) {
    for (int i = 0; i < r->nvars && !r->failed; i++) {
        vvar *v = &r->vars[i];
        if (!v->dirty) continue;
        if (!live_after(r, v->decl, at.off)) { /* nothing reads it again: its value need not be written */
            v->dirty = false;
            continue;
        }
        for (int k = 0; k < v->n; k++) {
            if (!v->val[k]) continue;
            const char *c = sink(r, v->val[k], out, at);
            if (!c) return;
            char ty[48];
            tine_cemit_type(r->em, v->ir, ty, sizeof ty);
            if (v->n == 1) tine_buf_printf(out, "%s%s = %s;\n", r->indent, v->name, c);
            else tine_buf_printf(out, "%s%s_v%d = %s;\n", r->indent, v->name, k, c);
        }
        v->dirty = false;
        r->declused[v->mark] = true;
    }
}

/* After a branch or a loop: every variable is what its C variable holds. */
static void reread(rt *r) {
    for (int i = 0; i < r->nvars; i++)
        for (int k = 0; k < r->vars[i].n; k++) r->vars[i].val[k] = NULL;
    tine_cemit_forget(r->em);
}

/* Whether a subtree calls an intrinsic or has a vector type. */
static bool has_vector(rt *r, const tine_cnode *e) {
    if (!e) return false;
    if (is_vec(e->type)) return true;
    if (e->kind == TINE_CE_CALL && e->name && (tine_intrin_find(r->ctx, r->ffam, e->name) || vector_helper(r, e->name)))
        return true;
    for (int i = 0; i < e->nkids; i++)
        if (has_vector(r, e->kid[i])) return true;
    return false;
}

/* ---- statements --------------------------------------------------------------------------- */

static void stmt(rt *r, const tine_cnode *s, tine_buf *out);

/* Where a statement ends: after the ';' that follows its range, if one does (an
 * expression statement's range stops before it). */
static unsigned stmt_end(const rt *r, const tine_cnode *s, size_t len) {
    unsigned e = s->range.end.off;
    unsigned k = e;
    while (k < len && (r->text[k] == ' ' || r->text[k] == '\t')) k++;
    return k < len && r->text[k] == ';' ? k + 1 : e;
}

static void copy_stmt(rt *r, const tine_cnode *s, tine_buf *out) {
    size_t len;
    tine_cfile_text(r->f, &len);
    unsigned e = stmt_end(r, s, len);
    tine_buf_printf(out, "%s%.*s\n", r->indent, (int)(e - s->range.begin.off), r->text + s->range.begin.off);
}

/* Text of e with each outermost intrinsic call in it replaced by its value's C name (the
 * values computed before the statement). */
static void collect_calls(rt *r, const tine_cnode *e, const tine_cnode **calls, int *n, int cap) {
    if (!e || r->failed) return;
    if (e->kind == TINE_CE_CALL && e->name && !tine_intrin_find(r->ctx, r->ffam, e->name) && !vector_helper(r, e->name))
        for (int i = 0; i < e->nkids; i++)
            if (is_vec(e->kid[i]->type)) { /* a vector escaping into code tine does not see */
                fail_at(r, e->kid[i]->range.begin, "a vector passed to '%s', whose body this file does not hold (tine retargets the vectors of the code it sees)", e->name);
                return;
            }
    if (e->kind == TINE_CE_CALL && e->name && (tine_intrin_find(r->ctx, r->ffam, e->name) || vector_helper(r, e->name))) {
        if (*n < cap) calls[(*n)++] = e;
        return;
    }
    for (int i = 0; i < e->nkids; i++) collect_calls(r, e->kid[i], calls, n, cap);
}

static char *scalar_text(rt *r, const tine_cnode *e, unsigned end, tine_buf *out) {
    const tine_cnode *calls[64];
    int n = 0;
    collect_calls(r, e, calls, &n, 64);
    tine_buf t = {0};
    tine_buf_puts(&t, "");
    unsigned pos = e->range.begin.off;
    for (int i = 0; i < n && !r->failed; i++) {
        tine_expr_t *v[TINE_RT_MAXVEC];
        if (calls[i]->range.begin.off < pos) { fail_at(r, calls[i]->range.begin, "%s", "an intrinsic inside a macro's other arguments"); break; }
        if (eval(r, calls[i], v, out) != 1) {
            if (!r->failed) fail_at(r, calls[i]->range.begin, "%s", "an intrinsic whose value is not one scalar");
            break;
        }
        if (v[0]->type.lanes != 1) { fail_at(r, calls[i]->range.begin, "%s", "a vector value used as a scalar"); break; }
        const char *c = sink(r, v[0], out, calls[i]->range.begin);
        if (!c) break;
        tine_buf_printf(&t, "%.*s%s", (int)(calls[i]->range.begin.off - pos), r->text + pos, c);
        pos = calls[i]->range.end.off;
    }
    tine_buf_printf(&t, "%.*s", (int)(end - pos), r->text + pos);
    return t.p;
}

/* A declaration; `declare`: the C variable is written too (not for an inlined helper's or
 * an unrolled loop's locals, which are names for values only). */
static void decl(rt *r, const tine_cnode *s, tine_buf *out, bool declare) {
    const tine_cnode *init = s->nkids ? s->kid[0] : NULL;
    if (!is_vec(s->type)) {
        if (!has_vector(r, s)) return copy_stmt(r, s, out);
        /* a scalar declaration computing an intrinsic's value: its text, the call replaced */
        size_t len;
        tine_cfile_text(r->f, &len);
        char *t = scalar_text(r, s, stmt_end(r, s, len), out);
        if (!r->failed) tine_buf_printf(out, "%s%s\n", r->indent, t);
        free(t);
        return;
    }
    TINE_GROW(r->vars, r->nvars + 1, r->capvars);
    vvar *v = &r->vars[r->nvars++];
    memset(v, 0, sizeof *v);
    v->decl = s;
    v->name = s->name;
    v->n = vec_count(s->type, &v->ir);
    if (v->n < 1 || v->n > TINE_RT_MAXVEC) { fail_at(r, s->range.begin, "%s", "an array of more than 32 vectors, or of no known size"); return; }
    char ty[48];
    tine_cemit_type(r->em, v->ir, ty, sizeof ty);
    v->mark = new_mark(r);
    for (int k = 0; k < v->n; k++) {
        char name[96];
        if (v->n == 1) snprintf(name, sizeof name, "%s", v->name);
        else snprintf(name, sizeof name, "%s_v%d", v->name, k);
        if (declare) tine_buf_printf(out, "%s\001%d\001%s %s;\n", r->indent, v->mark, ty, name);
        v->leaf[k] = leaf(r, name, v->ir);
    }
    if (!init) return;
    tine_expr_t *vals[TINE_RT_MAXVEC];
    int vi = (int)(v - r->vars), n = eval(r, init, vals, out);
    v = &r->vars[vi]; /* eval may have grown the table (an inlined helper's variables) */
    if (n < 0) return;
    if (n != v->n) { fail_at(r, init->range.begin, "%s", "an initial value of another shape"); return; }
    for (int k = 0; k < n; k++)
        if (!(v->val[k] = as_type(r, vals[k], v->ir, init->range.begin))) return;
    v->dirty = true;
}

static void assign(rt *r, const tine_cnode *lhs, const tine_cnode *rhs, tine_buf *out) {
    tine_expr_t *vals[TINE_RT_MAXVEC];
    int n = eval(r, rhs, vals, out);
    if (n < 0) return;
    vvar *v;
    int slot, count;
    if (!place(r, lhs, &v, &slot, &count)) {
        fail_at(r, lhs->range.begin, "%s", "an assignment to vectors that are not a local variable (or at an index that is not a constant)");
        return;
    }
    if (n != count) { fail_at(r, rhs->range.begin, "%s", "a value of another shape"); return; }
    for (int j = 0; j < v->n; j++) /* the other vectors: what they are now */
        if (!v->val[j]) v->val[j] = v->leaf[j];
    for (int k = 0; k < n; k++)
        if (!(v->val[slot + k] = as_type(r, vals[k], v->ir, rhs->range.begin))) return;
    v->dirty = true;
}

static void expr_stmt(rt *r, const tine_cnode *s, tine_buf *out) {
    const tine_cnode *e = s->kid[0];
    if (!e || !has_vector(r, e)) return copy_stmt(r, s, out);
    if (e->kind == TINE_CE_BINARY && !strcmp(e->name, "=") && is_vec(e->kid[0]->type)) return assign(r, e->kid[0], e->kid[1], out);
    if (e->kind == TINE_CE_CALL) {
        const tine_intrin *in = tine_intrin_find(r->ctx, r->ffam, e->name);
        if (in && in->mem == TINE_INTRIN_STORE) return store_stmt(r, e, out);
        const tine_cfunc *fn = in ? NULL : local_func(r, e->name);
        if (fn) { /* a helper on vectors called for what it writes (through its pointers, its stores) */
            tine_expr_t *vals[TINE_RT_MAXVEC];
            eval_inline(r, fn, e, vals, out);
            return;
        }
    }
    if (is_vec(e->type)) return; /* a vector value computed and dropped */
    size_t len;
    tine_cfile_text(r->f, &len);
    char *t = scalar_text(r, e, stmt_end(r, s, len), out);
    if (!r->failed) tine_buf_printf(out, "%s%s\n", r->indent, t);
    free(t);
}

/* A store intrinsic's call: the value computed and written where the source writes it. */
static void store_stmt(rt *r, const tine_cnode *e, tine_buf *out) {
    tine_expr_t *stored = NULL, *vals[TINE_RT_MAXVEC];
    const tine_cnode *p = NULL;
    if (eval_call(r, e, vals, out, &stored, &p) < 0) return;
    /* written in pieces of a power of two of bytes (vst3q_u8's 48 bytes: three of 16) */
    tine_type_t t = stored->type;
    int piece = t.lanes;
    while ((piece & (piece - 1)) || piece * t.bits / 8 > 64) piece = (piece & (piece - 1)) ? piece & -piece : piece / 2;
    char *ptr = ptr_text(r, p);
    if (!ptr) return;
    for (int k = 0; k < t.lanes / piece && !r->failed; k++) {
        tine_expr_t *part = piece == t.lanes ? stored : tine_slice(r->ctx, stored, k * piece, 1, piece);
        const char *c = part ? sink(r, part, out, e->range.begin) : NULL;
        if (!c) break;
        char ty[48];
        tine_buf_printf(out, "%s{\n%s    %s st = %s;\n%s    memcpy((char *)(%s) + %d, &st, sizeof st);\n%s}\n", r->indent,
                        r->indent, tine_cemit_type(r->em, part->type, ty, sizeof ty), c, r->indent, ptr,
                        k * piece * t.bits / 8, r->indent);
    }
    free(ptr);
}

/* A loop with a constant count: for (int c = A; c < B; c++) (or <=, c += K); its counter's
 * declaration (or the variable assigned) in *var. */
static bool const_loop(rt *r, const tine_cnode *s, const tine_cnode **var, int64_t *lo, int64_t *hi, int64_t *step) {
    if (s->kind != TINE_CS_FOR || !s->kid[0] || !s->kid[1] || !s->kid[2]) return false;
    const tine_cnode *init = s->kid[0], *cond = s->kid[1], *inc = s->kid[2];
    if (init->kind == TINE_CS_DECL && init->nkids == 1 && const_of(r, init->kid[0], lo)) *var = init;
    else if (init->kind == TINE_CS_EXPR && init->kid[0] && init->kid[0]->kind == TINE_CE_BINARY &&
             !strcmp(init->kid[0]->name, "=") && init->kid[0]->kid[0]->kind == TINE_CE_REF && init->kid[0]->kid[0]->decl &&
             const_of(r, init->kid[0]->kid[1], lo))
        *var = init->kid[0]->kid[0]->decl;
    else return false;
    if (cond->kind != TINE_CE_BINARY || cond->kid[0]->kind != TINE_CE_REF || cond->kid[0]->decl != *var ||
        !const_of(r, cond->kid[1], hi))
        return false;
    if (!strcmp(cond->name, "<=")) (*hi)++;
    else if (strcmp(cond->name, "<")) return false;
    if (inc->kind == TINE_CE_UNARY && !strcmp(inc->name, "++") && inc->kid[0]->kind == TINE_CE_REF && inc->kid[0]->decl == *var) *step = 1;
    else if (inc->kind == TINE_CE_BINARY && !strcmp(inc->name, "+=") && inc->kid[0]->kind == TINE_CE_REF &&
             inc->kid[0]->decl == *var && const_of(r, inc->kid[1], step) && *step > 0) ;
    else return false;
    return *hi - *lo <= 16 * *step;
}

/* Whether statements can run as a straight part of the region (run_inline). */
static bool inlineable(rt *r, const tine_cnode *s) {
    const tine_cnode *v;
    int64_t lo, hi, st;
    switch (s->kind) {
    case TINE_CS_COMPOUND:
        for (int i = 0; i < s->nkids; i++)
            if (!inlineable(r, s->kid[i])) return false;
        return true;
    case TINE_CS_DECL: return is_vec(s->type);
    case TINE_CS_EXPR: {
        const tine_cnode *e = s->kid[0];
        if (!e) return true;
        if (!has_vector(r, e)) return false; /* scalar code in a loop: the loop stays */
        if (e->kind == TINE_CE_BINARY && !strcmp(e->name, "=") && is_vec(e->kid[0]->type)) return true;
        if (e->kind != TINE_CE_CALL) return false;
        const tine_intrin *in = tine_intrin_find(r->ctx, r->ffam, e->name);
        return in ? in->mem == TINE_INTRIN_STORE : local_func(r, e->name) != NULL;
    }
    case TINE_CS_FOR: return const_loop(r, s, &v, &lo, &hi, &st) && inlineable(r, s->kid[3]);
    case TINE_CS_RETURN: return true;
    case TINE_CS_NULL: return true;
    default: return false;
    }
}

/* Statements run as a straight part of the region: a vector declaration is a name for a
 * value, not a C variable; a store is written in place; a constant loop is unrolled, its
 * counter a constant in each copy. 1 at a return (its values in vals, *n), 0 at the end,
 * -1 on failure. */
static int run_inline(rt *r, const tine_cnode *s, tine_expr_t **vals, int *n, tine_buf *out) {
    const tine_cnode *cv;
    int64_t lo, hi, st;
    switch (s->kind) {
    case TINE_CS_COMPOUND: {
        int nv0 = r->nvars;
        for (int i = 0; i < s->nkids && !r->failed; i++) {
            int k = run_inline(r, s->kid[i], vals, n, out);
            if (k) {
                r->nvars = nv0;
                return k;
            }
        }
        r->nvars = nv0;
        return r->failed ? -1 : 0;
    }
    case TINE_CS_RETURN:
        if (!s->nkids || !s->kid[0]) return fail_at(r, s->range.begin, "%s", "a helper that returns no value"), -1;
        if (s->kid[0]->type && s->kid[0]->type->kind == TINE_CT_INT) { /* a helper's scalar result */
            vals[0] = scalar_value(r, s->kid[0], s->kid[0]->type->elem, out);
            *n = 1;
            return vals[0] ? 1 : -1;
        }
        *n = eval(r, s->kid[0], vals, out);
        return *n < 0 ? -1 : 1;
    case TINE_CS_DECL:
        if (is_vec(s->type)) {
            decl(r, s, out, false); /* no C variable: the declaration's text is not written */
            if (r->failed) return -1;
            vvar *v = &r->vars[r->nvars - 1];
            for (int j = 0; j < v->n; j++) v->leaf[j] = v->val[j];
            v->dirty = false;
            return 0;
        }
        if (s->type && (s->type->kind == TINE_CT_INT || s->type->kind == TINE_CT_PTR) && r->inline_depth &&
            (s->type->kind == TINE_CT_INT || !(s->nkids && has_vector(r, s->kid[0])))) {
            /* a helper's scalar local (int32_t w; memcpy(&w, p, 4)): declared at the call
               under a name of its own, its statements written there */
            TINE_GROW(r->vars, r->nvars + 1, r->capvars);
            vvar *v = &r->vars[r->nvars++];
            memset(v, 0, sizeof *v);
            v->decl = s;
            v->name = s->name;
            v->n = 1;
            v->scalar = true;
            snprintf(v->cname, sizeof v->cname, "%s_%d", s->name, r->ntmp++);
            char *init = NULL;
            if (s->nkids && s->kid[0] && has_vector(r, s->kid[0])) { /* int32_t w = _mm_cvtsi128_si32(v) */
                char name[32];
                snprintf(name, sizeof name, "%s", v->cname);
                tine_expr_t *x = scalar_value(r, s->kid[0], s->type->elem, out);
                const char *c = x ? sink(r, x, out, s->range.begin) : NULL;
                if (!c) return -1;
                init = tine_strdup(c);
                v = var_of(r, s); /* the table may have grown */
            } else if (s->nkids && s->kid[0]) {
                init = node_text(r, s->kid[0]);
            }
            tine_buf_printf(out, "%s%s %s%s%s;\n", r->indent, s->type->spelling, v->cname, init ? " = " : "", init ? init : "");
            free(init);
            return 0;
        }
        break;
    case TINE_CS_EXPR: {
        const tine_cnode *e = s->kid[0];
        if (!e) return 0;
        if (e->kind == TINE_CE_BINARY && !strcmp(e->name, "=") && is_vec(e->kid[0]->type)) {
            assign(r, e->kid[0], e->kid[1], out);
            /* a variable of an enclosing run stays dirty: it is written where that run ends */
            return r->failed ? -1 : 0;
        }
        if (!has_vector(r, e) && r->inline_depth) { /* a helper's scalar statement, its names its copies' */
            char *t = node_text(r, e);
            tine_buf_printf(out, "%s%s;\n", r->indent, t);
            free(t);
            return 0;
        }
        if (e->kind == TINE_CE_CALL) {
            const tine_cfunc *fn = tine_intrin_find(r->ctx, r->ffam, e->name) ? NULL : local_func(r, e->name);
            if (fn) {
                tine_expr_t *hv[TINE_RT_MAXVEC];
                eval_inline(r, fn, e, hv, out);
            } else {
                store_stmt(r, e, out);
            }
            return r->failed ? -1 : 0;
        }
        break;
    }
    case TINE_CS_FOR:
        if (const_loop(r, s, &cv, &lo, &hi, &st)) {
            for (int64_t c = lo; c < hi && !r->failed; c += st) {
                TINE_GROW(r->vars, r->nvars + 1, r->capvars);
                vvar *v = &r->vars[r->nvars++];
                memset(v, 0, sizeof *v);
                v->decl = cv;
                v->name = cv->name;
                v->scalar = v->is_constant = true;
                v->cval = c;
                snprintf(v->cname, sizeof v->cname, "%lld", (long long)c);
                r->inline_depth++;
                int k = run_inline(r, s->kid[3], vals, n, out);
                r->inline_depth--;
                r->nvars--;
                if (k) return k;
            }
            return r->failed ? -1 : 0;
        }
        break;
    case TINE_CS_NULL: return 0;
    default: break;
    }
    return fail_at(r, s->range.begin, "%s", "a statement tine cannot run as part of straight vector code"), -1;
}

/* A block: its statements between the braces, the text between them kept. */
static void block(rt *r, const tine_cnode *b, tine_buf *out) {
    int nv0 = r->nvars;
    char saved[64];
    memcpy(saved, r->indent, sizeof saved);
    tine_buf_puts(out, "{\n");
    for (int i = 0; i < b->nkids && !r->failed; i++) {
        const tine_cnode *s = b->kid[i];
        int col = s->range.begin.col - 1;
        if (b->range.begin.off == s->range.begin.off) col = (int)strlen(saved) + 4; /* a body made a block: one level in */
        if (col < 0) col = 0;
        if (col > 60) col = 60;
        memset(r->indent, ' ', (size_t)col);
        r->indent[col] = 0;
        /* `int a = f(x), b = g(y);` is one DECL per variable, each with the statement's
           text: a scalar one is written once, for all of them */
        int j = i;
        while (s->kind == TINE_CS_DECL && !is_vec(s->type) && j + 1 < b->nkids && b->kid[j + 1]->kind == TINE_CS_DECL &&
               b->kid[j + 1]->range.begin.off == s->range.begin.off)
            j++;
        if (j > i) {
            tine_cnode group = {.kind = TINE_CS_DECL, .range = s->range, .type = s->type, .kid = &b->kid[i], .nkids = j - i + 1};
            for (int k = i; k <= j; k++)
                if (b->kid[k]->range.end.off > group.range.end.off) group.range.end = b->kid[k]->range.end;
            stmt(r, &group, out);
            i = j;
            continue;
        }
        stmt(r, s, out);
    }
    /* the variables of enclosing blocks are read after this one: written back */
    int n = r->nvars;
    r->nvars = nv0;
    flush(r, out, b->range.end);
    r->nvars = n;
    r->nvars = nv0;
    memcpy(r->indent, saved, sizeof saved);
    tine_buf_printf(out, "%s}", r->indent);
    reread(r);
}

/* A loop's or a branch's body: a block, or one statement made one. */
static void body(rt *r, const tine_cnode *s, tine_buf *out) {
    if (s->kind == TINE_CS_COMPOUND) return block(r, s, out);
    tine_cnode wrap = {.kind = TINE_CS_COMPOUND, .range = s->range, .nkids = 1, .kid = (tine_cnode **)&s};
    block(r, &wrap, out);
}

static void stmt(rt *r, const tine_cnode *s, tine_buf *out) {
    switch (s->kind) {
    case TINE_CS_DECL: return decl(r, s, out, true);
    case TINE_CS_EXPR: return expr_stmt(r, s, out);
    case TINE_CS_COMPOUND:
        flush(r, out, s->range.begin);
        tine_buf_puts(out, r->indent);
        block(r, s, out);
        tine_buf_puts(out, "\n");
        return;
    case TINE_CS_FOR:
    case TINE_CS_WHILE:
    case TINE_CS_DO: {
        const tine_cnode *cv;
        int64_t lo, hi, st;
        if (s->kind == TINE_CS_FOR && has_vector(r, s->kid[3]) && const_loop(r, s, &cv, &lo, &hi, &st) && inlineable(r, s->kid[3])) {
            tine_expr_t *vals[TINE_RT_MAXVEC];
            int n = 0;
            if (run_inline(r, s, vals, &n, out) > 0) fail_at(r, s->range.begin, "%s", "a return inside an unrolled loop");
            return;
        }
        const tine_cnode *bd = s->kind == TINE_CS_DO ? s->kid[0] : s->kind == TINE_CS_FOR ? s->kid[3] : s->kid[1];
        for (int i = 0; i < s->nkids; i++)
            if (s->kid[i] && s->kid[i] != bd && has_vector(r, s->kid[i])) {
                fail_at(r, s->kid[i]->range.begin, "%s", "a loop whose header uses intrinsics");
                return;
            }
        flush(r, out, s->range.begin);
        reread(r);
        tine_buf_printf(out, "%s%.*s", r->indent, (int)(bd->range.begin.off - s->range.begin.off), r->text + s->range.begin.off);
        if (r->nloops == 32) { fail_at(r, s->range.begin, "%s", "loops nested more than 32 deep"); return; }
        r->loops[r->nloops++] = s->range;
        body(r, bd, out);
        r->nloops--;
        size_t len;
        tine_cfile_text(r->f, &len);
        if (s->kind == TINE_CS_DO)
            tine_buf_printf(out, "%.*s\n", (int)(stmt_end(r, s, len) - bd->range.end.off), r->text + bd->range.end.off);
        else
            tine_buf_puts(out, "\n");
        reread(r);
        return;
    }
    case TINE_CS_IF: {
        char *cond = has_vector(r, s->kid[0]) ? scalar_text(r, s->kid[0], s->kid[0]->range.end.off, out) : dup_range(r, s->kid[0]->range);
        if (r->failed) { free(cond); return; }
        flush(r, out, s->range.begin);
        reread(r);
        tine_buf_printf(out, "%sif (%s) ", r->indent, cond);
        free(cond);
        body(r, s->kid[1], out);
        if (s->kid[2]) {
            tine_buf_puts(out, " else ");
            body(r, s->kid[2], out);
        }
        tine_buf_puts(out, "\n");
        reread(r);
        return;
    }
    case TINE_CS_RETURN:
        if (s->nkids && s->kid[0] && is_vec(s->kid[0]->type)) {
            fail_at(r, s->range.begin, "%s", "a vector value returned from the function");
            return;
        }
        if (s->nkids && has_vector(r, s->kid[0])) {
            size_t len;
            tine_cfile_text(r->f, &len);
            char *t = scalar_text(r, s, stmt_end(r, s, len), out);
            flush(r, out, s->range.begin);
            if (!r->failed) tine_buf_printf(out, "%s%s\n", r->indent, t);
            free(t);
            return;
        }
        flush(r, out, s->range.begin);
        return copy_stmt(r, s, out);
    case TINE_CS_ASM: fail_at(r, s->range.begin, "%s", "inline assembly in a function that uses intrinsics"); return;
    case TINE_CS_BREAK:
    case TINE_CS_CONTINUE:
    case TINE_CS_NULL:
    case TINE_CS_OTHER:
    default:
        if (has_vector(r, s)) {
            fail_at(r, s->range.begin, "%s", "a statement tine cannot retarget uses vectors");
            return;
        }
        flush(r, out, s->range.begin);
        return copy_stmt(r, s, out);
    }
}

/* ---- the file ------------------------------------------------------------------------------ */

static bool func_has_vector(rt *r, const tine_cfunc *fn) {
    for (int i = 0; i < fn->nparams; i++)
        if (is_vec(fn->param[i]->type)) return true;
    return has_vector(r, fn->body);
}

/* The instruction-set macros a preprocessor condition may test, and whether the source's
 * target defines each (to 1): the conditions of the output are decided as they were for
 * the source (#ifdef __ARM_NEON keeps choosing the code that was retargeted). */
static int source_macro(const char *from, const char *name, size_t n) {
    static const struct { const char *name; const char *defined_for; } M[] = {
        {"__ARM_NEON", "arm-64"}, {"__ARM_NEON__", "arm-64"}, {"__aarch64__", "arm-64"},
        {"__ARM_FEATURE_DOTPROD", "arm-64-dotprod"},
        {"__x86_64__", "x86-64"}, {"__SSE2__", "x86-64"}, {"__SSE3__", "x86-64-sse41 x86-64-avx2 x86-64-avx512"},
        {"__SSSE3__", "x86-64-sse41 x86-64-avx2 x86-64-avx512"}, {"__SSE4_1__", "x86-64-sse41 x86-64-avx2 x86-64-avx512"},
        {"__AVX__", "x86-64-avx2 x86-64-avx512"}, {"__AVX2__", "x86-64-avx2 x86-64-avx512"},
        {"__AVX512F__", "x86-64-avx512"}, {"__AVX512BW__", "x86-64-avx512"},
    };
    for (size_t i = 0; i < sizeof M / sizeof *M; i++) {
        if (strlen(M[i].name) != n || strncmp(M[i].name, name, n)) continue;
        /* a target names its family's macros by prefix: x86-64 for every x86 level, arm-64 for both Arm targets */
        const char *d = M[i].defined_for;
        for (const char *w = d; *w;) {
            size_t k = strcspn(w, " ");
            if (!strncmp(from, w, k)) return 1;
            w += k + (w[k] == ' ');
        }
        return 0;
    }
    return -1; /* not one of them */
}

/* Each #if/#ifdef/#ifndef/#elif line of text with the instruction-set macros replaced by
 * what they were for the source. */
static char *decide_conditions(const char *text, const char *from) {
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        const char *q = p;
        while (q < p + len && (*q == ' ' || *q == '\t')) q++;
        bool directive = *q == '#';
        if (directive) {
            q++;
            while (*q == ' ' || *q == '\t') q++;
            directive = !strncmp(q, "if", 2) || !strncmp(q, "elif", 4);
        }
        if (!directive) {
            tine_buf_printf(&b, "%.*s", (int)len, p);
            p += len;
            continue;
        }
        bool ifdef = !strncmp(q, "ifdef", 5), ifndef = !strncmp(q, "ifndef", 6);
        const char *w = q + (ifdef ? 5 : ifndef ? 6 : 0);
        if (ifdef || ifndef) {
            while (*w == ' ' || *w == '\t') w++;
            size_t k = 0;
            while (w[k] == '_' || (w[k] >= 'A' && w[k] <= 'Z') || (w[k] >= 'a' && w[k] <= 'z') || (w[k] >= '0' && w[k] <= '9')) k++;
            int v = source_macro(from, w, k);
            if (v >= 0) {
                tine_buf_printf(&b, "%.*s#if %d /* %.*s%.*s, as for %s (tine retarget) */\n", (int)(strchr(p, '#') - p), p,
                                ifdef ? v : !v, ifndef ? 1 : 0, "!", (int)k, w, from);
                p += len;
                continue;
            }
            tine_buf_printf(&b, "%.*s", (int)len, p);
            p += len;
            continue;
        }
        /* #if / #elif: each macro of the list, and defined(it), by its value */
        const char *e = p + len;
        for (const char *c = p; c < e;) {
            if (*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z')) {
                const char *s0 = c;
                while (c < e && (*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9'))) c++;
                size_t k = (size_t)(c - s0);
                if (k == 7 && !strncmp(s0, "defined", 7)) { /* defined X, defined(X) */
                    const char *t = c;
                    while (t < e && (*t == ' ' || *t == '(')) t++;
                    const char *m = t;
                    while (t < e && (*t == '_' || (*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') || (*t >= '0' && *t <= '9'))) t++;
                    int v = source_macro(from, m, (size_t)(t - m));
                    if (v >= 0) {
                        while (t < e && *t == ' ') t++;
                        if (t < e && *t == ')' && memchr(c, '(', (size_t)(m - c))) t++;
                        tine_buf_printf(&b, "%d", v);
                        c = t;
                        continue;
                    }
                }
                int v = source_macro(from, s0, k);
                if (v >= 0) tine_buf_printf(&b, "%d", v);
                else tine_buf_printf(&b, "%.*s", (int)k, s0);
                continue;
            }
            tine_buf_printf(&b, "%c", *c++);
        }
        p += len;
    }
    return b.p;
}

static const char *triple_of(const char *fam) { return !strcmp(fam, "arm") ? "aarch64-linux-gnu" : "x86_64-linux-gnu"; }

char *tine_retarget(tine_ctx_t *ctx, const char *path, const char *text, const tine_retarget_opts *o, char **report) {
    const char *ffam = tine_target_isa(o->from), *tfam = tine_target_isa(o->to);
    if (!ffam || !tfam) {
        tine_set_error(ctx, "unknown target '%s'", ffam ? o->to : o->from);
        return NULL;
    }
    const char *args[64];
    int na = 0;
    const char *fl = tine_target_cflags(o->from, &(int){0});
    char flagbuf[256];
    if (fl) { /* the source's own instruction set, so its intrinsics are declared: the
                 registry's flags word by word, but the triple, which the front end sets */
        snprintf(flagbuf, sizeof flagbuf, "%s", fl);
        for (char *w = strtok(flagbuf, " "); w && na < 16; w = strtok(NULL, " "))
            if (strncmp(w, "--target", 8) && strncmp(w, "-target", 7)) args[na++] = w;
    }
    for (int i = 0; i < o->ncflags && na < 63; i++) args[na++] = o->cflags[i];
    tine_cfile *f = tine_cfront_parse(ctx, path, text, args, na, triple_of(ffam));
    if (!f) return NULL;
    rt r = {.ctx = ctx, .f = f, .from = o->from, .to = o->to, .ffam = ffam, .report = report ? tine_rt_report_new() : NULL};
    size_t len;
    r.text = tine_cfile_text(f, &len);
    r.em = tine_cemit_new(ctx, o->to, "");
    tine_buf body = {0};
    tine_buf_puts(&body, "");
    unsigned pos = 0, first_fn = UINT32_MAX;
    bool ok = r.em != NULL;
    for (int i = 0; ok && i < tine_cfile_nfuncs(f); i++) {
        const tine_cfunc *fn = tine_cfile_func(f, i);
        if (!func_has_vector(&r, fn)) continue;
        bool vec_sig = is_vec(fn->ret);
        for (int k = 0; k < fn->nparams; k++) vec_sig |= is_vec(fn->param[k]->type);
        if (vec_sig) {
            /* a helper on vectors: inlined where it is called, its definition dropped */
            if (!fn->is_static) {
                fail_at(&r, fn->range.begin, "'%s' takes or returns vectors and is not static: tine inlines such helpers where they are called, and cannot drop one other files may call", fn->name);
                ok = false;
                break;
            }
            if (first_fn == UINT32_MAX) first_fn = (unsigned)body.n + (fn->range.begin.off - pos);
            tine_buf_printf(&body, "%.*s/* %s: inlined where it is called (tine retarget) */", (int)(fn->range.begin.off - pos),
                            r.text + pos, fn->name);
            pos = fn->range.end.off;
            continue;
        }
        tine_buf fb = {0};
        tine_buf_puts(&fb, "");
        r.nvars = 0;
        r.nrefs = 0;
        r.nloops = 0;
        collect_refs(&r, fn->body);
        memset(r.indent, 0, sizeof r.indent);
        block(&r, fn->body, &fb);
        if (r.failed) {
            free(fb.p);
            ok = false;
            break;
        }
        if (first_fn == UINT32_MAX) first_fn = (unsigned)body.n + (fn->range.begin.off - pos);
        tine_buf_printf(&body, "%.*s", (int)(fn->body->range.begin.off - pos), r.text + pos);
        char *kept = drop_unused_decls(&r, fb.p);
        tine_buf_puts(&body, kept);
        free(kept);
        free(fb.p);
        pos = fn->body->range.end.off;
        tine_cemit_forget(r.em);
    }
    char *result = NULL;
    if (ok) {
        tine_buf_printf(&body, "%.*s", (int)(len - pos), r.text + pos);
        tine_buf res = {0};
        tine_buf_puts(&res, "");
        /* the includes: the source's intrinsic headers swapped for the target's, then the
           emitter's declarations after the last include */
        unsigned p = 0;
        for (int i = 0; i < tine_cfile_nincludes(f); i++) {
            const tine_cinclude *inc = tine_cfile_include(f, i);
            bool intrin_h = !strcmp(inc->name, "arm_neon.h") || strstr(inc->name, "intrin.h") != NULL;
            if (!intrin_h) continue;
            tine_buf_printf(&res, "%.*s", (int)(inc->range.begin.off - p), body.p + p);
            tine_buf_printf(&res, "#include <%s>", !strcmp(tfam, "arm") ? "arm_neon.h" : "immintrin.h");
            p = inc->range.end.off;
        }
        /* the declarations go before the first function rewritten, at the start of its line
           (after every include it may need, and outside any condition the includes are in) */
        unsigned split = first_fn == UINT32_MAX ? (unsigned)body.n : first_fn;
        while (split > 0 && body.p[split - 1] != '\n') split--;
        if (split < p) split = p;
        tine_buf_printf(&res, "%.*s", (int)(split - p), body.p + p);
        tine_buf_puts(&res, "\n#include <stdint.h>\n#include <string.h>\n");
        tine_cemit_prelude(r.em, &res);
        tine_buf_puts(&res, body.p + split);
        result = decide_conditions(res.p, o->from);
        free(res.p);
    }
    free(body.p);
    free(r.vars);
    free(r.declused);
    free(r.refs);
    tine_cemit_free(r.em);
    tine_cfile_free(f);
    if (report && result) *report = tine_rt_report_text(r.report, path);
    tine_rt_report_free(r.report);
    return result;
}

/* ---- the functions --check can call ------------------------------------------------------ */

char *tine_retarget_functions(tine_ctx_t *ctx, const char *path, const char *text, const tine_retarget_opts *o) {
    const char *ffam = tine_target_isa(o->from);
    if (!ffam) {
        tine_set_error(ctx, "unknown target '%s'", o->from);
        return NULL;
    }
    const char *args[64];
    int na = 0;
    for (int i = 0; i < o->ncflags && na < 64; i++) args[na++] = o->cflags[i];
    tine_cfile *f = tine_cfront_parse(ctx, path, text, args, na, triple_of(ffam));
    if (!f) return NULL;
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    for (int i = 0; i < tine_cfile_nfuncs(f); i++) {
        const tine_cfunc *fn = tine_cfile_func(f, i);
        bool ok = !fn->is_static && fn->ret && (fn->ret->kind == TINE_CT_VOID || fn->ret->kind == TINE_CT_INT);
        for (int k = 0; k < fn->nparams && ok; k++) {
            const tine_ctype *t = fn->param[k]->type;
            ok = t && (t->kind == TINE_CT_INT || (t->kind == TINE_CT_PTR && t->pointee && t->pointee->kind == TINE_CT_INT));
        }
        if (!ok || fn->nparams > 12) continue;
        tine_buf_printf(&b, "%s\t%s", fn->name, fn->ret->spelling);
        for (int k = 0; k < fn->nparams; k++) {
            const tine_ctype *t = fn->param[k]->type;
            tine_buf_printf(&b, "\t%c %d %s %s", t->kind == TINE_CT_PTR ? (t->is_const ? 'i' : 'o') : 's',
                            t->kind == TINE_CT_PTR ? t->pointee->elem.bits / 8 : t->elem.bits / 8, fn->param[k]->name,
                            t->spelling);
        }
        tine_buf_puts(&b, "\n");
    }
    tine_cfile_free(f);
    return b.p;
}
