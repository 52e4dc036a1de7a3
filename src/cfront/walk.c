/* walk.c — a translation unit's functions, statements and expressions as cfront.h's tree.
 *
 * Top down, one cursor at a time: its children are collected (walk.h: callbacks only
 * collect), built, then the node's range is set from its extent and, where libclang moved
 * the extent's end to a macro call's (macro.c), from its children. Implicit conversions
 * (UnexposedExpr with one child of the same extent) are peeled into `conv`. A header's
 * function-like macro's expansion becomes a CALL before its body is looked at: its kids
 * are the arguments' expressions, never the body's. from_macro is set at the end, when
 * every call that became a CALL is known.
 */
#include <limits.h>

#include "walk.h"

/* Nesting deeper than this (statements and expressions together) is refused with a located
 * error: the walk recurses, and a generated expression a+a+...+a of a hundred thousand
 * terms must not overflow the stack. Kernels nest a few dozen deep. */
enum { MAX_DEPTH = 1000 };

static tine_cnode *stmt(tine_cw *w, CXCursor c, unsigned limit);
static tine_cnode *expr(tine_cw *w, CXCursor c);
static void other_kids(tine_cw *w, tine_cnode *n, const tine_cw_cursors *v, unsigned limit);

static tine_cnode *new_node(tine_cw *w, tine_cnode_kind kind) {
    tine_cnode *n = tine_arena_alloc(w->arena, sizeof *n);
    n->kind = kind;
    TINE_PUSH(w->nodes, w->nnodes, w->capnodes, n);
    return n;
}

static void set_kids(tine_cw *w, tine_cnode *n, tine_cnode *const *k, int nk) {
    n->nkids = nk;
    if (!nk) return;
    n->kid = tine_arena_alloc(w->arena, (size_t)nk * sizeof *k);
    memcpy(n->kid, k, (size_t)nk * sizeof *k);
}

static const char *spelling(tine_cw *w, CXCursor c) {
    CXString s = clang_getCursorSpelling(c);
    const char *p = clang_getCString(s);
    const char *r = p && *p ? tine_arena_strdup(w->arena, p, strlen(p)) : NULL;
    clang_disposeString(s);
    return r;
}

/* A located error at cursor c (at the file's start when c has no place in it). */
static void fail(tine_cw *w, CXCursor c, const char *msg) {
    if (w->failed) return;
    unsigned b = 0, e;
    tine_cw_raw(w, c, &b, &e);
    tine_cpos p = tine_cw_pos(w->f, b);
    tine_diag(w->ctx, &w->f->src, p.line, p.col, "%s", msg);
    tine_error_set_kind(w->ctx, TINE_ERROR_LIMIT);
    w->failed = true;
}

static bool enter(tine_cw *w, CXCursor c) {
    if (++w->depth <= MAX_DEPTH && !w->failed) return true;
    fail(w, c, "statements and expressions nested more than 1000 deep (the C front end's limit)");
    return false;
}

/* ---- declarations: DECL nodes by cursor, for REF's decl ---- */

static void decl_put(tine_cw *w, CXCursor c, tine_cnode *n) {
    if (2 * (w->ndecls + 1) > w->capdecls) {
        unsigned cap = w->capdecls ? 2 * w->capdecls : 64;
        tine_cw_dslot *t = tine_xcalloc(cap, sizeof *t);
        for (unsigned i = 0; i < w->capdecls; i++) {
            if (!w->decls[i].node) continue;
            unsigned j = clang_hashCursor(w->decls[i].cursor) & (cap - 1);
            while (t[j].node) j = (j + 1) & (cap - 1);
            t[j] = w->decls[i];
        }
        free(w->decls);
        w->decls = t;
        w->capdecls = cap;
    }
    unsigned j = clang_hashCursor(c) & (w->capdecls - 1);
    while (w->decls[j].node) j = (j + 1) & (w->capdecls - 1);
    w->decls[j] = (tine_cw_dslot){c, n};
    w->ndecls++;
}

static const tine_cnode *decl_get(tine_cw *w, CXCursor c) {
    if (!w->capdecls || clang_Cursor_isNull(c)) return NULL;
    for (unsigned j = clang_hashCursor(c) & (w->capdecls - 1); w->decls[j].node; j = (j + 1) & (w->capdecls - 1))
        if (clang_equalCursors(w->decls[j].cursor, c)) return w->decls[j].node;
    return NULL;
}

/* ---- ranges ---- */

/* A statement's or declaration's range: its extent, widened over macro calls. */
static void plain_range(tine_cw *w, tine_cnode *n, CXCursor c) {
    unsigned b, e;
    if (!tine_cw_raw(w, c, &b, &e)) return;
    tine_cw_fix(w, &b, &e);
    n->range = tine_cw_range(w, b, e);
}

/* The statement's range over its ';' when one follows before `limit`: the end of the
 * statement that holds it, or of the one that holds that when they end together (the
 * else branch of an if). A statement of a macro's body (`(x)++;` of #define STMT(x) do {
 * (x)++; } while (0)) has the call's range, and its compound the same: the ';' after the
 * call is past the compound's end, and not the inner statement's. */
static void semicolon(tine_cw *w, tine_cnode *n, unsigned limit) {
    unsigned e = n->range.end.off;
    if (tine_cw_after(w, &e, ";") && e <= limit) n->range.end = tine_cw_pos(w->f, e);
}

/* A node's own text: not empty, one macro argument's at most, its kids in order inside
 * it and none the whole of it (an operator whose own token came from a macro's body, as
 * the + of a + b in #define ADD(a, b) a + b, spans kids that are arguments). A node that
 * starts with a call (TWICE(acc) in STORE(dst, TWICE(acc))) is that call's body: its kids
 * may have its range. */
static bool own_text(tine_cw *w, const tine_cnode *n, unsigned b, unsigned e) {
    if (!tine_cw_one_arg(w, b, e)) return false;
    bool call = tine_cw_macro_at(w, b) >= 0;
    unsigned at = b;
    for (int i = -1; i < n->nkids; i++) {
        const tine_cnode *k = i < 0 ? n->callee : n->kid[i];
        if (!k) continue;
        unsigned kb = k->range.begin.off, ke = k->range.end.off;
        if (kb < b || ke > e) return false;
        if (call) continue;
        if (kb < at || (kb == b && ke == e)) return false;
        at = ke;
    }
    return true;
}

/* An expression's range. Where libclang ended the extent at the end of a call whose
 * arguments hold the node's start (tine_cw_cut: its last token came from a macro, N in
 * vshrq_n_u8(v, N)), the end is found from the children when they all lie in that call's
 * arguments: the last child's end and the node's closing token; else the node is part of
 * the call's body and takes the whole call. */
static void expr_range(tine_cw *w, tine_cnode *n, bool located, unsigned b, unsigned e) {
    if (!located) return;
    int x = tine_cw_cut(w, b, e);
    if (x >= 0) {
        unsigned mb = w->macros[x].begin, me = w->macros[x].end, end = b;
        bool inside = true, ok = true;
        int nk = 0;
        for (int i = -1; i < n->nkids; i++) {
            const tine_cnode *k = i < 0 ? n->callee : n->kid[i];
            if (!k) continue;
            nk++;
            if (k->range.begin.off <= mb || k->range.end.off >= me) inside = false;
            else if (k->range.end.off > end) end = k->range.end.off;
        }
        if (!nk) end = tine_cw_token_end(w, b);
        switch (n->kind) {
        case TINE_CE_CALL: ok = (nk || tine_cw_after(w, &end, "(")) && tine_cw_after(w, &end, ")"); break;
        case TINE_CE_PAREN: ok = tine_cw_after(w, &end, ")"); break;
        case TINE_CE_SUBSCRIPT: ok = tine_cw_after(w, &end, "]"); break;
        case TINE_CE_MEMBER:
            ok = (tine_cw_after(w, &end, ".") || tine_cw_after(w, &end, "->")) && n->name &&
                 tine_cw_after(w, &end, n->name);
            break;
        case TINE_CE_UNARY:
            if (n->postfix) ok = tine_cw_after(w, &end, n->name);
            break;
        case TINE_CE_INIT_LIST:
            tine_cw_after(w, &end, ",");
            ok = tine_cw_after(w, &end, "}");
            break;
        case TINE_CE_OTHER: ok = !nk || n->name; break; /* sizeof x; a statement expression: the call */
        default: break;
        }
        if (inside && ok && end < me) e = end;
        else b = mb;
    }
    tine_cw_fix(w, &b, &e);
    /* in a call's arguments: the node's text must be its own, else it is the call's */
    int y = tine_cw_in_args(w, b);
    if (y >= 0 && !own_text(w, n, b, e)) {
        b = w->macros[y].begin;
        if (e < w->macros[y].end) e = w->macros[y].end;
        tine_cw_fix(w, &b, &e);
    }
    n->range = tine_cw_range(w, b, e);
}

/* ---- expressions ---- */

/* The expression children of c (statements too when `stmts`). */
static tine_cw_cursors kids_of(CXCursor c, bool stmts) {
    tine_cw_cursors v = tine_cw_children(c);
    int n = 0;
    for (int i = 0; i < v.n; i++) {
        enum CXCursorKind k = clang_getCursorKind(v.c[i]);
        if (clang_isExpression(k) || (stmts && clang_isStatement(k))) v.c[n++] = v.c[i];
    }
    v.n = n;
    return v;
}

/* The expression children of c as nodes. */
static void build_kids(tine_cw *w, tine_cnode *n, CXCursor c) {
    tine_cw_cursors v = kids_of(c, false);
    tine_cnode **k = tine_xmalloc(((size_t)v.n + 1) * sizeof *k);
    for (int i = 0; i < v.n; i++) k[i] = expr(w, v.c[i]);
    set_kids(w, n, k, v.n);
    free(k);
    free(v.c);
}

static const char *binop(tine_cw *w, enum CXBinaryOperatorKind k) {
    if ((unsigned)k >= 64) return NULL;
    if (!w->binop[k]) {
        CXString s = clang_getBinaryOperatorKindSpelling(k);
        const char *p = clang_getCString(s);
        w->binop[k] = tine_arena_strdup(w->arena, p ? p : "", p ? strlen(p) : 0);
        clang_disposeString(s);
    }
    return w->binop[k];
}

static const char *unop(tine_cw *w, enum CXUnaryOperatorKind k) {
    if ((unsigned)k >= 32) return NULL;
    if (!w->unop[k]) {
        CXString s = clang_getUnaryOperatorKindSpelling(k);
        const char *p = clang_getCString(s);
        w->unop[k] = tine_arena_strdup(w->arena, p ? p : "", p ? strlen(p) : 0);
        clang_disposeString(s);
    }
    return w->unop[k];
}

/* is_const and value, where clang folds the expression to an integer. Only where every
 * child is constant, so that evaluating stays linear in the tree. */
static void constant(tine_cnode *n, CXCursor c) {
    if (!n->type || n->type->kind != TINE_CT_INT) return;
    switch (n->kind) {
    case TINE_CE_INT:
    case TINE_CE_REF:
    case TINE_CE_OTHER: break;
    case TINE_CE_BINARY:
    case TINE_CE_UNARY:
    case TINE_CE_CAST:
    case TINE_CE_PAREN:
    case TINE_CE_COND:
    case TINE_CE_CALL:
        if (n->kind == TINE_CE_CALL && !n->macro_call) return;
        for (int i = 0; i < n->nkids; i++)
            if (!n->kid[i] || !n->kid[i]->is_const) return;
        break;
    default: return;
    }
    CXEvalResult r = clang_Cursor_Evaluate(c);
    if (!r) return;
    if (clang_EvalResult_getKind(r) == CXEval_Int) {
        n->is_const = true;
        n->value = clang_EvalResult_isUnsignedInt(r) ? (int64_t)clang_EvalResult_getAsUnsigned(r)
                                                     : (int64_t)clang_EvalResult_getAsLongLong(r);
    }
    clang_EvalResult_dispose(r);
}

/* c without the implicit conversions around it: an UnexposedExpr whose one child is an
 * expression of the same extent. */
static CXCursor peel(CXCursor c) {
    for (int i = 0; i < 64 && clang_getCursorKind(c) == CXCursor_UnexposedExpr; i++) {
        tine_cw_cursors v = tine_cw_children(c);
        bool one = v.n == 1 && clang_isExpression(clang_getCursorKind(v.c[0])) &&
                   clang_equalRanges(clang_getCursorExtent(v.c[0]), clang_getCursorExtent(c));
        CXCursor k = one ? v.c[0] : c;
        free(v.c);
        if (!one) break;
        c = k;
    }
    return c;
}

/* A CALL of a header's macro (tine_cw_macro_call). */
static tine_cnode *macro_call(tine_cw *w, tine_cnode *n, tine_cw_call *call, unsigned b, unsigned e) {
    n->kind = TINE_CE_CALL;
    n->name = call->name;
    n->macro_call = true;
    tine_cnode **k = tine_xmalloc(((size_t)call->nargs + 1) * sizeof *k);
    for (int i = 0; i < call->nargs; i++) {
        if (!clang_Cursor_isNull(call->arg[i])) {
            k[i] = expr(w, call->arg[i]);
            continue;
        }
        /* an argument that is no expression of the expansion (a type, a stringized name) */
        k[i] = new_node(w, TINE_CE_OTHER);
        if (call->span) k[i]->range = tine_cw_range(w, call->span[i][0], call->span[i][1]);
    }
    set_kids(w, n, k, call->nargs);
    free(k);
    if (call->direct) n->range = tine_cw_range(w, b, w->macros[tine_cw_macro_at(w, b)].end);
    else expr_range(w, n, true, b, e);
    return n;
}

static tine_cnode *expr(tine_cw *w, CXCursor outer) {
    tine_cnode *n = new_node(w, TINE_CE_OTHER);
    if (!enter(w, outer)) {
        w->depth--;
        return n;
    }
    CXCursor c = peel(outer);
    n->type = tine_cw_type(w, clang_getCursorType(c));
    n->conv = tine_cw_type(w, clang_getCursorType(outer));
    unsigned b = 0, e = 0;
    bool located = tine_cw_raw(w, c, &b, &e);
    tine_cw_call call;
    if (located && tine_cw_macro_call(w, c, b, &call)) {
        macro_call(w, n, &call, b, e);
        tine_cw_call_free(&call);
        constant(n, c);
        w->depth--;
        return n;
    }
    enum CXCursorKind kind = clang_getCursorKind(c);
    switch (kind) {
    case CXCursor_CallExpr: {
        n->kind = TINE_CE_CALL;
        CXCursor ref = clang_getCursorReferenced(c);
        if (clang_getCursorKind(ref) == CXCursor_FunctionDecl) n->name = spelling(w, ref);
        else {
            tine_cw_cursors v = kids_of(c, false);
            if (v.n) n->callee = expr(w, v.c[0]);
            free(v.c);
        }
        int na = clang_Cursor_getNumArguments(c);
        tine_cnode **k = tine_xmalloc(((size_t)(na > 0 ? na : 0) + 1) * sizeof *k);
        for (int i = 0; i < na; i++) k[i] = expr(w, clang_Cursor_getArgument(c, (unsigned)i));
        set_kids(w, n, k, na > 0 ? na : 0);
        free(k);
        break;
    }
    case CXCursor_DeclRefExpr:
        n->kind = TINE_CE_REF;
        n->name = spelling(w, c);
        n->decl = decl_get(w, clang_getCursorReferenced(c));
        break;
    case CXCursor_IntegerLiteral:
    case CXCursor_CharacterLiteral: n->kind = TINE_CE_INT; break;
    case CXCursor_BinaryOperator:
    case CXCursor_CompoundAssignOperator:
        n->kind = TINE_CE_BINARY;
        n->name = binop(w, clang_getCursorBinaryOperatorKind(c));
        build_kids(w, n, c);
        break;
    case CXCursor_UnaryOperator: {
        enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
        n->kind = TINE_CE_UNARY;
        n->name = unop(w, op);
        n->postfix = op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec;
        build_kids(w, n, c);
        break;
    }
    case CXCursor_CStyleCastExpr: n->kind = TINE_CE_CAST; build_kids(w, n, c); break;
    case CXCursor_ArraySubscriptExpr: n->kind = TINE_CE_SUBSCRIPT; build_kids(w, n, c); break;
    case CXCursor_MemberRefExpr: {
        n->kind = TINE_CE_MEMBER;
        n->name = spelling(w, c);
        build_kids(w, n, c);
        /* a.b needs a struct, p->b a pointer: the base's type tells them apart */
        n->arrow = n->nkids && n->kid[0]->type && n->kid[0]->type->kind == TINE_CT_PTR;
        break;
    }
    case CXCursor_ConditionalOperator: n->kind = TINE_CE_COND; build_kids(w, n, c); break;
    case CXCursor_ParenExpr: n->kind = TINE_CE_PAREN; build_kids(w, n, c); break;
    case CXCursor_InitListExpr: n->kind = TINE_CE_INIT_LIST; build_kids(w, n, c); break;
    case CXCursor_UnaryExpr: {
        static const char *const words[] = {"sizeof", "_Alignof", "alignof", "__alignof__", "__alignof"};
        for (size_t i = 0; located && i < sizeof words / sizeof *words && !n->name; i++)
            if (tine_cw_word_at(w, b, words[i])) n->name = words[i];
        build_kids(w, n, c);
        break;
    }
    default: { /* a statement expression's compound, a compound literal's list ... */
        tine_cw_cursors v = kids_of(c, true);
        tine_cnode tmp = {.range = tine_cw_range(w, b, e)};
        other_kids(w, &tmp, &v, e);
        n->kid = tmp.kid, n->nkids = tmp.nkids;
        free(v.c);
        break;
    }
    }
    expr_range(w, n, located, b, e);
    constant(n, c);
    w->depth--;
    return n;
}

/* ---- statements ---- */

/* The limit of a child statement's ';' (semicolon): a child that ends where its parent
 * ends takes the parent's limit (the else branch of an if), another the parent's end. */
static unsigned child_limit(tine_cw *w, CXCursor ch, unsigned own_end, unsigned limit) {
    unsigned b, e;
    if (!tine_cw_raw(w, ch, &b, &e)) return own_end;
    tine_cw_fix(w, &b, &e);
    return e >= own_end ? limit : own_end;
}

static tine_cnode *var(tine_cw *w, CXCursor v, tine_crange range) {
    tine_cnode *n = new_node(w, TINE_CS_DECL);
    n->range = range;
    n->name = spelling(w, v);
    n->type = tine_cw_type(w, clang_getCursorType(v));
    n->is_static = clang_Cursor_getStorageClass(v) == CX_SC_Static;
    decl_put(w, v, n); /* before its init, which may name it (int x = sizeof x;) */
    CXCursor init = clang_Cursor_getVarDeclInitializer(v);
    if (!clang_Cursor_isNull(init)) {
        tine_cnode *k = expr(w, init);
        set_kids(w, n, &k, 1);
    }
    return n;
}

/* A declaration statement's DECLs, one per variable, pushed to (*list, *nl, *cap); an
 * OTHER node when it declares no variable (a typedef, a struct). */
static void decl_stmt(tine_cw *w, CXCursor c, tine_cnode ***list, int *nl, int *cap) {
    tine_cnode tmp = {0};
    plain_range(w, &tmp, c);
    tine_cw_cursors v = tine_cw_children(c);
    int before = *nl;
    for (int i = 0; i < v.n; i++)
        if (clang_getCursorKind(v.c[i]) == CXCursor_VarDecl) {
            tine_cnode *d = var(w, v.c[i], tmp.range);
            TINE_PUSH(*list, *nl, *cap, d);
        }
    free(v.c);
    if (*nl == before) {
        tine_cnode *o = new_node(w, TINE_CS_OTHER);
        o->range = tmp.range;
        TINE_PUSH(*list, *nl, *cap, o);
    }
}

/* A compound statement's statements: a declaration of several variables is one DECL each. */
static void compound(tine_cw *w, tine_cnode *n, CXCursor c) {
    tine_cw_cursors v = tine_cw_children(c);
    tine_cnode **k = NULL;
    int nk = 0, cap = 0;
    for (int i = 0; i < v.n; i++) {
        if (clang_getCursorKind(v.c[i]) == CXCursor_DeclStmt) decl_stmt(w, v.c[i], &k, &nk, &cap);
        else {
            tine_cnode *s = stmt(w, v.c[i], n->range.end.off);
            TINE_PUSH(k, nk, cap, s);
        }
    }
    set_kids(w, n, k, nk);
    free(k);
    free(v.c);
}

/* A for loop's [init, cond, inc, body]: libclang leaves out the parts not written, so each
 * child is placed by where it starts against the header's ';' ';' ')'. */
static bool for_loop(tine_cw *w, tine_cnode *n, CXCursor c, const tine_cw_cursors *v, unsigned limit) {
    tine_cnode *k[4] = {0};
    int slot[4];
    unsigned cut[3], b, e, bb, be, own = n->range.end.off;
    if (!v->n || v->n > 4 || !tine_cw_raw(w, c, &b, &e) || !tine_cw_raw(w, v->c[v->n - 1], &bb, &be)) return false;
    bool parts = tine_cw_for_parts(w, b, bb, cut);
    if (!parts && v->n != 4) return false;
    for (int i = 0; i < v->n - 1; i++) {
        unsigned kb, ke;
        slot[i] = i;
        if (parts) {
            if (!tine_cw_raw(w, v->c[i], &kb, &ke)) return false;
            slot[i] = kb < cut[0] ? 0 : kb < cut[1] ? 1 : kb < cut[2] ? 2 : -1;
            if (slot[i] < 0 || (i && slot[i] <= slot[i - 1])) return false;
        }
    }
    for (int i = 0; i < v->n - 1; i++) {
        CXCursor ch = v->c[i];
        if (slot[i] == 0 && clang_getCursorKind(ch) == CXCursor_DeclStmt) {
            tine_cnode **list = NULL;
            int nl = 0, cap = 0;
            decl_stmt(w, ch, &list, &nl, &cap);
            if (nl == 1) k[0] = list[0];
            else {
                k[0] = new_node(w, TINE_CS_COMPOUND);
                k[0]->range = list[0]->range;
                set_kids(w, k[0], list, nl);
            }
            free(list);
        } else k[slot[i]] = slot[i] == 0 ? stmt(w, ch, own) : expr(w, ch);
    }
    CXCursor body = v->c[v->n - 1];
    k[3] = stmt(w, body, child_limit(w, body, own, limit));
    set_kids(w, n, k, 4);
    return true;
}

/* Children: statements (each within its limit) and expressions, in libclang's order. */
static void other_kids(tine_cw *w, tine_cnode *n, const tine_cw_cursors *v, unsigned limit) {
    tine_cnode **k = tine_xmalloc(((size_t)v->n + 1) * sizeof *k);
    int nk = 0;
    for (int i = 0; i < v->n; i++) {
        enum CXCursorKind kind = clang_getCursorKind(v->c[i]);
        if (clang_isExpression(kind)) k[nk++] = expr(w, v->c[i]);
        else if (clang_isStatement(kind))
            k[nk++] = stmt(w, v->c[i], child_limit(w, v->c[i], n->range.end.off, limit));
    }
    set_kids(w, n, k, nk);
    free(k);
}

static tine_cnode *stmt(tine_cw *w, CXCursor c, unsigned limit) {
    enum CXCursorKind kind = clang_getCursorKind(c);
    if (clang_isExpression(kind)) {
        tine_cnode *n = new_node(w, TINE_CS_EXPR), *k = expr(w, c);
        set_kids(w, n, &k, 1);
        n->range = k->range;
        semicolon(w, n, limit);
        return n;
    }
    tine_cnode *n = new_node(w, TINE_CS_OTHER);
    if (!enter(w, c)) {
        w->depth--;
        return n;
    }
    plain_range(w, n, c);
    unsigned own = n->range.end.off;
#define SUB(i) stmt(w, v.c[i], child_limit(w, v.c[i], own, limit))
    tine_cw_cursors v = tine_cw_children(c);
    switch (kind) {
    case CXCursor_CompoundStmt: n->kind = TINE_CS_COMPOUND; compound(w, n, c); break;
    case CXCursor_DeclStmt: { /* a for loop's init, a branch's declaration */
        tine_cnode **list = NULL;
        int nl = 0, cap = 0;
        decl_stmt(w, c, &list, &nl, &cap);
        if (nl == 1) n = list[0];
        else {
            n->kind = TINE_CS_COMPOUND;
            set_kids(w, n, list, nl);
        }
        free(list);
        break;
    }
    case CXCursor_IfStmt:
        if (v.n >= 2) {
            tine_cnode *k[3] = {expr(w, v.c[0]), SUB(1), v.n > 2 ? SUB(2) : NULL};
            n->kind = TINE_CS_IF;
            set_kids(w, n, k, 3);
        }
        break;
    case CXCursor_ForStmt:
        if (for_loop(w, n, c, &v, limit)) n->kind = TINE_CS_FOR;
        else other_kids(w, n, &v, limit);
        break;
    case CXCursor_WhileStmt:
        if (v.n == 2) {
            tine_cnode *k[2] = {expr(w, v.c[0]), SUB(1)};
            n->kind = TINE_CS_WHILE;
            set_kids(w, n, k, 2);
        }
        break;
    case CXCursor_DoStmt:
        if (v.n == 2) { /* the body's ';' comes before `while` */
            tine_cnode *k[2] = {stmt(w, v.c[0], own), expr(w, v.c[1])};
            n->kind = TINE_CS_DO;
            set_kids(w, n, k, 2);
        }
        semicolon(w, n, limit);
        break;
    case CXCursor_ReturnStmt: {
        tine_cnode *k = v.n ? expr(w, v.c[0]) : NULL;
        n->kind = TINE_CS_RETURN;
        set_kids(w, n, &k, 1);
        semicolon(w, n, limit);
        break;
    }
    case CXCursor_BreakStmt: n->kind = TINE_CS_BREAK; semicolon(w, n, limit); break;
    case CXCursor_ContinueStmt: n->kind = TINE_CS_CONTINUE; semicolon(w, n, limit); break;
    case CXCursor_NullStmt: n->kind = TINE_CS_NULL; break;
    case CXCursor_GCCAsmStmt:
    case CXCursor_MSAsmStmt:
        n->kind = TINE_CS_ASM;
        other_kids(w, n, &v, limit);
        semicolon(w, n, limit);
        break;
    case CXCursor_SwitchStmt:
        if (v.n == 2) {
            tine_cnode *k[2] = {expr(w, v.c[0]), SUB(1)};
            set_kids(w, n, k, 2);
        }
        break;
    case CXCursor_CaseStmt: { /* [value, stmt]; a GNU range case 1 ... 3: [1, 3, stmt] */
        tine_cnode **k = tine_xmalloc(((size_t)v.n + 1) * sizeof *k);
        for (int i = 0; i < v.n; i++) k[i] = i < v.n - 1 ? expr(w, v.c[i]) : SUB(i);
        set_kids(w, n, k, v.n);
        free(k);
        break;
    }
    case CXCursor_LabelStmt: n->name = spelling(w, c); /* fall through */
    case CXCursor_DefaultStmt:
        if (v.n == 1) {
            tine_cnode *k = SUB(0);
            set_kids(w, n, &k, 1);
        }
        break;
    case CXCursor_GotoStmt: semicolon(w, n, limit); break;
    default: other_kids(w, n, &v, limit); break;
    }
#undef SUB
    free(v.c);
    /* a statement holds its last child's ';' (if (a) x = 1; else y = 2;) */
    if (n->kind != TINE_CS_COMPOUND && n->kind != TINE_CS_DECL)
        for (int i = 0; i < n->nkids; i++)
            if (n->kid[i] && n->kid[i]->kind < TINE_CE_CALL && n->kid[i]->range.end.off > n->range.end.off)
                n->range.end = n->kid[i]->range.end;
    w->depth--;
    return n;
}

/* ---- functions and includes ---- */

static tine_cfunc *function(tine_cw *w, CXCursor c) {
    tine_cfunc *fn = tine_arena_alloc(w->arena, sizeof *fn);
    fn->name = spelling(w, c);
    unsigned b, e;
    if (tine_cw_raw(w, c, &b, &e)) {
        tine_cw_fix(w, &b, &e);
        fn->range = tine_cw_range(w, b, e);
    }
    fn->ret = tine_cw_type(w, clang_getCursorResultType(c));
    fn->is_static = clang_Cursor_getStorageClass(c) == CX_SC_Static;
    fn->is_inline = clang_Cursor_isFunctionInlined(c);
    int np = clang_Cursor_getNumArguments(c);
    fn->nparams = np > 0 ? np : 0;
    fn->param = tine_arena_alloc(w->arena, ((size_t)fn->nparams + 1) * sizeof *fn->param);
    for (int i = 0; i < fn->nparams; i++) {
        CXCursor p = clang_Cursor_getArgument(c, (unsigned)i);
        tine_cnode *d = new_node(w, TINE_CS_DECL);
        plain_range(w, d, p);
        d->name = spelling(w, p);
        d->type = tine_cw_type(w, clang_getCursorType(p));
        d->is_param = true;
        decl_put(w, p, d);
        fn->param[i] = d;
    }
    tine_cw_cursors v = tine_cw_children(c);
    for (int i = v.n - 1; i >= 0; i--)
        if (clang_getCursorKind(v.c[i]) == CXCursor_CompoundStmt) {
            fn->body = stmt(w, v.c[i], UINT_MAX);
            fn->body_range = fn->body->range;
            break;
        }
    free(v.c);
    return fn;
}

static void include(tine_cw *w, CXCursor c, tine_cinclude *inc) {
    inc->name = spelling(w, c);
    if (!inc->name) inc->name = "";
    unsigned b, e;
    if (!tine_cw_raw(w, c, &b, &e)) return;
    inc->range = tine_cw_range(w, b, e);
    for (unsigned p = b; p < e; p++)
        if (w->f->text[p] == '<' || w->f->text[p] == '"') {
            inc->angled = w->f->text[p] == '<';
            break;
        }
}

/* The translation unit's top-level cursors of the main file that the walk needs. */
typedef struct {
    tine_cw_cursors funcs, incs, macros;
} top_st;
static enum CXChildVisitResult top_cb(CXCursor c, CXCursor parent, CXClientData data) {
    top_st *s = data;
    enum CXCursorKind k = clang_getCursorKind(c);
    tine_cw_cursors *into = k == CXCursor_FunctionDecl       ? &s->funcs
                            : k == CXCursor_InclusionDirective ? &s->incs
                            : k == CXCursor_MacroExpansion     ? &s->macros
                                                               : NULL;
    if (!into || !clang_Location_isFromMainFile(clang_getCursorLocation(c))) return CXChildVisit_Continue;
    if (k == CXCursor_FunctionDecl && !clang_isCursorDefinition(c)) return CXChildVisit_Continue;
    return tine_cw_collect(c, parent, into) == CXChildVisit_Break ? CXChildVisit_Break : CXChildVisit_Continue;
}

bool tine_cw_walk(tine_ctx_t *ctx, tine_cfile *f) {
    tine_cw w = {.ctx = ctx, .f = f, .tu = f->tu, .arena = &f->arena};
    w.main = clang_getFile(f->tu, f->path);
    if (!w.main) {
        tine_set_internal_error(ctx, "%s: libclang does not know the file it parsed", f->path);
        return false;
    }
    top_st s = {0};
    clang_visitChildren(clang_getTranslationUnitCursor(f->tu), top_cb, &s);
    bool oom = s.funcs.oom || s.incs.oom || s.macros.oom;
    if (oom) {
        free(s.funcs.c), free(s.incs.c), free(s.macros.c);
        tine_out_of_memory(0);
    }
    tine_cw_macros(&w, s.macros.c, s.macros.n);
    f->nincs = s.incs.n;
    f->incs = tine_arena_alloc(&f->arena, ((size_t)s.incs.n + 1) * sizeof *f->incs);
    for (int i = 0; i < s.incs.n; i++) include(&w, s.incs.c[i], &f->incs[i]);
    f->funcs = tine_arena_alloc(&f->arena, ((size_t)s.funcs.n + 1) * sizeof *f->funcs);
    for (int i = 0; i < s.funcs.n && !w.failed; i++) f->funcs[f->nfuncs++] = function(&w, s.funcs.c[i]);
    /* every call that became a CALL is known now */
    for (size_t i = 0; i < w.nnodes; i++)
        w.nodes[i]->from_macro = tine_cw_from_macro(&w, w.nodes[i]->range.begin.off, w.nodes[i]->range.end.off);
    free(s.funcs.c), free(s.incs.c), free(s.macros.c);
    free(w.macros), free(w.decls), free(w.nodes);
    tine_cw_types_free(&w);
    return !w.failed;
}
