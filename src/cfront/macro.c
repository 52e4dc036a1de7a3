/* macro.c — where a node's text is in the main file, and which macros made it.
 *
 * libclang gives a cursor's extent as two locations. Their file locations
 * (clang_getFileLocation) are where a macro argument is written, or a macro's call for a
 * token of its body; so an argument's node keeps its own text and a body's node the
 * call's. The extent's end is already moved by libclang to the end of the outermost call
 * when the last token comes from a macro's body, even when that macro (N) is itself an
 * argument of another (vshrq_n_u8(v, N)): walk.c then finds the end from the node's
 * children (tine_cw_cut says when), and every range is widened so that it never cuts a
 * macro call in two (tine_cw_fix).
 *
 * The calls are the main file's macro expansions that the preprocessing record lists:
 * those written in the file, and those in another call's arguments (not those a macro's
 * body makes). They nest, never overlap otherwise; sorted by their start, each with the
 * call whose arguments hold it.
 *
 * A call of a header's function-like macro (vld1q_u8) written in the file is a CALL
 * (tine_cw_macro_call): its arguments are the expressions whose tokens all lie in one
 * argument's text. A header macro called by a macro of the main file is found from the
 * spelling of its expansion's first token: the #define in the header that holds it.
 */
#include <limits.h>

#include "walk.h"

/* ---- collecting cursors (see walk.h) ---- */

enum CXChildVisitResult tine_cw_collect(CXCursor c, CXCursor parent, CXClientData data) {
    (void)parent;
    tine_cw_cursors *v = data;
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 8;
        CXCursor *p = cap < (1 << 26) ? realloc(v->c, (size_t)cap * sizeof *p) : NULL;
        if (!p) {
            v->oom = true;
            return CXChildVisit_Break;
        }
        v->c = p;
        v->cap = cap;
    }
    v->c[v->n++] = c;
    return CXChildVisit_Continue;
}

void tine_cw_check(tine_cw_cursors *v) {
    if (!v->oom) return;
    free(v->c);
    *v = (tine_cw_cursors){0};
    tine_out_of_memory(0);
}

tine_cw_cursors tine_cw_children(CXCursor c) {
    tine_cw_cursors v = {0};
    clang_visitChildren(c, tine_cw_collect, &v);
    tine_cw_check(&v);
    return v;
}

/* ---- positions ---- */

tine_cpos tine_cw_pos(const tine_cfile *f, unsigned off) {
    if (off > f->len) off = (unsigned)f->len;
    int lo = 0, hi = f->nlines - 1; /* the last line starting at or before off */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (f->line_at[mid] <= off) lo = mid;
        else hi = mid - 1;
    }
    return (tine_cpos){lo + 1, (int)(off - f->line_at[lo]) + 1, off};
}

tine_crange tine_cw_range(tine_cw *w, unsigned b, unsigned e) {
    return (tine_crange){tine_cw_pos(w->f, b), tine_cw_pos(w->f, e < b ? b : e)};
}

static bool in_main(tine_cw *w, CXFile file) { return file && clang_File_isEqual(file, w->main); }

int tine_cw_offset(tine_cw *w, CXSourceLocation loc, unsigned *off) {
    CXFile file;
    unsigned o;
    clang_getFileLocation(loc, &file, NULL, NULL, &o);
    if (in_main(w, file)) {
        *off = o;
        return 1;
    }
    /* a macro argument written in a header's macro (a helper's): the call in the file */
    clang_getExpansionLocation(loc, &file, NULL, NULL, &o);
    if (!in_main(w, file)) return 0;
    *off = o;
    return 2;
}

bool tine_cw_raw(tine_cw *w, CXCursor c, unsigned *b, unsigned *e) {
    CXSourceRange r = clang_getCursorExtent(c);
    unsigned rb, re;
    if (!tine_cw_offset(w, clang_getRangeStart(r), &rb) || !tine_cw_offset(w, clang_getRangeEnd(r), &re)) return false;
    if (rb > w->f->len) rb = (unsigned)w->f->len;
    if (re > w->f->len) re = (unsigned)w->f->len;
    *b = rb;
    *e = re < rb ? rb : re;
    return true;
}

/* ---- the table of calls ---- */

static int by_begin(const void *a, const void *b) {
    const tine_cw_macro *x = a, *y = b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    return x->end > y->end ? -1 : x->end < y->end; /* the outer one first */
}

void tine_cw_macros(tine_cw *w, const CXCursor *exp, int n) {
    w->macros = tine_xcalloc(n ? (size_t)n : 1, sizeof *w->macros);
    for (int i = 0; i < n; i++) {
        CXSourceRange r = clang_getCursorExtent(exp[i]);
        CXFile f1, f2;
        unsigned b, e;
        clang_getExpansionLocation(clang_getRangeStart(r), &f1, NULL, NULL, &b);
        clang_getExpansionLocation(clang_getRangeEnd(r), &f2, NULL, NULL, &e);
        if (!in_main(w, f1) || !in_main(w, f2) || e <= b || e > w->f->len) continue;
        w->macros[w->nmacros++] = (tine_cw_macro){b, e, -1, exp[i], -1, false};
    }
    qsort(w->macros, (size_t)w->nmacros, sizeof *w->macros, by_begin);
    /* each call's parent: the innermost earlier call still open at its start */
    int *stack = tine_xmalloc((size_t)(w->nmacros + 1) * sizeof *stack), top = 0;
    for (int i = 0; i < w->nmacros; i++) {
        while (top && w->macros[stack[top - 1]].end <= w->macros[i].begin) top--;
        w->macros[i].parent = top ? stack[top - 1] : -1;
        stack[top++] = i;
    }
    free(stack);
}

/* The innermost call whose text holds offset p, or -1. */
static int innermost(tine_cw *w, unsigned p) {
    int lo = 0, hi = w->nmacros - 1, i = -1; /* the last call starting at or before p */
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (w->macros[mid].begin <= p) i = mid, lo = mid + 1;
        else hi = mid - 1;
    }
    while (i >= 0 && w->macros[i].end <= p) i = w->macros[i].parent;
    return i;
}

int tine_cw_macro_at(tine_cw *w, unsigned b) {
    for (int x = innermost(w, b); x >= 0; x = w->macros[x].parent)
        if (w->macros[x].begin == b) return x;
    return -1;
}

int tine_cw_cut(tine_cw *w, unsigned b, unsigned e) {
    for (int x = innermost(w, b); x >= 0; x = w->macros[x].parent)
        if (b > w->macros[x].begin && e >= w->macros[x].end) return x;
    return -1;
}

void tine_cw_fix(tine_cw *w, unsigned *b, unsigned *e) {
    /* an end at a call's start: the last token is the call's (N in vld1q_u8(src + N), whose
       file location is N's start) */
    int y = *e > *b ? tine_cw_macro_at(w, *e) : -1;
    if (y >= 0) *e = w->macros[y].end;
    for (int round = 0; round < 64; round++) {
        bool changed = false;
        /* a node starting at a call's name holds the whole call; one starting in its
           arguments and reaching past them holds it too */
        for (int x = innermost(w, *b); x >= 0; x = w->macros[x].parent) {
            const tine_cw_macro *m = &w->macros[x];
            if (*b == m->begin) {
                if (*e < m->end) *e = m->end, changed = true;
            } else if (*e >= m->end) {
                *b = m->begin;
                changed = true;
                break;
            }
        }
        /* a node ending in a call it does not start in holds the whole call */
        if (*e > *b)
            for (int x = innermost(w, *e - 1); x >= 0; x = w->macros[x].parent) {
                const tine_cw_macro *m = &w->macros[x];
                if (*b > m->begin) break;
                if (*e < m->end) *e = m->end, changed = true;
            }
        if (!changed) return;
    }
}

int tine_cw_in_args(tine_cw *w, unsigned b) {
    for (int x = innermost(w, b); x >= 0; x = w->macros[x].parent)
        if (b > w->macros[x].begin) return x;
    return -1;
}

bool tine_cw_from_macro(tine_cw *w, unsigned b, unsigned e) {
    for (int x = innermost(w, b); x >= 0; x = w->macros[x].parent)
        if (!w->macros[x].as_call) return true;
    if (e > b)
        for (int x = innermost(w, e - 1); x >= 0; x = w->macros[x].parent)
            if (!w->macros[x].as_call) return true;
    return false;
}

/* ---- the main file's tokens ---- */

static bool ident_char(char c) {
    return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Past whitespace, comments and line continuations from p. */
static unsigned skip_space(const char *t, size_t n, unsigned p) {
    while (p < n) {
        if (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r' || t[p] == '\f' || t[p] == '\v') p++;
        else if (t[p] == '\\' && p + 1 < n && (t[p + 1] == '\n' || t[p + 1] == '\r')) p += 2;
        else if (t[p] == '/' && p + 1 < n && t[p + 1] == '*') {
            for (p += 2; p < n && !(t[p] == '*' && p + 1 < n && t[p + 1] == '/');) p++;
            p = p < n ? p + 2 : (unsigned)n;
        } else if (t[p] == '/' && p + 1 < n && t[p + 1] == '/') {
            while (p < n && t[p] != '\n') p++;
        } else break;
    }
    return p;
}

/* The end of the token starting at p (p itself at the end of the text). */
static unsigned token_end(const char *t, size_t n, unsigned p) {
    static const char *const punct[] = {"...", "<<=", ">>=", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
                                        "&&", "||", "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##"};
    if (p >= n) return p;
    char c = t[p];
    if (ident_char(c) || (c == '.' && p + 1 < n && t[p + 1] >= '0' && t[p + 1] <= '9')) {
        bool number = (c >= '0' && c <= '9') || c == '.';
        unsigned q = p;
        while (q < n && (ident_char(t[q]) || (number && (t[q] == '.' || ((t[q] == '+' || t[q] == '-') &&
                                                                         strchr("eEpP", t[q - 1]))))))
            q++;
        /* an encoding prefix: L"", u8'' */
        if (!number && q < n && (t[q] == '"' || t[q] == '\'') && q - p <= 2 && strchr("LuU", c)) p = q, c = t[q];
        else return q;
    }
    if (c == '"' || c == '\'') {
        unsigned q = p + 1;
        while (q < n && t[q] != c && t[q] != '\n') q += t[q] == '\\' ? 2 : 1;
        return q < n ? q + 1 : (unsigned)n;
    }
    for (size_t i = 0; i < sizeof punct / sizeof *punct; i++) {
        size_t l = strlen(punct[i]);
        if (p + l <= n && memcmp(t + p, punct[i], l) == 0) return p + (unsigned)l;
    }
    return p + 1;
}

unsigned tine_cw_token_end(tine_cw *w, unsigned p) {
    int x = tine_cw_macro_at(w, p);
    if (x >= 0) return w->macros[x].end;
    const char *t = w->f->text;
    size_t n = w->f->len;
    unsigned e = token_end(t, n, p);
    /* sizeof (T): the operand with the keyword; "a" "b": one literal */
    if ((e - p == 6 && memcmp(t + p, "sizeof", 6) == 0) || (e - p == 8 && memcmp(t + p, "_Alignof", 8) == 0) ||
        (e - p == 11 && memcmp(t + p, "__alignof__", 11) == 0)) {
        unsigned q = skip_space(t, n, e);
        if (q < n && t[q] == '(') {
            int depth = 0;
            for (; q < n; q = skip_space(t, n, token_end(t, n, q))) {
                if (t[q] == '(') depth++;
                else if (t[q] == ')' && --depth == 0) return q + 1;
            }
        }
    }
    if (p < n && (t[p] == '"' || (e > p + 1 && t[e - 1] == '"')))
        for (unsigned q = skip_space(t, n, e); q < n && t[q] == '"'; q = skip_space(t, n, e)) e = token_end(t, n, q);
    return e;
}

bool tine_cw_after(tine_cw *w, unsigned *e, const char *tok) {
    unsigned q = skip_space(w->f->text, w->f->len, *e), l = (unsigned)strlen(tok);
    if (q + l > w->f->len || memcmp(w->f->text + q, tok, l) != 0) return false;
    if (ident_char(tok[0]) && q + l < w->f->len && ident_char(w->f->text[q + l])) return false;
    *e = q + l;
    return true;
}

bool tine_cw_one_arg(tine_cw *w, unsigned b, unsigned e) {
    const char *t = w->f->text;
    if (e <= b || e > w->f->len) return false;
    int depth = 0;
    for (unsigned p = skip_space(t, e, b); p < e; p = skip_space(t, e, token_end(t, e, p))) {
        char c = t[p];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if ((c == ')' || c == ']' || c == '}') && --depth < 0) return false;
        else if (c == ',' && depth == 0) return false;
    }
    return depth == 0;
}

bool tine_cw_word_at(tine_cw *w, unsigned p, const char *word) {
    unsigned l = (unsigned)strlen(word);
    return p + l <= w->f->len && memcmp(w->f->text + p, word, l) == 0 &&
           (p + l == w->f->len || !ident_char(w->f->text[p + l]));
}

int tine_cw_for_parts(tine_cw *w, unsigned b, unsigned limit, unsigned cut[3]) {
    const char *t = w->f->text;
    size_t n = limit < w->f->len ? limit : w->f->len;
    if (!tine_cw_word_at(w, b, "for")) return 0;
    unsigned q = skip_space(t, n, b + 3);
    if (q >= n || t[q] != '(') return 0;
    int depth = 0, k = 0;
    for (; q < n; q = skip_space(t, n, token_end(t, n, q))) {
        char c = t[q];
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                if (k != 2) return 0;
                cut[2] = q;
                return 1;
            }
        } else if (c == ';' && depth == 1) {
            if (k == 2) return 0;
            cut[k++] = q;
        }
    }
    return 0;
}

/* ---- calls of header macros ---- */

/* Whether expansion x is a call of a function-like macro defined outside the main file. */
static bool header_call(tine_cw *w, int x) {
    tine_cw_macro *m = &w->macros[x];
    if (m->call < 0) {
        CXCursor def = clang_getCursorReferenced(m->cursor);
        CXFile file = NULL;
        if (!clang_Cursor_isNull(def) && clang_Cursor_isMacroFunctionLike(def))
            clang_getSpellingLocation(clang_getCursorLocation(def), &file, NULL, NULL, NULL);
        m->call = file && !in_main(w, file);
    }
    return m->call;
}

/* Whether every expression under c (c too) starts in [lo, hi) of the main file (a start in
 * a header, a helper macro's argument, is neither in nor out). */
typedef struct {
    tine_cw *w;
    unsigned lo, hi;
    bool out;
} pure_st;
static bool start_in(tine_cw *w, CXCursor c, unsigned lo, unsigned hi, bool *header) {
    CXFile file;
    unsigned o;
    clang_getFileLocation(clang_getRangeStart(clang_getCursorExtent(c)), &file, NULL, NULL, &o);
    *header = !in_main(w, file);
    return !*header && o >= lo && o < hi;
}
static enum CXChildVisitResult pure_cb(CXCursor c, CXCursor parent, CXClientData data) {
    (void)parent;
    pure_st *s = data;
    bool header;
    if (clang_isExpression(clang_getCursorKind(c)) && !start_in(s->w, c, s->lo, s->hi, &header) && !header) {
        s->out = true;
        return CXChildVisit_Break;
    }
    return CXChildVisit_Recurse;
}
static bool pure(tine_cw *w, CXCursor c, unsigned lo, unsigned hi) {
    bool header;
    if (!start_in(w, c, lo, hi, &header) && !header) return false;
    pure_st s = {w, lo, hi, false};
    clang_visitChildren(c, pure_cb, &s);
    return !s.out;
}

/* The argument texts of the call written at [b, e): false if it is not NAME(...). */
static bool arg_spans(tine_cw *w, unsigned b, unsigned e, tine_cw_call *call) {
    const char *t = w->f->text;
    unsigned q = skip_space(t, e, token_end(t, e, b));
    if (q >= e || t[q] != '(') return false;
    int depth = 1, cap = 0;
    unsigned start = UINT_MAX, last = 0;
    for (q = skip_space(t, e, q + 1); q < e; q = skip_space(t, e, token_end(t, e, q))) {
        char c = t[q];
        if (depth == 1 && (c == ',' || c == ')')) {
            if (c == ',' || call->nargs || start != UINT_MAX) { /* M() has no argument */
                if (call->nargs == cap) {
                    cap = cap ? 2 * cap : 4;
                    call->span = tine_xrealloc_array(call->span, (size_t)cap, sizeof *call->span);
                }
                call->span[call->nargs][0] = start == UINT_MAX ? q : start;
                call->span[call->nargs][1] = start == UINT_MAX ? q : last;
                call->nargs++;
            }
            if (c == ')') return q + 1 == e;
            start = UINT_MAX;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') depth++;
        else if (c == ')' || c == ']' || c == '}') depth--;
        if (start == UINT_MAX) start = q;
        last = token_end(t, e, q);
    }
    return false;
}

/* The outermost expressions under c whose tokens lie in one argument's text. */
typedef struct {
    tine_cw *w;
    tine_cw_call *call;
} args_st;
static enum CXChildVisitResult args_cb(CXCursor c, CXCursor parent, CXClientData data) {
    (void)parent;
    args_st *s = data;
    if (!clang_isExpression(clang_getCursorKind(c))) return CXChildVisit_Recurse;
    bool header;
    for (int k = 0; k < s->call->nargs; k++) {
        unsigned lo = s->call->span[k][0], hi = s->call->span[k][1];
        if (!start_in(s->w, c, lo, hi, &header)) continue;
        if (!pure(s->w, c, lo, hi)) return CXChildVisit_Recurse;
        if (clang_Cursor_isNull(s->call->arg[k])) s->call->arg[k] = c;
        return CXChildVisit_Continue;
    }
    return CXChildVisit_Recurse;
}

/* ---- header macros called by the main file's macros ---- */

/* A #define of a header's text: the logical line, its name and parameters, its body. */
typedef struct {
    unsigned begin, end, name, name_end, params, params_end, body;
} mdef;

/* The function-like #define whose logical line holds offset o of text t. */
static bool def_at(const char *t, size_t n, unsigned o, mdef *d) {
    if (!t || o >= n) return false;
    unsigned ls = o;
    for (;;) {
        while (ls > 0 && t[ls - 1] != '\n') ls--;
        if (ls >= 2 && t[ls - 2] == '\\') ls -= 2;
        else if (ls >= 3 && t[ls - 2] == '\r' && t[ls - 3] == '\\') ls -= 3;
        else break;
    }
    unsigned p = skip_space(t, n, ls);
    if (p >= n || t[p] != '#') return false;
    p = skip_space(t, n, p + 1);
    if (p + 6 > n || memcmp(t + p, "define", 6) != 0) return false;
    d->name = skip_space(t, n, p + 6);
    d->name_end = d->name;
    while (d->name_end < n && ident_char(t[d->name_end])) d->name_end++;
    if (d->name_end == d->name || d->name_end >= n || t[d->name_end] != '(') return false;
    d->params = d->name_end + 1;
    d->params_end = d->params;
    while (d->params_end < n && t[d->params_end] != ')' && t[d->params_end] != '\n') d->params_end++;
    if (d->params_end >= n || t[d->params_end] != ')') return false;
    d->body = skip_space(t, n, d->params_end + 1);
    d->begin = ls;
    d->end = o;
    while (d->end < n && !(t[d->end] == '\n' && t[d->end - 1] != '\\' &&
                           !(d->end >= 2 && t[d->end - 1] == '\r' && t[d->end - 2] == '\\')))
        d->end++;
    return o >= d->body && o < d->end;
}

/* Whether identifier [ib, ie) of text u occurs in t[b, e). */
static bool mentions(const char *t, unsigned b, unsigned e, const char *u, unsigned ib, unsigned ie) {
    for (unsigned p = skip_space(t, e, b); p < e; p = skip_space(t, e, token_end(t, e, p))) {
        unsigned q = token_end(t, e, p);
        if (q - p == ie - ib && memcmp(t + p, u + ib, ie - ib) == 0) return true;
    }
    return false;
}

typedef struct {
    tine_cw *w;
    CXFile file;
    const char *text;
    size_t size;
    mdef def;
    tine_cw_cursors found;
} nested_st;
static enum CXChildVisitResult nested_cb(CXCursor c, CXCursor parent, CXClientData data) {
    nested_st *s = data;
    if (!clang_isExpression(clang_getCursorKind(c))) return CXChildVisit_Recurse;
    CXFile file;
    unsigned o;
    clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(c)), &file, NULL, NULL, &o);
    if (file && clang_File_isEqual(file, s->file) && o >= s->def.begin && o < s->def.end) return CXChildVisit_Recurse;
    if (file && !in_main(s->w, file)) {
        /* a helper macro the body calls (splatq_lane_f32) is the body's too */
        size_t size;
        const char *t = clang_getFileContents(s->w->tu, file, &size);
        mdef h;
        if (def_at(t, size, o, &h) &&
            mentions(s->text, s->def.body, s->def.end, t, h.name, h.name_end))
            return CXChildVisit_Recurse;
    }
    return tine_cw_collect(c, parent, &s->found) == CXChildVisit_Break ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* A header macro's call made by a macro of the main file: its first token is the first of
 * the body of a header's #define. Its arguments: the outermost expressions spelled outside
 * that body, matched to the parameters by their order of first use in the body. */
static bool nested_call(tine_cw *w, CXCursor c, tine_cw_call *call) {
    nested_st s = {.w = w};
    unsigned o;
    clang_getSpellingLocation(clang_getRangeStart(clang_getCursorExtent(c)), &s.file, NULL, NULL, &o);
    if (!s.file || in_main(w, s.file)) return false;
    s.text = clang_getFileContents(w->tu, s.file, &s.size);
    if (!def_at(s.text, s.size, o, &s.def) || o != s.def.body) return false;
    /* the parameters, and the order of their first use in the body */
    const char *t = s.text;
    unsigned pb[64], pe[64];
    int np = 0, order[64], nused = 0;
    for (unsigned p = skip_space(t, s.def.params_end, s.def.params); p < s.def.params_end;
         p = skip_space(t, s.def.params_end, token_end(t, s.def.params_end, p))) {
        unsigned q = token_end(t, s.def.params_end, p);
        if (t[p] == ',') continue;
        if (np == 64) return false;
        pb[np] = p, pe[np] = q, np++;
    }
    bool hash = false; /* the token before was # or ## */
    for (unsigned p = s.def.body; p < s.def.end; p = skip_space(t, s.def.end, token_end(t, s.def.end, p))) {
        unsigned q = token_end(t, s.def.end, p), r = skip_space(t, s.def.end, q);
        /* # x and x ## y are not x's value */
        bool pasted = hash || (r + 1 < s.def.end && t[r] == '#' && t[r + 1] == '#');
        for (int i = 0; i < np && !pasted; i++) {
            bool va = pe[i] - pb[i] == 3 && memcmp(t + pb[i], "...", 3) == 0;
            if ((va && q - p == 11 && memcmp(t + p, "__VA_ARGS__", 11) == 0) ||
                (!va && q - p == pe[i] - pb[i] && memcmp(t + p, t + pb[i], q - p) == 0)) {
                bool seen = false;
                for (int j = 0; j < nused; j++) seen |= order[j] == i;
                if (!seen) order[nused++] = i;
            }
        }
        hash = t[p] == '#';
    }
    clang_visitChildren(c, nested_cb, &s);
    tine_cw_check(&s.found);
    /* one use of an argument per parameter: the same text used twice is one */
    int nuniq = 0;
    for (int i = 0; i < s.found.n; i++) {
        unsigned bi, ei, bj, ej;
        bool dup = false;
        if (tine_cw_raw(w, s.found.c[i], &bi, &ei))
            for (int j = 0; j < nuniq && !dup; j++)
                dup = tine_cw_raw(w, s.found.c[j], &bj, &ej) && bi == bj && ei == ej;
        if (!dup) s.found.c[nuniq++] = s.found.c[i];
    }
    bool ok = nuniq == nused && nused == np;
    if (ok) {
        call->name = tine_arena_strdup(w->arena, t + s.def.name, s.def.name_end - s.def.name);
        call->nargs = np;
        call->arg = tine_xcalloc((size_t)np + 1, sizeof *call->arg);
        for (int i = 0; i < np; i++) call->arg[order[i]] = s.found.c[i]; /* every one: nused == np */
    }
    free(s.found.c);
    return ok;
}

bool tine_cw_macro_call(tine_cw *w, CXCursor c, unsigned b, tine_cw_call *call) {
    *call = (tine_cw_call){0};
    int x = tine_cw_macro_at(w, b);
    if (x < 0) return false;
    tine_cw_macro *m = &w->macros[x];
    if (header_call(w, x)) {
        /* written in the file: the node is the call's whole expansion */
        if (!pure(w, c, m->begin, m->end) || !arg_spans(w, m->begin, m->end, call)) {
            tine_cw_call_free(call);
            return false;
        }
        CXString s = clang_getCursorSpelling(m->cursor);
        const char *name = clang_getCString(s);
        call->name = tine_arena_strdup(w->arena, name ? name : "", name ? strlen(name) : 0);
        clang_disposeString(s);
        call->arg = tine_xcalloc((size_t)call->nargs + 1, sizeof *call->arg);
        for (int k = 0; k < call->nargs; k++) call->arg[k] = clang_getNullCursor();
        args_st st = {w, call};
        clang_visitChildren(c, args_cb, &st);
        m->as_call = true;
        call->direct = true;
        return true;
    }
    return nested_call(w, c, call);
}

void tine_cw_call_free(tine_cw_call *call) {
    free(call->arg);
    free(call->span);
    *call = (tine_cw_call){0};
}
