/* kernel_check.c — a kernel's declarations, checked before its schedule: each one on its
 * own (limits, names, element types, one output), then the call graph (no cycles, chains
 * of calls within the limit), whose reachability the stages' order uses. */
#include "front.h"
#include "kernel.h"

#include <ctype.h>

/* Why `name` cannot be a name in the C header of a kernel compiled ahead of time (inputs,
 * parameters and the output are the entry point's parameters; the kernel's own name is
 * its function), or NULL if it can: C11 and C23 keywords, identifiers C reserves, and
 * the names the header itself defines or includes (stdint.h). */
const char *tine_c_name_clash(const char *name) {
    static const char *const keywords[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while",
        "alignas", "alignof", "bool", "constexpr", "false", "nullptr", "static_assert", "thread_local", "true",
        "typeof", "typeof_unqual", "asm", "fortran"};
    static const char *const stdint_macros[] = {"INT", "UINT", "PTRDIFF_", "SIZE_", "SIG_ATOMIC_", "WCHAR_", "WINT_"};
    if (!isalpha((unsigned char)name[0]) && name[0] != '_') return "it is not a C identifier";
    for (const char *p = name; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_') return "it is not a C identifier";
    for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
        if (!strcmp(name, keywords[i])) return "it is a C keyword";
    if (name[0] == '_' && (name[1] == '_' || isupper((unsigned char)name[1])))
        return "C reserves names that begin with '__' or '_' and a capital letter";
    if (!strncmp(name, "tine_", 5) || !strncmp(name, "TINE_", 5)) return "names beginning with tine_ or TINE_ are the header's own";
    size_t n = strlen(name);
    bool upper = true;
    for (const char *p = name; *p; p++) upper &= !islower((unsigned char)*p);
    for (size_t i = 0; upper && i < sizeof stdint_macros / sizeof *stdint_macros; i++)
        if (!strncmp(name, stdint_macros[i], strlen(stdint_macros[i]))) return "stdint.h, which the header includes, may define it";
    if (n > 2 && !strcmp(name + n - 2, "_t") && (!strncmp(name, "int", 3) || !strncmp(name, "uint", 4)))
        return "stdint.h, which the header includes, defines it";
    return NULL;
}

/* Each declaration on its own: the limits, a name declared once and fit for C, an element
 * type where one is written, a boundary condition of an input, one output. */
/* A parameter's range and estimate (parse_kernel.c): within its type t, the range not
 * empty, the estimate in the range. */
static bool param_info_ok(tine_ctx_t *ctx, const tine_src *src, const tine_kdecl *d, tine_type_t t) {
    tine_i128 tlo = t.kind == TINE_BOOL ? 0 : tine_min_i128(t), thi = t.kind == TINE_BOOL ? 1 : tine_max_i128(t);
    if (d->ranged && (d->lo < tlo || d->hi > thi)) {
        tine_diag(ctx, src, d->range_line, d->range_col, "the range %lld..%lld of '%s' leaves its type %s", (long long)d->lo,
                  (long long)d->hi, d->name, d->type->name);
        return false;
    }
    if (d->ranged && d->lo > d->hi) {
        tine_diag(ctx, src, d->range_line, d->range_col, "the range %lld..%lld of '%s' is empty (write the smaller value first)",
                  (long long)d->lo, (long long)d->hi, d->name);
        return false;
    }
    if (d->estimated && (d->ranged ? d->estimate < d->lo || d->estimate > d->hi : d->estimate < tlo || d->estimate > thi)) {
        tine_diag(ctx, src, d->est_line, d->est_col, "the estimate %lld of '%s' is outside its %s", (long long)d->estimate,
                  d->name, d->ranged ? "range" : "type");
        return false;
    }
    return true;
}

static bool check_decls(tine_ctx_t *ctx, tine_kernel_t *kn) {
    tine_kernel_ast *k = &kn->ast;
    const tine_src *src = k->src;
    int ninputs = 0, nparams = 0;
    static const char *const kind_name[] = {"input", "parameter", "function", "boundary condition", "output"};
    for (int i = 0; i < k->ndecls; i++) {
        const tine_kdecl *d = &k->decls[i];
        if (i == TINE_KLIMIT_DECLS) {
            tine_diag(ctx, src, d->line, d->col, "a kernel has at most %d declarations; '%s' is one more", TINE_KLIMIT_DECLS,
                 d->name);
            return false;
        }
        for (int j = 0; j < i; j++)
            if (!strcmp(k->decls[j].name, d->name)) {
                tine_diag(ctx, src, d->line, d->col, "'%s' is declared twice (first at line %d)", d->name, k->decls[j].line);
                return false;
            }
        if ((d->kind == K_INPUT && ++ninputs > TINE_KLIMIT_INPUTS) || (d->kind == K_PARAM && ++nparams > TINE_KLIMIT_PARAMS)) {
            tine_diag(ctx, src, d->line, d->col, "a kernel has at most %d %ss; '%s' is one more",
                 d->kind == K_INPUT ? TINE_KLIMIT_INPUTS : TINE_KLIMIT_PARAMS, kind_name[d->kind], d->name);
            return false;
        }
        const char *why = d->kind == K_INPUT || d->kind == K_PARAM || d->kind == K_OUTPUT ? tine_c_name_clash(d->name) : NULL;
        if (why) {
            tine_diag(ctx, src, d->line, d->col, "%s '%s' would be a parameter of the kernel's C function, but %s; rename it",
                 kind_name[d->kind], d->name, why);
            return false;
        }
        if (d->name[0] == '$') { /* the compiler's own variables begin with '$' */
            tine_diag(ctx, src, d->line, d->col, "names begin with a letter or '_', not '$' ('%s')", d->name);
            return false;
        }
        tine_type_t t;
        if (d->type && (d->type->nargs || !tine_parse_type_name(d->type->name, strlen(d->type->name), &t) ||
                        t.bits > 64)) { /* i128 is an intermediate of FPIR ops, not an element type */
            tine_diag(ctx, src, d->type->line, d->type->col, "'%s' is not an element type (u8 ... i64, f32, f64)", d->type->name);
            return false;
        }
        if (d->type && d->kind == K_PARAM && t.kind == TINE_FLOAT) {
            tine_diag(ctx, src, d->type->line, d->type->col,
                 "parameters are integers or bool; pass '%s' as an integer and convert it in the body", d->name);
            return false;
        }
        if (d->type && d->kind == K_PARAM && !param_info_ok(ctx, src, d, t)) return false;
        if (d->type && d->kind != K_PARAM && t.kind == TINE_BOOL) {
            tine_diag(ctx, src, d->type->line, d->type->col, "buffers of bool are not supported; use u8");
            return false;
        }
        if (d->kind == K_BOUNDARY) {
            const tine_kdecl *in = tine_kernel_find(k, d->of);
            if (!in || in->kind != K_INPUT) {
                tine_diag(ctx, src, d->line, d->col, "a boundary condition applies to an input; '%s' is %s", d->of,
                     in ? "not one" : "not declared");
                return false;
            }
        }
        if (d->kind == K_OUTPUT) {
            if (kn->out) {
                tine_diag(ctx, src, d->line, d->col, "a kernel has one output; '%s' is already it", kn->out->name);
                return false;
            }
            kn->out = d;
        }
    }
    if (!kn->out) {
        tine_diag(ctx, src, 1, 1, "the kernel has no output: declare one, as in output out(x, y): u8 = ...");
        return false;
    }
    return true;
}

/* The call graph: for every declaration, the declarations its body (a boundary's fill
 * value) calls, collected once by a walk over the syntax with a stack of its own (a body
 * may be a chain of 200,000 terms: no recursion over the tree), then searched with a
 * memoized depth-first walk over declarations, so that checking is linear in the size
 * of the kernel however often functions call each other. */
typedef struct {
    int *callee;       /* indices into the declarations, each once */
    int n;
    int state;         /* 0 not visited, 1 on the walk's path, 2 done */
    int depth;         /* the longest chain of calls from here (calls of inputs not counted) */
    int next;          /* the callee that chain goes through, or -1 */
} cnode;

typedef struct {
    const char *name;
    int index;
} cname;

static int cname_cmp(const void *a, const void *b) { return strcmp(((const cname *)a)->name, ((const cname *)b)->name); }

static int decl_index(const cname *names, int n, const char *name) {
    cname key = {name, 0};
    const cname *f = bsearch(&key, names, (size_t)n, sizeof *names, cname_cmp);
    return f ? f->index : -1;
}

static void collect_calls(const tine_kernel_ast *k, const cname *names, const tine_ast *root, cnode *c) {
    const tine_ast **stack = NULL;
    int top = 0, cap = 0;
    if (root) {
        TINE_GROW(stack, 64, cap);
        stack[top++] = root;
    }
    while (top > 0) {
        const tine_ast *a = stack[--top];
        if (a->kind == A_CALL) {
            int j = decl_index(names, k->ndecls, a->name);
            bool seen = j < 0 || k->decls[j].kind == K_INPUT || k->decls[j].kind == K_PARAM;
            for (int i = 0; i < c->n && !seen; i++) seen = c->callee[i] == j;
            if (!seen) {
                c->callee = tine_xrealloc_array(c->callee, (size_t)c->n + 1, sizeof *c->callee);
                c->callee[c->n++] = j;
            }
        }
        TINE_GROW(stack, top + a->nargs + (a->targ ? 1 : 0), cap);
        for (int i = a->nargs - 1; i >= 0; i--)
            if (a->args[i]) stack[top++] = a->args[i];
    }
    free(stack);
}

/* Depth-first from declaration i: false, with the error, on a cycle (reported at the
 * cycle's first declaration in the file, with the path round it) or a chain of calls
 * deeper than the limit. path holds the walk's current path. */
static bool walk_calls(tine_ctx_t *ctx, const tine_kernel_ast *k, cnode *g, int i, int *path, int len) {
    cnode *c = &g[i];
    if (c->state == 2) return true;
    path[len++] = i;
    c->state = 1;
    c->depth = 0;
    c->next = -1;
    for (int e = 0; e < c->n; e++) {
        int j = c->callee[e];
        if (g[j].state == 1) { /* back to a declaration on the path: a cycle */
            int from = len - 1;
            while (path[from] != j) from--;
            int first = from;
            for (int p = from; p < len; p++)
                if (path[p] < path[first]) first = p;
            tine_buf b = {0};
            int n = len - from;
            for (int p = 0; p <= n; p++)
                tine_buf_printf(&b, "%s%s", p ? " -> " : "", k->decls[path[from + (first - from + p) % n]].name);
            const tine_kdecl *d = &k->decls[path[first]];
            if (n == 1) tine_diag(ctx, k->src, d->line, d->col, "'%s' calls itself", d->name);
            else tine_diag(ctx, k->src, d->line, d->col, "'%s' calls itself through other functions: %s", d->name, b.p);
            free(b.p);
            return false;
        }
        if (!walk_calls(ctx, k, g, j, path, len)) return false;
        if (g[j].depth + 1 > c->depth) {
            c->depth = g[j].depth + 1;
            c->next = j;
        }
    }
    c->state = 2;
    if (c->depth > TINE_KLIMIT_DEPTH) {
        const tine_kdecl *d = &k->decls[i];
        tine_buf b = {0};
        int p = i;
        for (int n = 0; p >= 0 && n < 4; n++, p = g[p].next) tine_buf_printf(&b, "%s -> ", k->decls[p].name);
        tine_buf_puts(&b, "...");
        tine_diag(ctx, k->src, d->line, d->col, "calls from '%s' nest %d deep (%s); at most %d functions can call one another in a chain",
             d->name, c->depth, b.p, TINE_KLIMIT_DEPTH);
        free(b.p);
        return false;
    }
    return true;
}

/* Builds the call graph, rejects cycles and chains deeper than the limit, and keeps which
 * declarations each one reaches (for the order of materialized stages). */
static bool check_calls(tine_ctx_t *ctx, tine_kernel_t *kn) {
    const tine_kernel_ast *k = &kn->ast;
    int n = k->ndecls;
    cname *names = tine_xrealloc_array(NULL, (size_t)(n ? n : 1), sizeof *names);
    cnode *g = tine_xcalloc((size_t)(n ? n : 1), sizeof *g);
    int *path = tine_xrealloc_array(NULL, (size_t)(n ? n : 1), sizeof *path);
    for (int i = 0; i < n; i++) names[i] = (cname){k->decls[i].name, i};
    qsort(names, (size_t)n, sizeof *names, cname_cmp);
    for (int i = 0; i < n; i++) {
        const tine_kdecl *d = &k->decls[i];
        collect_calls(k, names, d->kind == K_BOUNDARY ? d->fill : d->kind == K_INPUT || d->kind == K_PARAM ? NULL : d->body,
                      &g[i]);
    }
    bool ok = true;
    for (int i = 0; i < n && ok; i++) ok = walk_calls(ctx, k, g, i, path, 0);
    if (ok) { /* reach[i]: the declarations i calls, directly or not; callees are done first */
        size_t words = ((size_t)n + 63) / 64;
        kn->reach = tine_xcalloc((size_t)n * words + 1, sizeof *kn->reach);
        kn->calls = tine_xcalloc((size_t)n * words + 1, sizeof *kn->calls);
        kn->reach_words = words;
        int *order = path, m = 0; /* post-order: every callee before its callers */
        for (int i = 0; i < n; i++) g[i].state = 0;
        for (int i = 0; i < n; i++) {
            if (g[i].state) continue;
            /* iterative post-order walk (the graph is acyclic now) */
            int *st = tine_xrealloc_array(NULL, (size_t)n * 2, sizeof *st), top = 0;
            st[top++] = i;
            st[top++] = 0;
            g[i].state = 1;
            while (top) {
                int v = st[top - 2], e = st[top - 1];
                if (e < g[v].n) {
                    st[top - 1]++;
                    int w = g[v].callee[e];
                    if (!g[w].state) {
                        g[w].state = 1;
                        st[top++] = w;
                        st[top++] = 0;
                    }
                } else {
                    order[m++] = v;
                    top -= 2;
                }
            }
            free(st);
        }
        for (int o = 0; o < m; o++) {
            int v = order[o];
            uint64_t *row = kn->reach + (size_t)v * words;
            for (int e = 0; e < g[v].n; e++) {
                int w = g[v].callee[e];
                row[w / 64] |= (uint64_t)1 << (w % 64);
                kn->calls[(size_t)v * words + (size_t)w / 64] |= (uint64_t)1 << (w % 64);
                for (size_t x = 0; x < words; x++) row[x] |= kn->reach[(size_t)w * words + x];
            }
        }
    }
    for (int i = 0; i < n; i++) free(g[i].callee);
    free(g);
    free(names);
    free(path);
    return ok;
}

/* Whether declaration d calls e, directly or through other functions. */
bool tine_kernel_reaches(const tine_kernel_t *kn, const tine_kdecl *d, const tine_kdecl *e) {
    size_t i = (size_t)(d - kn->ast.decls), j = (size_t)(e - kn->ast.decls);
    return kn->reach[i * kn->reach_words + j / 64] >> (j % 64) & 1;
}

/* Whether declaration i's code, inlined, reaches function j: i calls j directly, or
 * calls a function that is not materialized (its code inlined in i's) or a boundary
 * condition that does. */
static bool inlines(const tine_kernel_t *k, size_t i, size_t j) {
    const uint64_t *row = k->calls + i * k->reach_words;
    if (row[j / 64] >> (j % 64) & 1) return true;
    for (size_t g = 0; g < (size_t)k->ast.ndecls; g++) {
        const tine_kdecl *c = &k->ast.decls[g];
        if (row[g / 64] >> (g % 64) & 1 && ((c->kind == K_FUNC && !c->materialized) || c->kind == K_BOUNDARY) &&
            inlines(k, g, j))
            return true;
    }
    return false;
}

int tine_kernel_stage_calls(const tine_kernel_t *k, int stage, const char *name) {
    const tine_kdecl *d = stage >= 0 && stage < k->nstages ? tine_kernel_find(&k->ast, k->stages[stage].name) : NULL;
    const tine_kdecl *e = tine_kernel_find(&k->ast, name);
    if (!d || !e || e->kind == K_INPUT || e->kind == K_PARAM) return 0; /* not in the call graph */
    return d == e || inlines(k, (size_t)(d - k->ast.decls), (size_t)(e - k->ast.decls));
}

bool tine_front_check(tine_kernel_t *kn) { return check_decls(kn->ctx, kn) && check_calls(kn->ctx, kn); }
