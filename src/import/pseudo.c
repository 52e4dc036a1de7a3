/* pseudo.c — Intel's intrinsic pseudocode to a syntax tree (pseudo.h).
 *
 * The grammar is what the Intrinsics Guide's <operation> texts use: C-like expressions
 * with Intel's words for the bitwise operators (AND, OR, XOR, NOT), bit slices a[hi:lo]
 * and single bits a[i], fields a.byte[k] / a.word[k] / a.dword[k] / a.qword[k], calls,
 * `c ? x : y`; statements one per line: `lhs := expr`, IF/ELSE [IF]/FI, FOR v := a to b
 * (or downto) ... ENDFOR, CASE sel OF label: ... ESAC, DEFINE name(params) { ... },
 * RETURN expr. A backslash at the end of a line continues it. */
#include "pseudo.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum { T_EOF = 0, T_NL = '\n', T_NUM = 300, T_NAME, T_ASSIGN };

typedef struct {
    tine_arena *arena;
    const char *p, *line_start;
    int line;
    int tok, tline, tcol;
    int64_t num;
    char name[64];
    int depth; /* parentheses and brackets open: newlines inside them are spaces */
    char *err;
    size_t nerr;
    bool failed;
} ps;

static void fail(ps *s, const char *fmt, const char *arg) {
    if (s->failed) return;
    s->failed = true;
    char what[160];
    snprintf(what, sizeof what, fmt, arg ? arg : "");
    snprintf(s->err, s->nerr, "%d:%d: %s", s->tline, s->tcol, what);
}

static const struct {
    const char *w;
    int tok;
} words[] = {{"AND", PT_AND}, {"OR", PT_OR}, {"XOR", PT_XOR}, {"NOT", PT_NOT}};

static void next(ps *s) {
    for (;;) {
        while (*s->p == ' ' || *s->p == '\t' || *s->p == '\r') s->p++;
        if (*s->p == '\\' && (s->p[1] == '\n' || (s->p[1] == '\r' && s->p[2] == '\n'))) {
            s->p += s->p[1] == '\n' ? 2 : 3;
            s->line++, s->line_start = s->p;
            continue;
        }
        if (s->p[0] == '/' && s->p[1] == '/') {
            while (*s->p && *s->p != '\n') s->p++;
            continue;
        }
        if (*s->p == '\n' && s->depth > 0) {
            s->p++, s->line++, s->line_start = s->p;
            continue;
        }
        break;
    }
    s->tline = s->line, s->tcol = (int)(s->p - s->line_start) + 1;
    const char *p = s->p;
    if (!*p) { s->tok = T_EOF; return; }
    if (*p == '\n') {
        s->p++, s->line++, s->line_start = s->p;
        s->tok = T_NL;
        return;
    }
    if (isdigit((unsigned char)*p)) {
        char *end;
        unsigned long long v = strtoull(p, &end, 0);
        s->num = (int64_t)v;
        s->p = end;
        s->tok = T_NUM;
        return;
    }
    if (isalpha((unsigned char)*p) || *p == '_') {
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '_') q++;
        size_t n = (size_t)(q - p);
        if (n >= sizeof s->name) n = sizeof s->name - 1;
        memcpy(s->name, p, n);
        s->name[n] = 0;
        s->p = q;
        for (size_t i = 0; i < sizeof words / sizeof *words; i++)
            if (!strcmp(s->name, words[i].w)) { s->tok = words[i].tok; return; }
        s->tok = T_NAME;
        return;
    }
    static const struct {
        const char *s;
        int tok;
    } two[] = {{":=", T_ASSIGN}, {"<<", PT_SHL}, {">>", PT_SHR}, {"<=", PT_LE}, {">=", PT_GE},
               {"==", PT_EQ},    {"!=", PT_NE},  {"&&", PT_LAND}, {"||", PT_LOR}, {"<>", PT_NE}};
    for (size_t i = 0; i < sizeof two / sizeof *two; i++)
        if (p[0] == two[i].s[0] && p[1] == two[i].s[1]) {
            s->p += 2;
            s->tok = two[i].tok;
            return;
        }
    s->p++;
    s->tok = (unsigned char)*p;
}

static bool is_word(ps *s, const char *w) { return s->tok == T_NAME && !strcmp(s->name, w); }
static bool is_word_ci(ps *s, const char *w) {
    if (s->tok != T_NAME) return false;
    size_t i = 0;
    for (; s->name[i] && w[i]; i++)
        if (tolower((unsigned char)s->name[i]) != tolower((unsigned char)w[i])) return false;
    return !s->name[i] && !w[i];
}

static p_node *node(ps *s, p_kind k, int nkids) {
    p_node *n = tine_arena_alloc(s->arena, sizeof *n);
    n->kind = k, n->line = s->tline, n->col = s->tcol;
    n->nkids = nkids;
    if (nkids) n->kids = tine_arena_alloc(s->arena, sizeof(p_node *) * (size_t)nkids);
    return n;
}

static bool expect(ps *s, int tok, const char *what) {
    if (s->tok != tok) {
        fail(s, "expected %s", what);
        return false;
    }
    next(s);
    return true;
}

static p_node *expr(ps *s);

/* Bits of the fields a.byte[k] ... */
static int field_bits(const char *f) {
    static const struct {
        const char *n;
        int bits;
    } t[] = {{"bit", 1}, {"byte", 8}, {"word", 16}, {"dword", 32}, {"qword", 64}, {"m128", 128}, {"m256", 256},
             {"xmm", 128}, {"ymm", 256}};
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(f, t[i].n)) return t[i].bits;
    return 0;
}

static p_node *postfix(ps *s, p_node *base) {
    for (;;) {
        if (s->tok == '[') {
            p_node *n = node(s, P_SLICE, 3);
            s->depth++;
            next(s);
            n->kids[0] = base;
            n->kids[1] = expr(s);
            if (s->tok == ':') {
                next(s);
                n->kids[2] = expr(s);
            }
            s->depth--;
            if (!expect(s, ']', "']' after the bit index")) return NULL;
            base = n;
        } else if (s->tok == '.') {
            next(s);
            if (s->tok != T_NAME || !field_bits(s->name)) {
                fail(s, "expected a field (byte, word, dword, qword) after '.'", NULL);
                return NULL;
            }
            p_node *n = node(s, P_MEMBER, 2);
            n->name = tine_arena_strdup(s->arena, s->name, strlen(s->name));
            n->num = field_bits(s->name);
            n->kids[0] = base;
            next(s);
            if (s->tok == '[') {
                s->depth++;
                next(s);
                n->kids[1] = expr(s);
                s->depth--;
                if (!expect(s, ']', "']' after the field's index")) return NULL;
            }
            base = n;
        } else
            return base;
        if (s->failed) return NULL;
    }
}

static p_node *primary(ps *s) {
    if (s->failed) return NULL;
    if (s->tok == T_NUM) {
        p_node *n = node(s, P_NUM, 0);
        n->num = s->num;
        next(s);
        return postfix(s, n);
    }
    if (s->tok == '(') {
        s->depth++;
        next(s);
        p_node *e = expr(s);
        s->depth--;
        if (!expect(s, ')', "')'")) return NULL;
        return postfix(s, e);
    }
    if (s->tok == '-' || s->tok == '~' || s->tok == '!' || s->tok == PT_NOT || s->tok == '+') {
        int op = s->tok == '~' ? PT_NOT : s->tok;
        p_node *n = node(s, P_UN, 1);
        n->op = op;
        next(s);
        n->kids[0] = primary(s);
        if (op == '+') return n->kids[0];
        return n->kids[0] ? n : NULL;
    }
    if (s->tok == T_NAME) {
        const char *name = tine_arena_strdup(s->arena, s->name, strlen(s->name));
        int line = s->tline, col = s->tcol;
        next(s);
        if (s->tok == '(') {
            p_node *n = node(s, P_CALL, 0);
            n->line = line, n->col = col, n->name = name;
            p_node *args[8];
            int na = 0;
            s->depth++;
            next(s);
            while (s->tok != ')' && !s->failed) {
                if (na == 8) { fail(s, "too many arguments", NULL); return NULL; }
                args[na++] = expr(s);
                if (s->tok == ',') next(s);
                else if (s->tok != ')') { fail(s, "expected ',' or ')' in the call to %s", name); return NULL; }
            }
            s->depth--;
            if (!expect(s, ')', "')'")) return NULL;
            n->nkids = na;
            n->kids = tine_arena_alloc(s->arena, sizeof(p_node *) * (size_t)(na ? na : 1));
            memcpy(n->kids, args, sizeof(p_node *) * (size_t)na);
            return postfix(s, n);
        }
        p_node *n = node(s, P_NAME, 0);
        n->line = line, n->col = col, n->name = name;
        return postfix(s, n);
    }
    char t[8];
    snprintf(t, sizeof t, s->tok < 128 && s->tok > 32 ? "'%c'" : "this", s->tok);
    fail(s, "unexpected %s in an expression", s->tok == T_NL ? "end of line" : s->tok == T_EOF ? "end of text" : t);
    return NULL;
}

/* Binary operators by precedence, loosest first. */
static int prec(int tok) {
    switch (tok) {
    case PT_LOR: return 1;
    case PT_LAND: return 2;
    case PT_OR: case '|': return 3;
    case PT_XOR: case '^': return 4;
    case PT_AND: case '&': return 5;
    case PT_EQ: case PT_NE: return 6;
    case '<': case '>': case PT_LE: case PT_GE: return 7;
    case PT_SHL: case PT_SHR: return 8;
    case '+': case '-': return 9;
    case '*': case '/': case '%': return 10;
    default: return 0;
    }
}

static p_node *binary(ps *s, int min) {
    p_node *l = primary(s);
    while (l && !s->failed) {
        if (is_word(s, "OP")) s->tok = PT_OPVAR;
        int p = s->tok == PT_OPVAR ? 7 : prec(s->tok);
        if (!p || p < min) break;
        int op = s->tok == '|' ? PT_OR : s->tok == '^' ? PT_XOR : s->tok == '&' ? PT_AND : s->tok;
        p_node *n = node(s, P_BIN, 2);
        n->op = op;
        next(s);
        n->kids[0] = l;
        n->kids[1] = binary(s, p + 1);
        if (!n->kids[1]) return NULL;
        l = n;
    }
    return s->failed ? NULL : l;
}

static p_node *expr(ps *s) {
    p_node *c = binary(s, 1);
    if (!c || s->tok != '?') return c;
    p_node *n = node(s, P_COND, 3);
    next(s);
    n->kids[0] = c;
    n->kids[1] = expr(s);
    if (!expect(s, ':', "':' in 'c ? x : y'")) return NULL;
    n->kids[2] = expr(s);
    return s->failed ? NULL : n;
}

static void skip_nl(ps *s) {
    while (s->tok == T_NL || s->tok == ';') next(s);
}

static p_node *block(ps *s, const char *const *ends);

static p_node *stmt(ps *s);

static p_node *if_stmt(ps *s) {
    p_node *n = node(s, P_IF, 3);
    next(s); /* IF */
    n->kids[0] = expr(s);
    if (is_word_ci(s, "THEN")) next(s);
    static const char *const ends[] = {"ELSE", "FI", NULL};
    n->kids[1] = block(s, ends);
    if (s->failed) return NULL;
    if (is_word(s, "ELSE")) {
        next(s);
        if (is_word(s, "IF")) { /* ELSE IF shares the FI */
            p_node *b = node(s, P_BLOCK, 1);
            b->kids[0] = if_stmt(s);
            n->kids[2] = b;
            return s->failed ? NULL : n;
        }
        static const char *const fi[] = {"FI", NULL};
        n->kids[2] = block(s, fi);
        if (s->failed) return NULL;
    }
    if (!is_word(s, "FI")) { fail(s, "expected FI to close the IF", NULL); return NULL; }
    next(s);
    return n;
}

/* A statement node for the keyword at the current token, named by the word after it. */
static p_node *named_stmt(ps *s, p_kind k, int nkids, const char *what) {
    p_node *n = node(s, k, nkids);
    next(s);
    if (s->tok != T_NAME) {
        fail(s, "expected %s", what);
        return NULL;
    }
    n->name = tine_arena_strdup(s->arena, s->name, strlen(s->name));
    next(s);
    return n;
}

static p_node *for_stmt(ps *s) {
    p_node *n = named_stmt(s, P_FOR, 3, "the loop variable after FOR");
    if (!n) return NULL;
    if (!expect(s, T_ASSIGN, "':=' after the loop variable")) return NULL;
    n->kids[0] = expr(s);
    if (is_word_ci(s, "downto")) n->num = 1;
    else if (!is_word_ci(s, "to")) { fail(s, "expected 'to' in the FOR loop", NULL); return NULL; }
    next(s);
    n->kids[1] = expr(s);
    static const char *const ends[] = {"ENDFOR", NULL};
    n->kids[2] = block(s, ends);
    if (s->failed) return NULL;
    next(s);
    return n;
}

static p_node *case_stmt(ps *s) {
    next(s);
    p_node *sel = expr(s);
    if (!is_word(s, "OF")) { fail(s, "expected OF after the CASE selector", NULL); return NULL; }
    next(s);
    p_node *kids[130];
    int nk = 0;
    kids[nk++] = sel;
    skip_nl(s);
    while (!s->failed && !is_word(s, "ESAC")) {
        if (nk + 2 > 130) { fail(s, "too many CASE labels", NULL); return NULL; }
        p_node *label = NULL;
        if (is_word(s, "OTHERWISE") || is_word(s, "DEFAULT")) next(s);
        else label = expr(s);
        if (!expect(s, ':', "':' after the CASE label")) return NULL;
        /* the arm: statements until the next label or ESAC */
        p_node *b = node(s, P_BLOCK, 0);
        p_node *st[64];
        int n = 0;
        for (;;) {
            skip_nl(s);
            if (s->failed || s->tok == T_EOF || is_word(s, "ESAC") || is_word(s, "OTHERWISE")) break;
            if (s->tok == T_NUM || (s->tok == T_NAME && s->p[0] == ':' && s->p[1] != '=')) break;
            if (n == 64) { fail(s, "a CASE arm too long", NULL); return NULL; }
            st[n++] = stmt(s);
        }
        b->nkids = n;
        b->kids = tine_arena_alloc(s->arena, sizeof(p_node *) * (size_t)(n ? n : 1));
        memcpy(b->kids, st, sizeof(p_node *) * (size_t)n);
        kids[nk++] = label;
        kids[nk++] = b;
        if (s->tok == T_EOF) { fail(s, "expected ESAC", NULL); return NULL; }
    }
    if (s->failed) return NULL;
    next(s);
    p_node *c = node(s, P_CASE, nk);
    memcpy(c->kids, kids, sizeof(p_node *) * (size_t)nk);
    return c;
}

static p_node *define_stmt(ps *s) {
    p_node *n = named_stmt(s, P_DEFINE, 1, "the function's name after DEFINE");
    if (!n) return NULL;
    if (!expect(s, '(', "'(' after the function's name")) return NULL;
    const char *params[8];
    int np = 0;
    while (s->tok == T_NAME && np < 8) {
        params[np++] = tine_arena_strdup(s->arena, s->name, strlen(s->name));
        next(s);
        if (s->tok == '[') { /* a parameter's width: a[127:0] */
            while (s->tok != ']' && s->tok != T_EOF) next(s);
            next(s);
        }
        if (s->tok == ',') next(s);
    }
    if (!expect(s, ')', "')' after the parameters")) return NULL;
    skip_nl(s);
    if (!expect(s, '{', "'{' to open the function's body")) return NULL;
    if (!strcmp(n->name, "POPCNT")) {
        /* the evaluator has POPCNT built in; the guide's text defines it with a DO WHILE
           over the bits, which it does not run: the body is skipped (no kids[0]) */
        for (int depth = 1; depth > 0 && s->tok != T_EOF; next(s)) depth += (s->tok == '{') - (s->tok == '}');
        n->params = NULL, n->nparams = 0;
        n->kids[0] = NULL;
        return n;
    }
    static const char *const ends[] = {"}", NULL};
    n->kids[0] = block(s, ends);
    if (s->failed) return NULL;
    next(s);
    n->params = tine_arena_alloc(s->arena, sizeof(char *) * (size_t)(np ? np : 1));
    memcpy(n->params, params, sizeof(char *) * (size_t)np);
    n->nparams = np;
    return n;
}

static p_node *stmt(ps *s) {
    if (is_word(s, "IF")) return if_stmt(s);
    if (is_word(s, "FOR")) return for_stmt(s);
    if (is_word(s, "CASE")) return case_stmt(s);
    if (is_word(s, "DEFINE")) return define_stmt(s);
    if (is_word(s, "RETURN")) {
        p_node *n = node(s, P_RETURN, 1);
        next(s);
        n->kids[0] = expr(s);
        return s->failed ? NULL : n;
    }
    if (is_word(s, "WHILE") || is_word(s, "DO")) {
        fail(s, "WHILE loops are not translated", NULL);
        return NULL;
    }
    p_node *lhs = expr(s);
    if (!lhs) return NULL;
    if (s->tok != T_ASSIGN) {
        fail(s, "expected ':=' (a statement that is not an assignment)", NULL);
        return NULL;
    }
    p_node *n = node(s, P_ASSIGN, 2);
    next(s);
    n->kids[0] = lhs;
    n->kids[1] = expr(s);
    return s->failed ? NULL : n;
}

static bool at_end(ps *s, const char *const *ends) {
    if (s->tok == T_EOF) return true;
    for (int i = 0; ends && ends[i]; i++) {
        if (ends[i][0] == '}' ? s->tok == '}' : is_word(s, ends[i])) return true;
    }
    return false;
}

static p_node *block(ps *s, const char *const *ends) {
    p_node **st = NULL;
    int n = 0, cap = 0;
    for (;;) {
        skip_nl(s);
        if (s->failed || at_end(s, ends)) break;
        p_node *x = stmt(s);
        if (!x) break;
        if (x->kind != P_ASSIGN || x->kids[0]->kind != P_NAME || strcmp(x->kids[0]->name, "MAX")) {
            TINE_GROW(st, n + 1, cap);
            st[n++] = x;
        }
        if (s->tok != T_NL && s->tok != ';' && !at_end(s, ends) && !s->failed) {
            fail(s, "expected the end of the line after the statement", NULL);
            break;
        }
    }
    if (!s->failed && ends && s->tok == T_EOF) {
        char want[64] = "";
        for (int i = 0; ends[i]; i++)
            snprintf(want + strlen(want), sizeof want - strlen(want), "%s%s", i ? " or " : "", ends[i]);
        fail(s, "expected %s before the end of the text", want);
    }
    p_node *b = node(s, P_BLOCK, n);
    if (n) memcpy(b->kids, st, sizeof(p_node *) * (size_t)n);
    free(st);
    return s->failed ? NULL : b;
}

p_node *tine_pseudo_parse(tine_arena *arena, const char *text, char *err, size_t nerr) {
    ps s = {.arena = arena, .p = text, .line_start = text, .line = 1, .err = err, .nerr = nerr};
    next(&s);
    p_node *b = block(&s, NULL);
    return s.failed ? NULL : b;
}
