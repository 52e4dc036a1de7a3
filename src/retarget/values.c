/* values.c — the values of a run of intrinsic code: variables, leaves read where the
 * source reads them (loads, scalar operands), constants, each intrinsic call through its
 * semantics; and a value that leaves the run, selected for the target and written
 * (rt_sink). The statements around them are retarget.c's. */
#include "region.h"

bool rt_fail_at(rt *r, tine_cpos at, const char *fmt, const char *arg){
    if (!r->failed) tine_cfile_error(r->ctx, r->f, at, fmt, arg);
    r->failed = true;
    return false;
}

char *rt_dup_range(const rt *r, tine_crange g){
    size_t n = g.end.off - g.begin.off;
    char *s = tine_xmalloc(n + 1);
    memcpy(s, r->text + g.begin.off, n);
    s[n] = 0;
    return s;
}

vvar *rt_var_of(rt *r, const tine_cnode *decl){
    for (int i = r->nvars - 1; i >= 0; i--)
        if (r->vars[i].decl == decl) return r->vars[i].alias > 0 ? &r->vars[r->vars[i].alias - 1] : &r->vars[i];
    return NULL;
}

/* The value of an integer constant expression, or of a variable bound to a constant (an
 * unrolled loop's counter). */
bool rt_const_of(rt *r, const tine_cnode *e, int64_t *v){
    if (e->is_const) {
        *v = e->value;
        return true;
    }
    if (e->kind == TINE_CE_PAREN || e->kind == TINE_CE_CAST) return e->nkids == 1 && rt_const_of(r, e->kid[0], v);
    int64_t a, b;
    if (e->kind == TINE_CE_UNARY && !strcmp(e->name, "-") && rt_const_of(r, e->kid[0], &a)) {
        *v = (int64_t)(0 - (uint64_t)a);
        return true;
    }
    if (e->kind == TINE_CE_BINARY && e->nkids == 2 && rt_const_of(r, e->kid[0], &a) && rt_const_of(r, e->kid[1], &b)) {
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
        vvar *x = rt_var_of(r, e->decl);
        if (x && x->scalar && x->is_constant) {
            *v = x->cval;
            return true;
        }
    }
    return false;
}

bool rt_is_vec(const tine_ctype *t){
    return t && (t->kind == TINE_CT_VECTOR || t->kind == TINE_CT_TUPLE || (t->kind == TINE_CT_ARRAY && rt_is_vec(t->pointee)));
}

/* The vectors a variable of type t holds, and their type. */
int rt_vec_count(const tine_ctype *t, tine_type_t *elem){
    if (t->kind == TINE_CT_ARRAY) {
        int inner = rt_vec_count(t->pointee, elem);
        return t->count > 0 && inner > 0 ? t->count * inner : -1;
    }
    *elem = t->elem;
    return t->kind == TINE_CT_TUPLE ? t->count : 1;
}

/* The IR type of a source vector type: clang's canonical type. */
tine_type_t rt_ir_type(const tine_ctype *t){ return t->elem; }

/* A value as type t: the same bits seen as other lanes. */
tine_expr_t *rt_as_type(rt *r, tine_expr_t *v, tine_type_t t, tine_cpos at){
    if (tine_type_eq(v->type, t)) return v;
    if (v->type.bits * v->type.lanes != t.bits * t.lanes) {
        char a[32], b[32];
        char msg[128];
        snprintf(msg, sizeof msg, "a vector of %s where the intrinsic takes %s", tine_type_str(v->type, a, sizeof a),
                 tine_type_str(t, b, sizeof b));
        rt_fail_at(r, at, "%s", msg);
        return NULL;
    }
    tine_expr_t *x = tine_bitcast(r->ctx, t, v);
    if (!x) rt_fail_at(r, at, "%s", tine_error(r->ctx));
    return x;
}

/* ---- leaves ---------------------------------------------------------------------------- */

tine_expr_t *rt_leaf(rt *r, const char *cname, tine_type_t t){
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
void rt_node_text_into(rt *r, const tine_cnode *e, unsigned *pos, tine_buf *b){
    if (e->kind == TINE_CE_REF && e->decl) {
        vvar *v = rt_var_of(r, e->decl);
        if (v && v->scalar) {
            tine_buf_printf(b, "%.*s%s", (int)(e->range.begin.off - *pos), r->text + *pos, v->cname);
            *pos = e->range.end.off;
            return;
        }
    }
    for (int i = 0; i < e->nkids; i++)
        if (e->kid[i] && e->kid[i]->range.begin.off >= *pos) rt_node_text_into(r, e->kid[i], pos, b);
}

char *rt_node_text(rt *r, const tine_cnode *e){
    tine_buf b = {0};
    tine_buf_puts(&b, "");
    unsigned pos = e->range.begin.off;
    if (r->inline_depth && !e->from_macro) rt_node_text_into(r, e, &pos, &b);
    tine_buf_printf(&b, "%.*s", (int)(e->range.end.off - pos), r->text + pos);
    return b.p;
}

/* Whether an expression reads only variables the function never writes and calls
 * nothing: its value is the same wherever it is read. */
static bool unchanging(const rt *r, const tine_cnode *e) {
    static const char *const ops[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "~", "!", "==", "!=", "<", ">",
                                      "<=", ">=", "&&", "||"};
    switch (e->kind) {
    case TINE_CE_INT: return true;
    case TINE_CE_REF:
        for (int i = 0; i < r->nswritten; i++)
            if (r->swritten[i] == e->decl) return false;
        return e->decl && e->type && e->type->kind == TINE_CT_INT;
    case TINE_CE_PAREN: case TINE_CE_CAST: break;
    case TINE_CE_UNARY: case TINE_CE_BINARY: { /* no assignment, no ++, no address or memory */
        bool ok = false;
        for (size_t i = 0; i < sizeof ops / sizeof *ops && !ok; i++) ok = !strcmp(e->name, ops[i]);
        if (!ok || (e->kind == TINE_CE_UNARY && (!strcmp(e->name, "&") || !strcmp(e->name, "*")))) return false;
        break;
    }
    default: return false;
    }
    for (int i = 0; i < e->nkids; i++)
        if (e->kid[i] && !unchanging(r, e->kid[i])) return false;
    return true;
}

/* A scalar operand copied where the source reads it; the same unchanging text read again
 * where the first copy is in scope is that copy (vdup_n_u16((uint16_t)mul) and
 * vmull_high_n_u16(x, (uint16_t)mul): one value, so the halves of one product join). */
tine_expr_t *rt_capture_scalar(rt *r, const tine_cnode *a, tine_type_t t, tine_buf *out, char *cname){
    int64_t cv;
    if (rt_const_of(r, a, &cv)) return tine_const_int(r->ctx, t, cv);
    char *s = rt_node_text(r, a);
    bool share = !cname && !r->inline_depth && unchanging(r, a);
    for (int i = 0; share && i < r->ncaps; i++) {
        bool open = false;
        for (int k = 0; k < r->nblocks && k < 64 && !open; k++) open = r->blocks[k] == r->caps[i].block;
        if (open && tine_type_eq(r->caps[i].t, t) && !strcmp(r->caps[i].text, s)) {
            free(s);
            return r->caps[i].leaf;
        }
    }
    char name[32], ty[48];
    snprintf(name, sizeof name, "s%d", r->ntmp);
    tine_buf_printf(out, "%sconst %s %s = (%s)(%s);\n", r->indent, tine_cemit_type(r->em, t, ty, sizeof ty), name, ty, s);
    if (cname) snprintf(cname, 32, "%s", name);
    tine_expr_t *leaf = rt_leaf(r, name, t);
    /* not in a widened loop's copies: planned (their text dropped), or inside a loop of
       their own, out of the block's scope */
    if (share && !r->wide && r->nblocks > 0 && r->nblocks <= 64) {
        TINE_GROW(r->caps, r->ncaps + 1, r->capcaps);
        r->caps[r->ncaps++] = (struct rt_capture){tine_strdup(s), t, leaf, r->blocks[r->nblocks - 1]};
    }
    free(s);
    return leaf;
}

/* The address a load or a store intrinsic is given, as C the target compiles: a pointer to
 * the source's vector type (_mm_loadu_si128((const __m128i *)(p + i)), (__m128i *)dst + k)
 * becomes the byte address it stands for. NULL after a located error. */
char *rt_ptr_text(rt *r, const tine_cnode *p){
    const tine_ctype *t = p->type;
    bool vec_ptr = t && t->kind == TINE_CT_PTR && t->pointee && t->pointee->kind == TINE_CT_VECTOR;
    if (!vec_ptr) return rt_node_text(r, p);
    if (p->kind == TINE_CE_PAREN) return rt_ptr_text(r, p->kid[0]);
    if (p->kind == TINE_CE_CAST) {
        char *in = rt_node_text(r, p->kid[0]);
        char *res = tine_xmalloc(strlen(in) + 32);
        sprintf(res, "(const char *)(%s)", in);
        free(in);
        return res;
    }
    if (p->kind == TINE_CE_BINARY && (!strcmp(p->name, "+") || !strcmp(p->name, "-")) && p->kid[0]->type == t) {
        char *base = rt_ptr_text(r, p->kid[0]);
        if (!base) return NULL;
        char *k = rt_node_text(r, p->kid[1]);
        int bytes = t->pointee->elem.bits * t->pointee->elem.lanes / 8;
        char *res = tine_xmalloc(strlen(base) + strlen(k) + 48);
        sprintf(res, "(%s %s (%s) * %d)", base, p->name, k, bytes);
        free(base);
        free(k);
        return res;
    }
    rt_fail_at(r, p->range.begin, "%s", "a pointer to vectors that is not a cast of an address (tine rewrites (__m128i *)p, not a variable of that type)");
    return NULL;
}

/* `lanes` elements of `elem` at addr + off bytes, read in pieces of a power of two of
 * bytes (vld3q_u8's 48 bytes are three of 16, concatenated). */
tine_expr_t *rt_load_at(rt *r, const char *addr, int64_t off, tine_type_t elem, int lanes, tine_buf *out){
    int piece = lanes;
    while ((piece & (piece - 1)) || piece * elem.bits / 8 > 64) piece = (piece & (piece - 1)) ? piece & -piece : piece / 2;
    int np = lanes / piece;
    tine_type_t pt = tine_type_with_lanes(elem, piece);
    char ty[48];
    tine_cemit_type(r->em, pt, ty, sizeof ty);
    tine_expr_t *parts[64];
    for (int i = 0; i < np && i < 64; i++) {
        char name[32];
        snprintf(name, sizeof name, "ld%d", r->ntmp);
        tine_buf_printf(out, "%s%s %s;\n%smemcpy(&%s, (const char *)(%s) + %lld, sizeof %s);\n", r->indent, ty, name,
                        r->indent, name, addr, (long long)(off + i * piece * elem.bits / 8), name);
        parts[i] = rt_leaf(r, name, pt);
    }
    return np == 1 ? parts[0] : tine_concat(r->ctx, np, parts);
}

/* v written at addr + off bytes where the source writes it, in pieces of a power of two
 * of bytes (vst3q_u8's 48 bytes: three of 16). */
bool rt_store_at(rt *r, const char *addr, int64_t off, tine_expr_t *v, tine_cpos at, tine_buf *out){
    tine_type_t t = v->type;
    int piece = t.lanes;
    while ((piece & (piece - 1)) || piece * t.bits / 8 > 64) piece = (piece & (piece - 1)) ? piece & -piece : piece / 2;
    for (int k = 0; k < t.lanes / piece && !r->failed; k++) {
        tine_expr_t *part = piece == t.lanes ? v : tine_slice(r->ctx, v, k * piece, 1, piece);
        const char *c = part ? rt_sink(r, part, out, at) : NULL;
        if (!c) return false;
        char ty[48];
        tine_buf_printf(out, "%s{\n%s    %s st = %s;\n%s    memcpy((char *)(%s) + %lld, &st, sizeof st);\n%s}\n", r->indent,
                        r->indent, tine_cemit_type(r->em, part->type, ty, sizeof ty), c, r->indent, addr,
                        (long long)(off + k * piece * t.bits / 8), r->indent);
    }
    return !r->failed;
}

/* A load where the source does it (in a loop being widened: widen.c's). */
tine_expr_t *rt_capture_load(rt *r, const tine_cnode *p, tine_type_t elem, int lanes, tine_buf *out){
    if (r->wide) return r->wide_load(r, p, elem, lanes, out);
    char *s = rt_ptr_text(r, p);
    if (!s) return NULL;
    tine_expr_t *v = rt_load_at(r, s, 0, elem, lanes, out);
    free(s);
    return v;
}

/* ---- variables -------------------------------------------------------------------------- */

/* The vectors an expression names: a variable (x), a tuple's member (x.val[i]), an
 * array's element at any depth (ch[c][half]), through a helper's pointer (*p, p[i]): the
 * variable, the first of its vectors named and how many. false if it names none (not an
 * error: the caller says what it expected). */
bool rt_place(rt *r, const tine_cnode *e, vvar **v, int *slot, int *count){
    int64_t idx;
    switch (e->kind) {
    case TINE_CE_PAREN: return rt_place(r, e->kid[0], v, slot, count);
    case TINE_CE_REF:
        if (!e->decl || !(*v = rt_var_of(r, e->decl)) || (*v)->scalar) return false;
        *slot = 0;
        *count = (*v)->n;
        return true;
    case TINE_CE_MEMBER: /* a tuple's val: its vectors */
        return !e->arrow && !strcmp(e->name, "val") && rt_place(r, e->kid[0], v, slot, count);
    case TINE_CE_UNARY: /* *p: p's first vector */
        if (strcmp(e->name, "*") || !rt_place(r, e->kid[0], v, slot, count)) return false;
        *count = 1;
        return true;
    case TINE_CE_SUBSCRIPT: {
        const tine_ctype *bt = e->kid[0]->type;
        if (!rt_place(r, e->kid[0], v, slot, count) || !rt_const_of(r, e->kid[1], &idx)) return false;
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


/* A scalar operand as a value of type t: copied where the source reads it, unless it holds
 * an intrinsic (vdupq_n_u16(vgetq_lane_u16(v, 0))), which is then part of the graph: its
 * casts and arithmetic as C converts them, in the expression's own type. */
tine_expr_t *rt_scalar_value(rt *r, const tine_cnode *a, tine_type_t t, tine_buf *out){
    if (!rt_has_vector(r, a) || !a->type || a->type->kind != TINE_CT_INT) return rt_capture_scalar(r, a, t, out, NULL);
    tine_expr_t *v = NULL;
    tine_type_t at = a->type->elem;
    switch (a->kind) {
    case TINE_CE_PAREN: return rt_scalar_value(r, a->kid[0], t, out);
    case TINE_CE_CAST: v = rt_scalar_value(r, a->kid[0], at, out); break;
    case TINE_CE_CALL: {
        tine_expr_t *vals[TINE_RT_MAXVEC];
        int n = rt_eval(r, a, vals, out);
        if (n < 0) return NULL;
        if (n != 1 || vals[0]->type.lanes != 1) return rt_fail_at(r, a->range.begin, "%s", "a vector where a scalar is expected"), NULL;
        v = vals[0];
        break;
    }
    case TINE_CE_BINARY: {
        static const struct { const char *tok; tine_op_t op; } ops[] = {
            {"+", TINE_OP_ADD}, {"-", TINE_OP_SUB}, {"*", TINE_OP_MUL}, {"&", TINE_OP_AND}, {"|", TINE_OP_OR},
            {"^", TINE_OP_XOR}, {"<<", TINE_OP_SHL}, {">>", TINE_OP_SHR}};
        for (size_t k = 0; k < sizeof ops / sizeof *ops && !v; k++) {
            if (strcmp(a->name, ops[k].tok)) continue;
            tine_expr_t *x = rt_scalar_value(r, a->kid[0], at, out), *y = x ? rt_scalar_value(r, a->kid[1], at, out) : NULL;
            if (!y) return NULL;
            v = tine_binary(r->ctx, ops[k].op, x, y);
        }
        break;
    }
    default: break;
    }
    if (!v) return r->failed ? NULL : (rt_fail_at(r, a->range.begin, "%s", "a scalar expression around an intrinsic that tine cannot follow"), NULL);
    if (v->type.bits != at.bits || v->type.kind != at.kind) v = tine_cast(r->ctx, at, v);
    if (v && (at.bits != t.bits || at.kind != t.kind)) v = tine_cast(r->ctx, t, v);
    if (!v) rt_fail_at(r, a->range.begin, "%s", tine_error(r->ctx));
    return v;
}
/* A call of an intrinsic: its results (0 for a store, whose value and pointer are given). */
int rt_eval_call(rt *r, const tine_cnode *e, tine_expr_t **vals, tine_buf *out, tine_expr_t **stored,
                     const tine_cnode **ptr){
    const tine_intrin *in = tine_intrin_find(r->ctx, r->ffam, e->name);
    if (!in) {
        if (tine_error(r->ctx)) return rt_fail_at(r, e->range.begin, "%s", tine_error(r->ctx)), -1;
        return rt_fail_at(r, e->range.begin, "'%s' is not an intrinsic tine knows", e->name), -1;
    }
    if (in->nparams != e->nkids) return rt_fail_at(r, e->range.begin, "'%s': wrong number of arguments", e->name), -1;
    tine_expr_t *args[TINE_INTRIN_MAX_PARAMS * 4], *mem = NULL;
    int64_t imms[TINE_INTRIN_MAX_PARAMS];
    int na = 0, ni = 0;
    const tine_cnode *p = NULL;
    for (int k = 0; k < in->nparams; k++) {
        const tine_iparam *pp = &in->param[k];
        const tine_cnode *a = e->kid[k];
        switch (pp->kind) {
        case TINE_IP_IMM:
            if (!rt_const_of(r, a, &imms[ni])) return rt_fail_at(r, a->range.begin, "'%s' takes a constant here", e->name), -1;
            ni++;
            break;
        case TINE_IP_PTR: p = a; break;
        case TINE_IP_SCALAR:
            if (!(args[na++] = rt_scalar_value(r, a, pp->type, out))) return -1;
            break;
        case TINE_IP_VEC:
        case TINE_IP_TUPLE: {
            tine_expr_t *v[TINE_RT_MAXVEC];
            int nv = rt_eval(r, a, v, out);
            int want = pp->kind == TINE_IP_TUPLE ? pp->n : 1;
            if (nv < 0) return -1;
            if (nv != want) return rt_fail_at(r, a->range.begin, "'%s': an operand of another shape", e->name), -1;
            for (int j = 0; j < nv; j++)
                if (!(args[na++] = rt_as_type(r, v[j], pp->type, a->range.begin))) return -1;
            break;
        }
        }
    }
    if (in->mem == TINE_INTRIN_LOAD && !(mem = rt_capture_load(r, p, in->mem_elem, in->mem_lanes, out))) return -1;
    tine_expr_t *res[TINE_INTRIN_MAX_RESULTS];
    if (!tine_intrin_apply(r->ctx, in, args, imms, mem, res))
        return rt_fail_at(r, e->range.begin, "%s", tine_error(r->ctx)), -1;
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
const tine_cfunc *rt_local_func(const rt *r, const char *name){
    for (int i = 0; i < tine_cfile_nfuncs(r->f); i++)
        if (!strcmp(tine_cfile_func(r->f, i)->name, name)) return tine_cfile_func(r->f, i);
    return NULL;
}

/* Whether `name` is a helper of this file that takes or returns vectors (inlined). */
bool rt_vector_helper(const rt *r, const char *name){
    const tine_cfunc *fn = rt_local_func(r, name);
    if (!fn) return false;
    bool v = rt_is_vec(fn->ret);
    for (int k = 0; k < fn->nparams && !v; k++)
        v = rt_is_vec(fn->param[k]->type) ||
            (fn->param[k]->type && fn->param[k]->type->pointee && fn->param[k]->type->pointee->kind == TINE_CT_VECTOR);
    return v;
}

/* The value(s) of a vector expression: a variable, a tuple's member, a call, a cast. */
int rt_eval(rt *r, const tine_cnode *e, tine_expr_t **vals, tine_buf *out){
    switch (e->kind) {
    case TINE_CE_PAREN: return rt_eval(r, e->kid[0], vals, out);
    case TINE_CE_UNARY: /* *p, p a helper's pointer to the caller's vectors */
        if (!strcmp(e->name, "*")) {
            vvar *v;
            int slot, count;
            if (!rt_place(r, e, &v, &slot, &count)) break;
            for (int i = 0; i < count; i++) vals[i] = v->val[slot + i] ? v->val[slot + i] : v->leaf[slot + i];
            return count;
        }
        break;
    case TINE_CE_COND: { /* c ? x : y: a constant c picks; else a select on it, both computed */
        int64_t cv;
        if (rt_const_of(r, e->kid[0], &cv)) return rt_eval(r, cv ? e->kid[1] : e->kid[2], vals, out);
        if (!rt_is_vec(e->type)) break;
        tine_expr_t *a[TINE_RT_MAXVEC], *b[TINE_RT_MAXVEC];
        int na = rt_eval(r, e->kid[1], a, out), nb = na < 0 ? -1 : rt_eval(r, e->kid[2], b, out);
        if (nb < 0) return -1;
        if (na != nb) return rt_fail_at(r, e->range.begin, "%s", "the two sides of ?: of other shapes"), -1;
        tine_type_t it = tine_type(TINE_INT, 32, 1);
        tine_expr_t *c = rt_capture_scalar(r, e->kid[0], it, out, NULL);
        tine_expr_t *cb = tine_binary(r->ctx, TINE_OP_NE, c, tine_const_int(r->ctx, it, 0));
        for (int i = 0; i < na; i++) {
            tine_expr_t *bi = rt_as_type(r, b[i], a[i]->type, e->range.begin);
            if (!bi) return -1;
            vals[i] = tine_select(r->ctx, tine_broadcast(r->ctx, cb, a[i]->type.lanes), a[i], bi);
            if (!vals[i]) return rt_fail_at(r, e->range.begin, "%s", tine_error(r->ctx)), -1;
        }
        return na;
    }
    case TINE_CE_INIT_LIST: { /* an array's or a tuple's initializer: its vectors in order */
        int n = 0;
        for (int i = 0; i < e->nkids; i++) {
            const tine_cnode *k = e->kid[i];
            if (k->kind == TINE_CE_INIT_LIST && k->nkids == 1 && !rt_is_vec(k->type)) k = k->kid[0];
            if (k->kind == TINE_CE_INIT_LIST && n == 0 && e->nkids == 1) return rt_eval(r, k, vals, out); /* { {a, b} } */
            tine_expr_t *t[TINE_RT_MAXVEC];
            int m = rt_eval(r, k, t, out);
            if (m < 0) return -1;
            if (n + m > TINE_RT_MAXVEC) return rt_fail_at(r, e->range.begin, "%s", "an initializer of more than 32 vectors"), -1;
            for (int j = 0; j < m; j++) vals[n++] = t[j];
        }
        return n;
    }
    case TINE_CE_REF:
    case TINE_CE_SUBSCRIPT:
    case TINE_CE_MEMBER: {
        vvar *v;
        int slot, count;
        if (!rt_place(r, e, &v, &slot, &count)) {
            if (e->kind == TINE_CE_REF)
                return rt_fail_at(r, e->range.begin, "'%s' is not a vector variable of this function", e->name), -1;
            return rt_fail_at(r, e->range.begin, "%s", "an element of vectors whose index is not a constant, or out of range"), -1;
        }
        for (int i = 0; i < count; i++) {
            vals[i] = v->val[slot + i] ? v->val[slot + i] : v->leaf[slot + i];
            if (vals[i] == v->leaf[slot + i] && !r->inline_depth) r->declused[v->mark] = true;
        }
        return count;
    }
    case TINE_CE_CAST:
        if (rt_is_vec(e->type) && e->type->kind == TINE_CT_VECTOR) {
            tine_expr_t *v[TINE_RT_MAXVEC];
            int n = rt_eval(r, e->kid[0], v, out);
            if (n != 1) return n < 0 ? -1 : (rt_fail_at(r, e->range.begin, "%s", "a cast of a tuple"), -1);
            return (vals[0] = rt_as_type(r, v[0], rt_ir_type(e->type), e->range.begin)) ? 1 : -1;
        }
        break;
    case TINE_CE_CALL: {
        tine_expr_t *stored = NULL;
        const tine_cnode *p = NULL;
        const tine_cfunc *fn = e->name && !tine_intrin_find(r->ctx, r->ffam, e->name) ? rt_local_func(r, e->name) : NULL;
        if (fn) return r->inline_call(r, fn, e, vals, out);
        int n = rt_eval_call(r, e, vals, out, &stored, &p);
        if (n == 0 && stored) return rt_fail_at(r, e->range.begin, "%s", "a store used as a value"), -1;
        return n;
    }
    default: break;
    }
    return rt_fail_at(r, e->range.begin, "%s", "a vector expression tine cannot retarget (an intrinsic call, a variable or a cast is expected)"), -1;
}

/* ---- sinks: what leaves the run --------------------------------------------------------- */

/* e lowered for the target, optimized and written; its C name. Each sink is its own
 * target-level program: a run's values are written where the statements need them (a
 * store where the source stores, between the loads around it), so the run is not one
 * program to schedule; what two sinks share is still computed once, the values being
 * hash-consed and the emitter reusing what it wrote. */
const char *rt_sink(rt *r, tine_expr_t *e, tine_buf *out, tine_cpos at){
    tine_expr_t *raw = e;
    e = tine_fold_constants(r->ctx, e);
    if (e) e = tine_retarget_join(r->ctx, e);
    if (e) e = tine_fold_constants(r->ctx, e); /* the joined constants */
    if (e && r->wide && e->op == TINE_OP_CONCAT) r->wide->unjoined = true;
    tine_expr_t *s = e && e->type.lanes > 1 ? tine_select_expr(r->ctx, e, TINE_SELECT_TINE, r->to) : e;
    if (s && s != e) s = tine_fold_constants(r->ctx, s); /* constants the lowering built */
    if (s && s->type.lanes > 1) s = tine_retarget_tables(r->ctx, s, r->to);
    if (s && s->type.lanes > 1) { /* through the peephole (the selection leaves a negation beside the
                                     add or FMA that can take it) */
        tine_peep_stats st;
        if (!tine_retarget_optimize(r->ctx, r->to, 1, &s, &st)) s = NULL;
        else if (r->report) tine_rt_report_peephole(r->report, &st);
    }
    if (getenv("TINE_RETARGET_TRACE") && e && s) { /* what each value was, and what it became */
        char *a = tine_print(r->ctx, e), *b = tine_print(r->ctx, s);
        fprintf(stderr, "sink %d:%d\n  %s\n  => %s\n", at.line, at.col, a, b);
        free(a);
        a = tine_print(r->ctx, raw);
        fprintf(stderr, "  raw: %s\n", a);
        free(a);
        free(b);
    }
    if (!s) return rt_fail_at(r, at, "%s", tine_error(r->ctx)), NULL;
    if (r->report) tine_rt_report_sink(r->report, r->ctx, r->to, raw, e, s);
    tine_cemit_set_indent(r->em, r->indent);
    const char *v = tine_cemit_value(r->em, s, out);
    if (!v) rt_fail_at(r, at, "%s", tine_error(r->ctx));
    return v;
}

/* Whether a subtree calls an intrinsic or has a vector type. */
bool rt_has_vector(rt *r, const tine_cnode *e){
    if (!e) return false;
    if (rt_is_vec(e->type)) return true;
    if (e->kind == TINE_CE_CALL && e->name && (tine_intrin_find(r->ctx, r->ffam, e->name) || rt_vector_helper(r, e->name)))
        return true;
    for (int i = 0; i < e->nkids; i++)
        if (rt_has_vector(r, e->kid[i])) return true;
    return false;
}

