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
#include "keep.h"

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

static void decl(rt *r, const tine_cnode *s, tine_buf *out, bool declare);
static void assign(rt *r, const tine_cnode *lhs, const tine_cnode *rhs, tine_buf *out);
static int run_inline(rt *r, const tine_cnode *s, tine_expr_t **vals, int *n, tine_buf *out);
static void store_stmt(rt *r, const tine_cnode *e, tine_buf *out);


/* A call of a helper of this file that takes or returns vectors (static inline uint8x8_t
 * div255(uint16x8_t x) { ... }): its body evaluated on the arguments' values, as if
 * written in place. Its body is a straight run of vector declarations and assignments
 * ending in a return; a scalar parameter is copied at the call and read from the copy. */
static int eval_inline(rt *r, const tine_cfunc *fn, const tine_cnode *call, tine_expr_t **vals, tine_buf *out) {
    if (r->inline_depth > 16) return rt_fail_at(r, call->range.begin, "'%s': helpers nested too deep", fn->name), -1;
    if (fn->nparams != call->nkids) return rt_fail_at(r, call->range.begin, "'%s': wrong number of arguments", fn->name), -1;
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
        if (rt_is_vec(pd->type) && !to_vectors) {
            v->n = rt_vec_count(pd->type, &v->ir);
            tine_expr_t *av[TINE_RT_MAXVEC];
            int n = rt_eval(r, a, av, out);
            if (n < 0) break;
            if (n != v->n) { rt_fail_at(r, a->range.begin, "'%s': an argument of another shape", fn->name); break; }
            for (int j = 0; j < n; j++)
                if (!(v->val[j] = v->leaf[j] = rt_as_type(r, av[j], v->ir, a->range.begin))) break;
        } else if (to_vectors) {
            /* a pointer to the caller's vectors (uint8x8_t out[3] is one, as C says): the
               helper's writes are the caller variable's */
            const tine_cnode *ref = a;
            while (ref->kind == TINE_CE_PAREN || (ref->kind == TINE_CE_UNARY && !strcmp(ref->name, "&"))) ref = ref->kid[0];
            vvar *cv = ref->kind == TINE_CE_REF && ref->decl ? rt_var_of(r, ref->decl) : NULL;
            if (!cv || cv->scalar) { rt_fail_at(r, a->range.begin, "'%s': a pointer to vectors that are not a local variable", fn->name); break; }
            v = &r->vars[r->nvars - 1]; /* var_of may not move the table, but keep to the index */
            v->alias = (int)(cv - r->vars) + 1;
            v->n = cv->n;
            v->ir = cv->ir;
        } else if (pd->type && pd->type->kind == TINE_CT_PTR) {
            /* a pointer (the address a helper loads from): copied at the call, its copy
               named where the helper's text reads it */
            char *t = rt_ptr_text(r, a);
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
            v->val[0] = v->leaf[0] = rt_capture_scalar(r, a, pd->type->elem, out, v->cname);
            if (a->is_const) snprintf(v->cname, sizeof v->cname, "%lld", (long long)a->value);
        } else {
            rt_fail_at(r, a->range.begin, "'%s': a parameter that is neither a vector nor an integer", fn->name);
        }
    }
    int n = -1;
    r->inline_depth++;
    if (!r->failed && run_inline(r, fn->body, vals, &n, out) == 0 && !r->failed) {
        if (fn->ret && fn->ret->kind != TINE_CT_VOID) rt_fail_at(r, call->range.begin, "'%s' returns no vector", fn->name);
        n = 0;
    }
    r->inline_depth--;
    r->nvars = nv0;
    return r->failed ? -1 : n;
}

/* The variable an lvalue names (x, x[i], x.val[i], *x), or NULL. */
static const tine_cnode *lvalue_decl(const tine_cnode *e) {
    while (e && (e->kind == TINE_CE_SUBSCRIPT || e->kind == TINE_CE_MEMBER || e->kind == TINE_CE_PAREN ||
                 (e->kind == TINE_CE_UNARY && !strcmp(e->name, "*"))))
        e = e->kid[0];
    return e && e->kind == TINE_CE_REF ? e->decl : NULL;
}

static void mark_written(rt *r, const tine_cnode *decl) {
    if (!decl) return;
    TINE_GROW(r->written, r->nwritten + 1, r->capwritten);
    r->written[r->nwritten++] = decl;
}

static void collect_refs(rt *r, const tine_cnode *e) {
    if (!e) return;
    /* writes after the declaration: an assignment, its address taken, an array passed on */
    if (e->kind == TINE_CE_BINARY && e->name[0] && e->name[strlen(e->name) - 1] == '=' && strcmp(e->name, "==") &&
        strcmp(e->name, "<=") && strcmp(e->name, ">=") && strcmp(e->name, "!="))
        mark_written(r, lvalue_decl(e->kid[0]));
    if (e->kind == TINE_CE_UNARY && (!strcmp(e->name, "&") || !strcmp(e->name, "++") || !strcmp(e->name, "--")))
        mark_written(r, lvalue_decl(e->kid[0]));
    if (e->kind == TINE_CE_CALL)
        for (int i = 0; i < e->nkids; i++)
            if (e->kid[i]->type && e->kid[i]->type->kind == TINE_CT_ARRAY) mark_written(r, lvalue_decl(e->kid[i]));
    if (e->kind == TINE_CE_REF && e->decl && rt_is_vec(e->type)) {
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

/* A variable never written after its declaration: its value in every run is the one it
 * was declared with. */
static bool fixed_var(const rt *r, const vvar *v) {
    bool fixed = v->decl && v->decl->kind == TINE_CS_DECL && v->decl->nkids && !v->decl->is_param && !v->alias;
    for (int w = 0; w < r->nwritten && fixed; w++) fixed = r->written[w] != v->decl;
    return fixed;
}

static void flush(rt *r, tine_buf *out, tine_cpos at) {
    for (int i = 0; i < r->nvars && !r->failed; i++) {
        vvar *v = &r->vars[i];
        if (!v->dirty) continue;
        if (!live_after(r, v->decl, at.off) || fixed_var(r, v)) { /* nothing reads its C variable again: its
                                                                         value need not be written */
            v->dirty = false;
            continue;
        }
        for (int k = 0; k < v->n; k++) {
            if (!v->val[k]) continue;
            const char *c = rt_sink(r, v->val[k], out, at);
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
/* After a branch or a loop: every variable is what its C variable holds, but one never
 * written after its declaration, which keeps the value it was declared with (so a
 * broadcast stays a broadcast inside the loop: its leaves were read where it was
 * declared, in a scope around every use of it). */
static void reread(rt *r) {
    for (int i = 0; i < r->nvars; i++) {
        if (fixed_var(r, &r->vars[i]) && r->vars[i].val[0]) continue;
        for (int k = 0; k < r->vars[i].n; k++) r->vars[i].val[k] = NULL;
    }
    tine_cemit_forget(r->em);
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
    if (e->kind == TINE_CE_CALL && e->name && !tine_intrin_find(r->ctx, r->ffam, e->name) && !rt_vector_helper(r, e->name))
        for (int i = 0; i < e->nkids; i++)
            if (rt_is_vec(e->kid[i]->type)) { /* a vector escaping into code tine does not see */
                rt_fail_at(r, e->kid[i]->range.begin, "a vector passed to '%s', whose body this file does not hold (tine retargets the vectors of the code it sees)", e->name);
                return;
            }
    if (e->kind == TINE_CE_CALL && e->name && (tine_intrin_find(r->ctx, r->ffam, e->name) || rt_vector_helper(r, e->name))) {
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
        if (calls[i]->range.begin.off < pos) { rt_fail_at(r, calls[i]->range.begin, "%s", "an intrinsic inside a macro's other arguments"); break; }
        if (rt_eval(r, calls[i], v, out) != 1) {
            if (!r->failed) rt_fail_at(r, calls[i]->range.begin, "%s", "an intrinsic whose value is not one scalar");
            break;
        }
        if (v[0]->type.lanes != 1) { rt_fail_at(r, calls[i]->range.begin, "%s", "a vector value used as a scalar"); break; }
        const char *c = rt_sink(r, v[0], out, calls[i]->range.begin);
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
    if (!rt_is_vec(s->type)) {
        if (!rt_has_vector(r, s)) return copy_stmt(r, s, out);
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
    v->n = rt_vec_count(s->type, &v->ir);
    if (v->n < 1 || v->n > TINE_RT_MAXVEC) { rt_fail_at(r, s->range.begin, "%s", "an array of more than 32 vectors, or of no known size"); return; }
    char ty[48];
    tine_cemit_type(r->em, v->ir, ty, sizeof ty);
    v->mark = new_mark(r);
    for (int k = 0; k < v->n; k++) {
        char name[96];
        if (v->n == 1) snprintf(name, sizeof name, "%s", v->name);
        else snprintf(name, sizeof name, "%s_v%d", v->name, k);
        if (declare) tine_buf_printf(out, "%s\001%d\001%s %s;\n", r->indent, v->mark, ty, name);
        v->leaf[k] = rt_leaf(r, name, v->ir);
    }
    if (!init) return;
    tine_expr_t *vals[TINE_RT_MAXVEC];
    int vi = (int)(v - r->vars), n = rt_eval(r, init, vals, out);
    v = &r->vars[vi]; /* eval may have grown the table (an inlined helper's variables) */
    if (n < 0) return;
    if (n != v->n) { rt_fail_at(r, init->range.begin, "%s", "an initial value of another shape"); return; }
    for (int k = 0; k < n; k++)
        if (!(v->val[k] = rt_as_type(r, vals[k], v->ir, init->range.begin))) return;
    v->dirty = true;
}

static void assign(rt *r, const tine_cnode *lhs, const tine_cnode *rhs, tine_buf *out) {
    tine_expr_t *vals[TINE_RT_MAXVEC];
    int n = rt_eval(r, rhs, vals, out);
    if (n < 0) return;
    vvar *v;
    int slot, count;
    if (!rt_place(r, lhs, &v, &slot, &count)) {
        rt_fail_at(r, lhs->range.begin, "%s", "an assignment to vectors that are not a local variable (or at an index that is not a constant)");
        return;
    }
    if (n != count) { rt_fail_at(r, rhs->range.begin, "%s", "a value of another shape"); return; }
    for (int j = 0; j < v->n; j++) /* the other vectors: what they are now */
        if (!v->val[j]) v->val[j] = v->leaf[j];
    for (int k = 0; k < n; k++)
        if (!(v->val[slot + k] = rt_as_type(r, vals[k], v->ir, rhs->range.begin))) return;
    v->dirty = true;
}

static void expr_stmt(rt *r, const tine_cnode *s, tine_buf *out) {
    const tine_cnode *e = s->kid[0];
    if (!e || !rt_has_vector(r, e)) return copy_stmt(r, s, out);
    if (e->kind == TINE_CE_BINARY && !strcmp(e->name, "=") && rt_is_vec(e->kid[0]->type)) return assign(r, e->kid[0], e->kid[1], out);
    if (e->kind == TINE_CE_CALL) {
        const tine_intrin *in = tine_intrin_find(r->ctx, r->ffam, e->name);
        if (in && in->mem == TINE_INTRIN_STORE) return store_stmt(r, e, out);
        const tine_cfunc *fn = in ? NULL : rt_local_func(r, e->name);
        if (fn) { /* a helper on vectors called for what it writes (through its pointers, its stores) */
            tine_expr_t *vals[TINE_RT_MAXVEC];
            eval_inline(r, fn, e, vals, out);
            return;
        }
    }
    if (rt_is_vec(e->type)) return; /* a vector value computed and dropped */
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
    if (rt_eval_call(r, e, vals, out, &stored, &p) < 0) return;
    if (r->wide) {
        rt_wide_store(r, stored, p, e->range.begin, out);
        return;
    }
    char *ptr = rt_ptr_text(r, p);
    if (!ptr) return;
    rt_store_at(r, ptr, 0, stored, e->range.begin, out);
    free(ptr);
}

/* A loop with a constant count: for (int c = A; c < B; c++) (or <=, c += K); its counter's
 * declaration (or the variable assigned) in *var. */
static bool const_loop(rt *r, const tine_cnode *s, const tine_cnode **var, int64_t *lo, int64_t *hi, int64_t *step) {
    if (s->kind != TINE_CS_FOR || !s->kid[0] || !s->kid[1] || !s->kid[2]) return false;
    const tine_cnode *init = s->kid[0], *cond = s->kid[1], *inc = s->kid[2];
    if (init->kind == TINE_CS_DECL && init->nkids == 1 && rt_const_of(r, init->kid[0], lo)) *var = init;
    else if (init->kind == TINE_CS_EXPR && init->kid[0] && init->kid[0]->kind == TINE_CE_BINARY &&
             !strcmp(init->kid[0]->name, "=") && init->kid[0]->kid[0]->kind == TINE_CE_REF && init->kid[0]->kid[0]->decl &&
             rt_const_of(r, init->kid[0]->kid[1], lo))
        *var = init->kid[0]->kid[0]->decl;
    else return false;
    if (cond->kind != TINE_CE_BINARY || cond->kid[0]->kind != TINE_CE_REF || cond->kid[0]->decl != *var ||
        !rt_const_of(r, cond->kid[1], hi))
        return false;
    if (!strcmp(cond->name, "<=")) (*hi)++;
    else if (strcmp(cond->name, "<")) return false;
    if (inc->kind == TINE_CE_UNARY && !strcmp(inc->name, "++") && inc->kid[0]->kind == TINE_CE_REF && inc->kid[0]->decl == *var) *step = 1;
    else if (inc->kind == TINE_CE_BINARY && !strcmp(inc->name, "+=") && inc->kid[0]->kind == TINE_CE_REF &&
             inc->kid[0]->decl == *var && rt_const_of(r, inc->kid[1], step) && *step > 0) ;
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
    case TINE_CS_DECL: return rt_is_vec(s->type);
    case TINE_CS_EXPR: {
        const tine_cnode *e = s->kid[0];
        if (!e) return true;
        if (!rt_has_vector(r, e)) return false; /* scalar code in a loop: the loop stays */
        if (e->kind == TINE_CE_BINARY && !strcmp(e->name, "=") && rt_is_vec(e->kid[0]->type)) return true;
        if (e->kind != TINE_CE_CALL) return false;
        const tine_intrin *in = tine_intrin_find(r->ctx, r->ffam, e->name);
        return in ? in->mem == TINE_INTRIN_STORE : rt_local_func(r, e->name) != NULL;
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
        if (!s->nkids || !s->kid[0]) return rt_fail_at(r, s->range.begin, "%s", "a helper that returns no value"), -1;
        if (s->kid[0]->type && s->kid[0]->type->kind == TINE_CT_INT) { /* a helper's scalar result */
            vals[0] = rt_scalar_value(r, s->kid[0], s->kid[0]->type->elem, out);
            *n = 1;
            return vals[0] ? 1 : -1;
        }
        *n = rt_eval(r, s->kid[0], vals, out);
        return *n < 0 ? -1 : 1;
    case TINE_CS_DECL:
        if (rt_is_vec(s->type)) {
            decl(r, s, out, false); /* no C variable: the declaration's text is not written */
            if (r->failed) return -1;
            vvar *v = &r->vars[r->nvars - 1];
            for (int j = 0; j < v->n; j++) v->leaf[j] = v->val[j];
            v->dirty = false;
            return 0;
        }
        if (s->type && (s->type->kind == TINE_CT_INT || s->type->kind == TINE_CT_PTR) && r->inline_depth &&
            (s->type->kind == TINE_CT_INT || !(s->nkids && rt_has_vector(r, s->kid[0])))) {
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
            if (s->nkids && s->kid[0] && rt_has_vector(r, s->kid[0])) { /* int32_t w = _mm_cvtsi128_si32(v) */
                char name[32];
                snprintf(name, sizeof name, "%s", v->cname);
                tine_expr_t *x = rt_scalar_value(r, s->kid[0], s->type->elem, out);
                const char *c = x ? rt_sink(r, x, out, s->range.begin) : NULL;
                if (!c) return -1;
                init = tine_strdup(c);
                v = rt_var_of(r, s); /* the table may have grown */
            } else if (s->nkids && s->kid[0]) {
                init = rt_node_text(r, s->kid[0]);
            }
            tine_buf_printf(out, "%s%s %s%s%s;\n", r->indent, s->type->spelling, v->cname, init ? " = " : "", init ? init : "");
            free(init);
            return 0;
        }
        break;
    case TINE_CS_EXPR: {
        const tine_cnode *e = s->kid[0];
        if (!e) return 0;
        if (e->kind == TINE_CE_BINARY && !strcmp(e->name, "=") && rt_is_vec(e->kid[0]->type)) {
            assign(r, e->kid[0], e->kid[1], out);
            /* a variable of an enclosing run stays dirty: it is written where that run ends */
            return r->failed ? -1 : 0;
        }
        if (!rt_has_vector(r, e) && r->inline_depth) { /* a helper's scalar statement, its names its copies' */
            char *t = rt_node_text(r, e);
            tine_buf_printf(out, "%s%s;\n", r->indent, t);
            free(t);
            return 0;
        }
        if (e->kind == TINE_CE_CALL) {
            const tine_cfunc *fn = tine_intrin_find(r->ctx, r->ffam, e->name) ? NULL : rt_local_func(r, e->name);
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
    return rt_fail_at(r, s->range.begin, "%s", "a statement tine cannot run as part of straight vector code"), -1;
}

/* The scalar variables a function writes (assigns, increments, or gives the address of):
 * a copy of an expression of the others may be shared by two reads (values.c). */
static void scalar_writes(rt *r, const tine_cnode *e) {
    if (!e) return;
    const tine_cnode *d = NULL;
    if (e->kind == TINE_CE_BINARY && e->name[0] && e->name[strlen(e->name) - 1] == '=' && strcmp(e->name, "==") &&
        strcmp(e->name, "<=") && strcmp(e->name, ">=") && strcmp(e->name, "!="))
        d = lvalue_decl(e->kid[0]);
    if (e->kind == TINE_CE_UNARY && (strstr(e->name, "++") || strstr(e->name, "--") || !strcmp(e->name, "&")))
        d = lvalue_decl(e->kid[0]);
    if (d) {
        TINE_GROW(r->swritten, r->nswritten + 1, r->capswritten);
        r->swritten[r->nswritten++] = d;
    }
    for (int i = 0; i < e->nkids; i++) scalar_writes(r, e->kid[i]);
}

/* The vector variables declared before `from` that a statement assigns whole (acc = ...:
 * accumulators, into accs, each once); false if it writes one otherwise (a member, an
 * element, its address given to a helper). */
static bool outer_writes(rt *r, const tine_cnode *e, unsigned from, const tine_cnode **accs, int *nacc) {
    if (!e) return true;
    if (e->kind == TINE_CE_BINARY && !strcmp(e->name, "=")) {
        const tine_cnode *d = lvalue_decl(e->kid[0]);
        if (d && d->range.begin.off < from) {
            const tine_cnode *l = e->kid[0];
            while (l->kind == TINE_CE_PAREN) l = l->kid[0];
            if (l->kind != TINE_CE_REF || !rt_is_vec(l->type) || l->type->kind != TINE_CT_VECTOR) return false;
            int k = 0;
            while (k < *nacc && accs[k] != d) k++;
            if (k == *nacc) {
                if (*nacc == 8) return false;
                accs[(*nacc)++] = d;
            }
        }
    }
    if (e->kind == TINE_CE_CALL && e->name && rt_local_func(r, e->name))
        for (int i = 0; i < e->nkids; i++) {
            const tine_ctype *t = e->kid[i]->type;
            if (t && (t->kind == TINE_CT_PTR || t->kind == TINE_CT_ARRAY) && t->pointee && t->pointee->kind == TINE_CT_VECTOR)
                return false;
        }
    for (int i = 0; i < e->nkids; i++)
        if (!outer_writes(r, e->kid[i], from, accs, nacc)) return false;
    return true;
}

/* Whether a loop may be widened (widen.c decides the rest): its body is straight vector
 * code, and a vector it carries from one iteration to the next is a variable assigned
 * whole (an accumulator). */
static bool widen_candidate(rt *r, const tine_cnode *s, const tine_cnode **accs, int *nacc) {
    const tine_cnode *bd = s->kid[3];
    *nacc = 0;
    if (r->no_widen || r->nloops >= 31 || r->inline_depth || !bd || !rt_has_vector(r, bd)) return false;
    bool straight = inlineable(r, bd), writes = outer_writes(r, bd, bd->range.begin.off, accs, nacc);
    if (getenv("TINE_RETARGET_TRACE"))
        fprintf(stderr, "widen %d:%d: candidate: straight %d, writes outer vectors only whole %d\n", s->range.begin.line,
                s->range.begin.col, straight, writes);
    return straight && writes;
}

/* A block: its statements between the braces, the text between them kept. */
static void block(rt *r, const tine_cnode *b, tine_buf *out) {
    int nv0 = r->nvars;
    if (r->nblocks < 64) r->blocks[r->nblocks] = ++r->nextblock;
    r->nblocks++;
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
        while (s->kind == TINE_CS_DECL && !rt_is_vec(s->type) && j + 1 < b->nkids && b->kid[j + 1]->kind == TINE_CS_DECL &&
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
    r->nblocks--;
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
        if (s->kind == TINE_CS_FOR && rt_has_vector(r, s->kid[3]) && const_loop(r, s, &cv, &lo, &hi, &st) && inlineable(r, s->kid[3])) {
            tine_expr_t *vals[TINE_RT_MAXVEC];
            int n = 0;
            if (run_inline(r, s, vals, &n, out) > 0) rt_fail_at(r, s->range.begin, "%s", "a return inside an unrolled loop");
            return;
        }
        const tine_cnode *bd = s->kind == TINE_CS_DO ? s->kid[0] : s->kind == TINE_CS_FOR ? s->kid[3] : s->kid[1];
        char *rest = NULL;
        bool close = false;
        const tine_cnode *accs[8];
        int nacc = 0;
        if (s->kind == TINE_CS_FOR && widen_candidate(r, s, accs, &nacc)) {
            flush(r, out, s->range.begin);
            reread(r);
            if (r->failed || !rt_widen_loop(r, s, accs, nacc, out, &rest, &close)) rest = NULL;
        }
        if (rest) { /* the loop as written, for the iterations that remain, not reported again */
            char saved[64];
            memcpy(saved, r->indent, sizeof saved);
            tine_rt_report *rep = r->report;
            r->report = NULL;
            tine_buf_printf(out, "%s%s", r->indent, rest);
            free(rest);
            r->loops[r->nloops++] = s->range;
            body(r, bd, out);
            r->nloops--;
            r->report = rep;
            tine_buf_puts(out, "\n");
            memcpy(r->indent, saved, sizeof saved);
            if (close) { /* widen.c's block, one level out */
                size_t il = strlen(r->indent);
                r->indent[il >= 4 ? il - 4 : 0] = 0;
                tine_buf_printf(out, "%s}\n", r->indent);
            }
            reread(r);
            return;
        }
        for (int i = 0; i < s->nkids; i++)
            if (s->kid[i] && s->kid[i] != bd && rt_has_vector(r, s->kid[i])) {
                rt_fail_at(r, s->kid[i]->range.begin, "%s", "a loop whose header uses intrinsics");
                return;
            }
        flush(r, out, s->range.begin);
        reread(r);
        tine_buf_printf(out, "%s%.*s", r->indent, (int)(bd->range.begin.off - s->range.begin.off), r->text + s->range.begin.off);
        if (r->nloops == 32) { rt_fail_at(r, s->range.begin, "%s", "loops nested more than 32 deep"); return; }
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
        char *cond = rt_has_vector(r, s->kid[0]) ? scalar_text(r, s->kid[0], s->kid[0]->range.end.off, out) : rt_dup_range(r, s->kid[0]->range);
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
        if (s->nkids && s->kid[0] && rt_is_vec(s->kid[0]->type)) {
            rt_fail_at(r, s->range.begin, "%s", "a vector value returned from the function");
            return;
        }
        if (s->nkids && rt_has_vector(r, s->kid[0])) {
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
    case TINE_CS_ASM: rt_fail_at(r, s->range.begin, "%s", "inline assembly in a function that uses intrinsics"); return;
    case TINE_CS_BREAK:
    case TINE_CS_CONTINUE:
    case TINE_CS_NULL:
    case TINE_CS_OTHER:
    default:
        if (rt_has_vector(r, s)) {
            rt_fail_at(r, s->range.begin, "%s", "a statement tine cannot retarget uses vectors");
            return;
        }
        flush(r, out, s->range.begin);
        return copy_stmt(r, s, out);
    }
}

/* ---- the file ------------------------------------------------------------------------------ */

static bool func_has_vector(rt *r, const tine_cfunc *fn) {
    for (int i = 0; i < fn->nparams; i++)
        if (rt_is_vec(fn->param[i]->type)) return true;
    return rt_has_vector(r, fn->body);
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
    rt r = {.ctx = ctx, .f = f, .from = o->from, .to = o->to, .ffam = ffam, .report = report ? tine_rt_report_new() : NULL,
            .inline_call = eval_inline, .run_body = run_inline, .wide_load = rt_wide_load, .no_widen = o->no_widen};
    size_t len;
    r.text = tine_cfile_text(f, &len);
    r.em = tine_cemit_new(ctx, o->to, "");
    /* each function rewritten (a helper on vectors is inlined where it is called, its
       definition dropped); one tine cannot rewrite kept as written, its intrinsics
       emulated, with the helpers it calls */
    int nf = tine_cfile_nfuncs(f);
    enum { PLAIN, REWRITTEN, HELPER, KEPT } *what = tine_xcalloc((size_t)nf + 1, sizeof *what);
    char **rewritten = tine_xcalloc((size_t)nf + 1, sizeof *rewritten);
    keep_state ks = {0};
    bool ok = r.em != NULL;
    for (int i = 0; ok && i < nf; i++) {
        const tine_cfunc *fn = tine_cfile_func(f, i);
        if (!func_has_vector(&r, fn)) continue;
        bool vec_sig = rt_is_vec(fn->ret);
        for (int k = 0; k < fn->nparams; k++) vec_sig |= rt_is_vec(fn->param[k]->type);
        if (vec_sig) {
            if (!fn->is_static) {
                rt_fail_at(&r, fn->range.begin, "'%s' takes or returns vectors and is not static: tine inlines such helpers where they are called, and cannot drop one other files may call", fn->name);
                ok = false;
                break;
            }
            what[i] = HELPER;
            continue;
        }
        tine_buf fb = {0};
        tine_buf_puts(&fb, "");
        r.nvars = 0;
        r.nrefs = 0;
        r.nwritten = 0;
        r.nloops = 0;
        int rep0 = r.report ? tine_rt_report_count(r.report) : 0, peep0 = r.report ? tine_rt_report_peep_mark(r.report) : 0;
        collect_refs(&r, fn->body);
        for (int k = 0; k < r.ncaps; k++) free(r.caps[k].text);
        r.ncaps = 0, r.nblocks = 0, r.nswritten = 0;
        scalar_writes(&r, fn->body);
        memset(r.indent, 0, sizeof r.indent);
        block(&r, fn->body, &fb);
        tine_cemit_forget(r.em);
        if (r.failed) {
            free(fb.p);
            if (!rt_keep(&r, fn, &ks)) {
                ok = false;
                break;
            }
            if (r.report) tine_rt_report_cut(r.report, rep0, tine_rt_report_count(r.report)), tine_rt_report_peep_drop(r.report, peep0);
            what[i] = KEPT;
            continue;
        }
        what[i] = REWRITTEN;
        rewritten[i] = drop_unused_decls(&r, fb.p);
        free(fb.p);
    }
    tine_buf body = {0}, emul = {0};
    tine_buf_puts(&body, "");
    tine_buf_puts(&emul, "");
    if (ok && ks.nnames && !tine_retarget_emulation(ctx, o->from, o->to, r.em, (const char *const *)ks.names, ks.nnames, &emul)) {
        tine_cfile_error(ctx, f, ks.first, "a function kept as written calls an intrinsic that cannot be emulated: %s",
                         tine_error(ctx));
        ok = false;
    }
    unsigned pos = 0, first_fn = UINT32_MAX;
    for (int i = 0; ok && i < nf; i++) {
        const tine_cfunc *fn = tine_cfile_func(f, i);
        if (what[i] == PLAIN || what[i] == KEPT || (what[i] == HELPER && rt_kept_helper(&ks, fn->name))) {
            if (what[i] != PLAIN && first_fn == UINT32_MAX) first_fn = (unsigned)body.n + (fn->range.begin.off - pos);
            continue; /* as written */
        }
        if (first_fn == UINT32_MAX) first_fn = (unsigned)body.n + (fn->range.begin.off - pos);
        if (what[i] == HELPER) {
            tine_buf_printf(&body, "%.*s/* %s: inlined where it is called (tine retarget) */", (int)(fn->range.begin.off - pos),
                            r.text + pos, fn->name);
            pos = fn->range.end.off;
            continue;
        }
        tine_buf_printf(&body, "%.*s", (int)(fn->body->range.begin.off - pos), r.text + pos);
        tine_buf_puts(&body, rewritten[i]);
        pos = fn->body->range.end.off;
    }
    for (int i = 0; i < nf; i++) free(rewritten[i]);
    free(rewritten);
    free(what);
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
        if (emul.n) { /* the source's vector types, emulated, may be named by any declaration
                         after its intrinsics' header: right after it */
            split = p;
            while (split < body.n && body.p[split - 1] != '\n') split++;
        }
        tine_buf_printf(&res, "%.*s", (int)(split - p), body.p + p);
        if (first_fn != UINT32_MAX) { /* nothing rewritten: nothing to declare */
            tine_buf_puts(&res, "\n#include <stdint.h>\n#include <string.h>\n");
            tine_cemit_prelude(r.em, &res);
            if (emul.n) { /* what the functions kept as written call */
                tine_buf_printf(&res, "/* %s intrinsics for %s, for the code kept as written (tine retarget) */\n",
                                ffam, o->to);
                tine_buf_puts(&res, emul.p);
            }
        }
        tine_buf_puts(&res, body.p + split);
        result = decide_conditions(res.p, o->from);
        free(res.p);
    }
    free(body.p);
    free(emul.p);
    if (o->kept && result) *o->kept = ks.notes.p ? ks.notes.p : tine_strdup("");
    else free(ks.notes.p);
    rt_keep_free(&ks);
    free(r.vars);
    free(r.declused);
    free(r.refs);
    free(r.written);
    for (int k = 0; k < r.ncaps; k++) free(r.caps[k].text);
    free(r.caps);
    free(r.swritten);
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
