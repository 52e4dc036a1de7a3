/* kernel.c — kernels: parsing and checking a .tine file, lowering its output to vector
 * bodies, the region each input must cover, and a reference run on the interpreter.
 *
 * Lowering: the output's first coordinate is vectorized. Its body is elaborated twice —
 * at the vector width (the first coordinate a ramp from the scalar variable $.c0, the
 * others broadcasts of $.c1..$.c3) and at one lane (for outputs narrower than a vector) —
 * with every function inlined, every input access a load at the flattened index
 * (coordinate − min, times the stride; stride 0 of every buffer is 1), and parameters
 * and buffer geometry read from scalar variables ($name, $in$min0, $in$extent1, ...),
 * each described in the kernel's scalar table (tine_kscalar).
 * The compiled code (codegen/kernel_gen.c) and the reference run evaluate these same bodies.
 */
#include "../ir/ast.h"
#include "../targets/targets.h"

#include <ctype.h>

struct tine_kernel {
    tine_ctx_t *ctx;
    tine_arena arena;
    tine_kernel_ast ast;
    const tine_kdecl *out;
    tine_stage *stages; /* producers first, the output last (cap of them allocated) */
    const tine_kdecl **sdecl;
    int nstages, cap;
    tine_kscalar *ks; /* the scalar table, sorted by variable id */
    int nks;
    uint64_t *reach; /* declaration i calls j (directly or not): bit j of row i */
    size_t reach_words;
    /* the kernel per instruction set named with `on` (kernel_on.c), isa[i]'s in variant[i] */
    const char *isa[8];
    tine_kernel_t *variant[8];
    int nvariants;
};

int tine_kernel_nstages(const tine_kernel_t *k) { return k->nstages; }
const tine_stage *tine_kernel_stage(const tine_kernel_t *k, int i) { return &k->stages[i]; }
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

tine_expr_t *tine_kernel_param_var(tine_ctx_t *ctx, const char *param, tine_type_t t) {
    tine_buf b = {0};
    tine_buf_printf(&b, "$%s", param);
    tine_expr_t *v = tine_var(ctx, b.p, t);
    free(b.p);
    return v;
}

tine_expr_t *tine_kernel_geometry_var(tine_ctx_t *ctx, const char *buffer, tine_ks_what what, int dim) {
    static const char *const names[] = {"", "min", "extent", "stride"};
    tine_buf b = {0};
    tine_buf_printf(&b, "$%s$%s%d", buffer, names[what], dim);
    tine_expr_t *v = tine_var(ctx, b.p, tine_type(TINE_INT, 32, 1));
    free(b.p);
    return v;
}

/* ---- checks ----------------------------------------------------------------------------- */

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
        cap = 64;
        stack = malloc((size_t)cap * sizeof *stack);
        TINE_CHECK_ALLOC(stack != NULL);
        stack[top++] = root;
    }
    while (top > 0) {
        const tine_ast *a = stack[--top];
        if (a->kind == A_CALL) {
            int j = decl_index(names, k->ndecls, a->name);
            bool seen = j < 0 || k->decls[j].kind == K_INPUT || k->decls[j].kind == K_PARAM;
            for (int i = 0; i < c->n && !seen; i++) seen = c->callee[i] == j;
            if (!seen) {
                c->callee = realloc(c->callee, (size_t)(c->n + 1) * sizeof *c->callee);
                TINE_CHECK_ALLOC(c->callee != NULL);
                c->callee[c->n++] = j;
            }
        }
        if (top + a->nargs + (a->targ ? 1 : 0) > cap) {
            cap = 2 * (top + a->nargs + 1);
            stack = realloc(stack, (size_t)cap * sizeof *stack);
            TINE_CHECK_ALLOC(stack != NULL);
        }
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
    cname *names = malloc((size_t)(n ? n : 1) * sizeof *names);
    cnode *g = calloc((size_t)(n ? n : 1), sizeof *g);
    int *path = malloc((size_t)(n ? n : 1) * sizeof *path);
    TINE_CHECK_ALLOC(names && g && path);
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
        kn->reach = calloc((size_t)n * words + 1, sizeof *kn->reach);
        TINE_CHECK_ALLOC(kn->reach != NULL);
        kn->reach_words = words;
        int *order = path, m = 0; /* post-order: every callee before its callers */
        for (int i = 0; i < n; i++) g[i].state = 0;
        for (int i = 0; i < n; i++) {
            if (g[i].state) continue;
            /* iterative post-order walk (the graph is acyclic now) */
            int *st = malloc((size_t)n * 2 * sizeof *st), top = 0;
            TINE_CHECK_ALLOC(st != NULL);
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
static bool reaches(const tine_kernel_t *kn, const tine_kdecl *d, const tine_kdecl *e) {
    size_t i = (size_t)(d - kn->ast.decls), j = (size_t)(e - kn->ast.decls);
    return kn->reach[i * kn->reach_words + j / 64] >> (j % 64) & 1;
}

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

/* f computed into a buffer of its own (materialize, compute_root, compute_at). */
static bool materialize(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, tine_kdecl *f) {
    if (f->materialized) return true;
    int n = 1;
    for (int j = 0; j < k->ndecls; j++) n += k->decls[j].materialized;
    if (n >= TINE_KERNEL_MAX_STAGES) {
        tine_diag(ctx, k->src, s->line, s->col, "at most %d functions can be materialized", TINE_KERNEL_MAX_STAGES - 1);
        tine_error_set_kind(ctx, TINE_ERROR_LIMIT);
        return false;
    }
    f->materialized = true;
    return true;
}

/* store_as f T (directive i), as written: f a function, T an integer type, once. Whether
 * T holds f's values is lower_stage's (it knows the values' bounds); that f is
 * materialized, check's second pass. */
static bool store_as(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, int i, tine_kdecl *f) {
    tine_type_t t;
    if (f->kind != K_FUNC) {
        tine_diag(ctx, k->src, s->line, s->col, "store_as: '%s' is the output; its buffer stores its declared type", f->name);
        return false;
    }
    if (!tine_parse_type_name(s->name, strlen(s->name), &t) || (t.kind != TINE_INT && t.kind != TINE_UINT) || t.bits > 64) {
        tine_diag(ctx, k->src, s->line, s->col, "store_as: '%s' is not an integer element type (u8 ... i64)", s->name);
        return false;
    }
    if (f->store_as_sched)
        return tine_kdirective_again(ctx, s, &k->sched[f->store_as_sched - 1], "'%s' already stores %s", f->name,
                                     k->sched[f->store_as_sched - 1].name);
    f->store_as = t;
    f->store_as_sched = i + 1;
    return true;
}

/* compute_at f g.y and store_at f g.y (directive i), as written: the names exist. What
 * depends on the rest of the schedule is check_at's. */
static bool schedule_at(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, int i, tine_kdecl *f) {
    const tine_src *src = k->src;
    if (f->kind != K_FUNC) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' is the output; only the functions it reads can be computed at its loops",
             s->what, f->name);
        return false;
    }
    const tine_kdecl *g = tine_kernel_find(k, s->at);
    if (!g || (g->kind != K_FUNC && g->kind != K_OUTPUT)) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' is not a function of this kernel", s->what, s->at);
        return false;
    }
    if (g == f) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' cannot be computed inside its own loops", s->what, f->name);
        return false;
    }
    int d = 0;
    while (d < g->nargs && strcmp(g->args[d], s->dim)) d++;
    for (int j = 0; d == g->nargs && j < g->nloops; j++) /* a loop of g's reshaped nest (check_at) */
        if (!strcmp(g->loops[j].name, s->dim)) d = g->loops[j].dim;
    if (d == g->nargs) {
        tine_diag(ctx, src, s->line, s->col, "%s: '%s' has no coordinate or loop '%s' (a split's loops exist after the split "
             "directive)", s->what, g->name, s->dim);
        return false;
    }
    bool compute = !strcmp(s->what, "compute_at");
    if (compute ? f->at_sched : f->store_sched) {
        const tine_kdirective *o = &k->sched[(compute ? f->at_sched : f->store_sched) - 1];
        return tine_kdirective_again(ctx, s, o, "'%s' is already %s at %s.%s", f->name, compute ? "computed" : "stored", o->at,
                                     o->dim);
    }
    if (compute && f->mat_by) /* materialize and compute_root compute all of f before its readers */
        return tine_kdirective_again(ctx, s, f->mat_by, "'%s' is already computed whole, before the stages that read it",
                                     f->name);
    if (!compute) {
        f->store_dim = d;
        f->store_sched = i + 1;
        return true;
    }
    f->at = g->name;
    f->at_dim = d;
    f->at_sched = i + 1;
    return materialize(ctx, k, s, f);
}

/* How deep g's loop `name` is in its nest (0 the outermost): a loop of its reshaped
 * nest, or a coordinate's loop (a coordinate split or fused since: its outermost loop). */
static int loop_depth(const tine_kdecl *g, const char *name) {
    if (!g->nloops) {
        int d = 0;
        while (d < g->nargs && strcmp(g->args[d], name)) d++;
        return g->nargs - 1 - d;
    }
    int j = tine_kloops_find(g, name);
    if (j >= 0) return j;
    for (j = 0; j < g->nloops; j++) {
        const tine_kloop *l = &g->loops[j];
        if (!strcmp(g->args[l->dim], name) || (l->kind == TINE_KLOOP_FUSED && !strcmp(g->args[l->dim2], name))) return j;
    }
    return 0;
}

/* compute_at f g.y against the whole schedule: g is a stage whose rows run in order (not
 * tiled, not parallel), y a row coordinate, store_at (if given) at that level or outside
 * it. Whether g's reads of f slide along y is known once the stages are lowered
 * (kernel_slide.c). */
static bool check_at(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, const tine_kdecl *f) {
    const tine_src *src = k->src;
    const tine_kdecl *g = tine_kernel_find(k, f->at);
    if (g->kind == K_FUNC && !g->materialized) {
        tine_diag(ctx, src, s->line, s->col, "compute_at: '%s' is inlined into its callers; '%s' can be computed at the loops of "
             "the output or of a materialized function", g->name, f->name);
        return false;
    }
    if (f->at_dim == 0) {
        tine_diag(ctx, src, s->line, s->col, "compute_at: %s.%s is the first coordinate of '%s', whose loop is vectorized; compute "
             "'%s' at a row coordinate (%s.%s)", g->name, g->args[0], g->name, f->name, g->name, g->nargs > 1 ? g->args[1] : "y");
        return false;
    }
    if (g->tile[0] || g->parallel) {
        tine_diag(ctx, src, s->line, s->col, "compute_at: '%s' is %s; a sliding window needs its rows one after another, in order",
             g->name, g->tile[0] ? "tiled" : "parallel");
        return false;
    }
    if (f->store_sched) {
        const tine_kdirective *t = &k->sched[f->store_sched - 1];
        if (strcmp(t->at, g->name)) {
            tine_diag(ctx, src, t->line, t->col, "store_at: '%s' is computed at %s.%s, so its buffer belongs to a loop of '%s' "
                 "(%s.%s or one outside it), not of '%s'", f->name, g->name, s->dim, g->name, g->name, s->dim, t->at);
            return false;
        }
        if (loop_depth(g, t->dim) > loop_depth(g, s->dim)) {
            tine_diag(ctx, src, t->line, t->col, "store_at: %s.%s is inside the loop '%s' is computed at (%s.%s): its buffer would "
                 "be new at every row, so its rows could not slide", t->at, t->dim, f->name, g->name, s->dim);
            return false;
        }
    }
    return true;
}

/* compute_at f g.yo into g's reshaped nest: yo the outer loop of `split g.y yo yi N`
 * (strips of N rows; f's window for the whole strip is computed before its inner loops,
 * stmt/build.c), or g.y a whole row loop (f's rows per row, as in a nest not reshaped);
 * every loop outside it of coordinates after y (whose values stay put through a strip)
 * or the outer loop of a split of the first coordinate (channel tiles: f computed per
 * tile, kernel_slide.c), and every loop inside it of y, coordinates before it, or whole
 * or fused loops of later coordinates (f's reads must not depend on those: they run
 * inside the iteration the window is computed at). */
static bool check_at_strip(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdirective *s, const tine_kdecl *g) {
    if (!g->nloops) return true;
    int at = 0;
    while (at < g->nloops && strcmp(g->loops[at].name, s->dim)) at++;
    if (at == g->nloops || (g->loops[at].kind != TINE_KLOOP_OUTER && g->loops[at].kind != TINE_KLOOP_WHOLE) ||
        g->loops[at].dim == 0) {
        tine_diag(ctx, k->src, s->line, s->col, "compute_at: '%s' has its loops split, fused or reordered; a function can be "
             "computed there only at a whole row loop or the outer loop of a split of a row coordinate (split %s.y yo yi "
             "N, then compute_at %s %s.yo)", g->name, g->name, s->func, g->name);
        return false;
    }
    int d = g->loops[at].dim;
    for (int j = 0; j < g->nloops; j++) {
        const tine_kloop *l = &g->loops[j];
        int hi = l->kind == TINE_KLOOP_FUSED && l->dim2 > l->dim ? l->dim2 : l->dim;
        int lo = l->kind == TINE_KLOOP_FUSED && l->dim2 < l->dim ? l->dim2 : l->dim;
        bool ctile = l->kind == TINE_KLOOP_OUTER && l->dim == 0;
        /* a later coordinate's loop inside the row loop (reorder out.x out.c out.y: every
           channel per row) is fine when f's reads do not move with it; kernel_slide.c
           treats such coordinates as varying within the row and refuses reads that do */
        if (j == at || (j < at ? lo > d || ctile : hi <= d || lo > d)) continue;
        tine_diag(ctx, k->src, s->line, s->col, "compute_at: the loop %s.%s is %s %s.%s; the rows of %s.%s need the loops of "
             "earlier coordinates inside them (later coordinates' loops on either side, channel tiles, a split's outer loop of "
             "%s.%s, outside)",
             g->name, l->name, j < at ? "outside" : "inside", g->name, s->dim, g->name, s->dim, g->name, g->args[0]);
        return false;
    }
    for (int j = 0; j < g->nloops; j++)
        if (g->loops[j].parallel) {
            tine_diag(ctx, k->src, s->line, s->col, "compute_at: %s.%s is parallel; a sliding window's strips run one after "
                 "another, in order", g->name, g->loops[j].name);
            return false;
        }
    return true;
}

static bool check(tine_ctx_t *ctx, tine_kernel_t *kn) {
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
    if (!check_calls(ctx, kn)) return false;
    if (k->auto_sched) tine_autoschedule(ctx, &kn->arena, k); /* the directives to check and apply */
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        tine_kdecl *f = (tine_kdecl *)tine_kernel_find(k, s->func);
        if (!f || (f->kind != K_FUNC && f->kind != K_OUTPUT)) {
            tine_diag(ctx, src, s->line, s->col, "%s: '%s' is not a function of this kernel", s->what, s->func);
            return false;
        }
        if (s->at) {
            if (!schedule_at(ctx, k, s, i, f)) return false;
            continue;
        }
        if (!strcmp(s->what, "split") || !strcmp(s->what, "fuse") || !strcmp(s->what, "reorder")) {
            if (!tine_kloops_directive(ctx, s, f)) return false;
            continue;
        }
        if (!strcmp(s->what, "store_as")) {
            if (!store_as(ctx, k, s, i, f)) return false;
            continue;
        }
        if (!strcmp(s->what, "inline")) { /* the default, made explicit: check_inline */
            if (f->kind == K_OUTPUT) {
                tine_diag(ctx, src, s->line, s->col, "inline: '%s' is the output; it is always computed into its buffer", f->name);
                return false;
            }
            if (f->inline_by) return tine_kdirective_again(ctx, s, f->inline_by, "'%s' is already inlined", f->name);
            f->inlined = true;
            f->inline_by = s;
            continue;
        }
        if (!strcmp(s->what, "tile") && f->tile_by && (!strcmp(s->dim, f->tile_by->dim) || !strcmp(s->dim, f->tile_by->dim2) ||
                                                      !strcmp(s->dim2, f->tile_by->dim) || !strcmp(s->dim2, f->tile_by->dim2)))
            return tine_kdirective_again(ctx, s, f->tile_by, "%s.%s and %s.%s are already tiled", f->name, f->tile_by->dim,
                                         f->name, f->tile_by->dim2);
        if (!strcmp(s->what, "tile") && !f->tile_by) f->tile_by = s;
        if (f->nloops && s->dim && strcmp(s->what, "tile")) { /* a loop of a reshaped nest */
            bool handled;
            if (!tine_kloops_apply(ctx, s, f, &handled)) return false;
            if (handled) continue;
        }
        if (!strcmp(s->what, "tile") && (f->nloops || f->nargs < 2 || strcmp(s->dim, f->args[0]) ||
                                         strcmp(s->dim2, f->args[1]))) { /* not build.c's own tiles */
            if (!tine_kloops_tile(ctx, &kn->arena, s, f)) return false;
            continue;
        }
        bool coord = false;
        for (int j = 0; s->dim && j < f->nargs; j++) coord |= !strcmp(f->args[j], s->dim);
        if (!strcmp(s->what, "vectorize") && !coord) continue; /* a reduction's variable: see rvec_directives */
        if (s->dim) {
            bool found = coord;
            if (!found) {
                tine_diag(ctx, src, s->line, s->col, "%s: '%s' has no coordinate '%s'", s->what, s->func, s->dim);
                return false;
            }
        }
        if (!strcmp(s->what, "vectorize") && s->n2) {
            tine_diag(ctx, src, s->acc_line, s->acc_col,
                      "vectorize: acc sets the accumulator of a vectorized reduction; '%s' is a coordinate of '%s'", s->dim,
                      s->func);
            return false;
        }
        if (!strcmp(s->what, "vectorize")) {
            if (strcmp(s->dim, f->args[0])) {
                tine_diag(ctx, src, s->line, s->col, "only the first coordinate of a function (%s.%s) can be vectorized so far",
                     f->name, f->args[0]);
                return false;
            }
            if (s->n && (s->n & (s->n - 1))) {
                tine_diag(ctx, src, s->line, s->col, "the vector width must be a power of two, not %d", s->n);
                return false;
            }
            if (f->lanes_by)
                return tine_kdirective_again(ctx, s, f->lanes_by, "'%s' is already given its vector width", f->name);
            f->lanes = s->n; /* 0: natural, chosen from the element type */
            f->lanes_by = s;
        } else if (!strcmp(s->what, "materialize") || !strcmp(s->what, "compute_root")) {
            if (f->kind == K_OUTPUT) {
                tine_diag(ctx, src, s->line, s->col, "%s: '%s' is the output; it is always computed into its buffer", s->what,
                     f->name);
                return false;
            }
            if (f->at_sched)
                return tine_kdirective_again(ctx, s, &k->sched[f->at_sched - 1], "'%s' is already computed at %s.%s, a few "
                                             "rows at a time", f->name, f->at, k->sched[f->at_sched - 1].dim);
            if (f->mat_by) return tine_kdirective_again(ctx, s, f->mat_by, "'%s' is already computed whole", f->name);
            if (!materialize(ctx, k, s, f)) return false;
            f->mat_by = s;
        } else if (!strcmp(s->what, "unroll")) {
            int d = 0;
            while (strcmp(f->args[d], s->dim)) d++;
            if (f->unroll_by[d]) return tine_kdirective_again(ctx, s, f->unroll_by[d], "%s.%s is already unrolled", f->name, s->dim);
            f->unroll[d] = s->n;
            f->unroll_by[d] = s;
        } else if (!strcmp(s->what, "tile")) { /* the first two coordinates, in order (above) */
            f->tile[0] = s->n;
            f->tile[1] = s->n2;
        } else if (!strcmp(s->what, "parallel")) {
            /* the last coordinate's loop is the outermost: its iterations write disjoint
               rows (or, in one dimension, blocks) of the stage's buffer */
            if (strcmp(s->dim, f->args[f->nargs - 1])) {
                tine_diag(ctx, src, s->line, s->col, "parallel: only the last coordinate of '%s' (%s.%s) can run in parallel so far",
                     f->name, f->name, f->args[f->nargs - 1]);
                return false;
            }
            if (f->parallel_by) return tine_kdirective_again(ctx, s, f->parallel_by, "%s.%s is already parallel", f->name, s->dim);
            f->parallel = true;
            f->parallel_by = s;
        } else if (!strcmp(s->what, "partition")) {
            int d = 0;
            while (strcmp(f->args[d], s->dim)) d++;
            if (f->partition_by[d])
                return tine_kdirective_again(ctx, s, f->partition_by[d], "%s.%s is already given a partition mode", f->name,
                                             s->dim);
            f->partition[d] = 1 + s->n;
            f->partition_by[d] = s;
        } else {
            tine_diag(ctx, src, s->line, s->col, "the '%s' directive is not supported by the loop lowering yet", s->what);
            return false;
        }
    }
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        const tine_kdecl *f = tine_kernel_find(k, s->func);
        if (s->at && !strcmp(s->what, "compute_at") && !check_at(ctx, k, s, f)) return false;
        if (!strcmp(s->what, "store_at") && !f->at_sched) {
            tine_diag(ctx, src, s->line, s->col, "store_at: '%s' has no compute_at; store_at says where the buffer of a function "
                 "computed at a loop lives (give compute_at %s %s.%s too)", f->name, f->name, s->at, s->dim);
            return false;
        }
        if (!strcmp(s->what, "inline") && f->materialized) {
            int j = 0;
            while (j < k->nsched && (strcmp(k->sched[j].func, f->name) ||
                                     (strcmp(k->sched[j].what, "materialize") && strcmp(k->sched[j].what, "compute_root") &&
                                      strcmp(k->sched[j].what, "compute_at"))))
                j++;
            tine_diag(ctx, src, s->line, s->col, "inline: '%s' is also computed into a buffer of its own (%s at line %d); a "
                 "function is either inlined or materialized", f->name, j < k->nsched ? k->sched[j].what : "materialize",
                 j < k->nsched ? k->sched[j].line : s->line);
            return false;
        }
        if (!strcmp(s->what, "inline")) continue;
        if (s->at && !strcmp(s->what, "compute_at") && !check_at_strip(ctx, k, s, tine_kernel_find(k, f->at)))
            return false;
        bool par = !strcmp(s->what, "parallel");
        if (f->kind == K_FUNC && f->at_sched && (par || !strcmp(s->what, "tile"))) {
            tine_diag(ctx, src, s->line, s->col, "%s: '%s' is computed at %s.%s a few rows at a time; it cannot also be %s",
                 s->what, f->name, f->at, k->sched[f->at_sched - 1].dim, par ? "parallel" : "tiled");
            return false;
        }
        if (!strcmp(s->what, "store_as") && !f->materialized) {
            tine_diag(ctx, src, s->line, s->col, "store_as: '%s' is inlined into its callers and has no buffer; materialize it "
                 "(or compute_root, compute_at) to choose what its buffer stores", f->name);
            return false;
        }
        if (strcmp(s->what, "materialize") && f->kind == K_FUNC && !f->materialized) {
            tine_diag(ctx, src, s->line, s->col, "%s: '%s' is inlined into its callers; materialize it to %s it on its own",
                 s->what, f->name, s->what);
            return false;
        }
        if (s == f->lanes_by && f->kind == K_FUNC && f->at_sched && f->nargs == 1 && s->n != 1) {
            tine_diag(ctx, src, s->line, s->col, "vectorize: '%s' is computed at %s.%s one value per row: its only coordinate, "
                      "%s.%s, is the rows, which are never vectors; vectorize a loop reduction in it instead (vectorize "
                      "%s.k N, k the reduction's variable)", f->name, f->at, k->sched[f->at_sched - 1].dim, f->name,
                      f->args[0], f->name);
            return false;
        }
        if (!strcmp(s->what, "unroll") && f->tile[0] && f->unroll[1] > 1) {
            tine_diag(ctx, src, s->line, s->col, "%s: '%s' is tiled; its second coordinate cannot also be unrolled", s->what,
                 f->name);
            return false;
        }
    }
    return true;
}

static void build_scalars(tine_kernel_t *k);

/* ---- lowering --------------------------------------------------------------------------- */

static tine_expr_t *lower_at(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *o, int lanes, tine_reductions *rs,
                             const char *c0);

/* The body of function f at `lanes` lanes: its first coordinate a ramp from $.c0, the
 * others broadcasts of $.c1..; materialized functions it calls are loads. */
static tine_expr_t *lower(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *o, int lanes, tine_reductions *rs) {
    return lower_at(ctx, kn, o, lanes, rs, NULL);
}

/* As lower, with coordinate 0 the variable c0 (broadcast) when c0 is not NULL: the
 * bodies of a vectorized reduction (tine_rvec), computed for one point at a time. */
static tine_expr_t *lower_at(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *o, int lanes, tine_reductions *rs,
                             const char *c0) {
    tine_binding binds[4];
    tine_type_t i32 = tine_type(TINE_INT, 32, 1);
    for (int i = 0; i < o->nargs; i++) {
        char vn[16];
        snprintf(vn, sizeof vn, "$.c%d", i);
        tine_expr_t *c = tine_var(ctx, i == 0 && c0 ? c0 : vn, i32);
        binds[i].name = o->args[i];
        binds[i].expr = i == 0 && !c0 ? tine_ramp(ctx, c, tine_const_int(ctx, i32, 1), lanes) : tine_broadcast(ctx, c, lanes);
    }
    rs->n = 0;
    rs->current = -1;
    tine_expr_t *e = tine_kernel_elaborate(ctx, &kn->ast, o->body, binds, o->nargs, lanes, rs);
    if (!e || o->kind != K_OUTPUT) return e;
    tine_type_t t;
    tine_parse_type_name(o->type->name, strlen(o->type->name), &t);
    if (e->type.kind != t.kind || e->type.bits != t.bits) {
        char a[32], b[32];
        tine_diag(ctx, kn->ast.src, o->type->line, o->type->col, "output '%s' is declared %s but its definition is %s", o->name,
             tine_type_name(t, a), tine_type_name(e->type, b));
        return NULL;
    }
    return e;
}

/* Whether reduction i of rs is `top` or nested in it. */
static bool inside(const tine_reductions *rs, int i, int top) {
    while (i >= 0 && i != top) i = rs->v[i].parent;
    return i == top;
}

/* The variable a vectorized reduction's terms read that its loop does not bind (the
 * result of another loop reduction, through a let), or NULL: each lane's loop computes
 * only its own reduction. */
static const char *rvec_foreign(tine_ctx_t *ctx, const tine_reductions *rs, int top) {
    const char *bad = NULL;
    for (int i = 0; i < rs->n && !bad; i++) {
        if (!inside(rs, i, top)) continue;
        tine_expr_t *roots[3] = {rs->v[i].update, rs->v[i].lo, rs->v[i].hi};
        for (int r = 0; r < 3 && !bad; r++) {
            uint32_t n;
            tine_expr_t **order = tine_topo(ctx, roots[r], &n);
            for (uint32_t j = 0; j < n && !bad; j++) {
                if (order[j]->op != TINE_OP_VAR) continue;
                const char *nm = tine_expr_name(order[j]);
                int x;
                char tail;
                if ((sscanf(nm, "$.red%d%c", &x, &tail) == 1 || sscanf(nm, "$.acc%d%c", &x, &tail) == 1 ||
                     sscanf(nm, "$.r%d%c", &x, &tail) == 1) &&
                    (x - rs->base < 0 || x - rs->base >= rs->n || !inside(rs, x - rs->base, top)))
                    bad = nm;
            }
            free(order);
        }
    }
    return bad;
}

/* The loop reduction nested in reduction `top` of rs whose bounds read top's variable, or
 * -1: vectorized, that variable is a vector, and a loop's bounds are one lane. */
static int rvec_bound_user(tine_ctx_t *ctx, const tine_reductions *rs, int top) {
    for (int i = 0; i < rs->n; i++) {
        if (i == top || !inside(rs, i, top)) continue;
        tine_expr_t *roots[2] = {rs->v[i].lo, rs->v[i].hi};
        for (int r = 0; r < 2; r++) {
            uint32_t n;
            tine_expr_t **order = tine_topo(ctx, roots[r], &n);
            bool hit = false;
            for (uint32_t j = 0; j < n && !hit; j++) hit = order[j] == rs->v[top].r;
            free(order);
            if (hit) return i;
        }
    }
    return -1;
}

/* The schedule's `vectorize f.k N` of stage st (d), k a loop reduction's variable: the
 * reduction found by name among the stage's (inlined functions included) and its bodies
 * elaborated for tine_rvec. Integer sums wrap and min and max are exact, so running the
 * terms in another order gives the same result; floats would not. */
static bool rvec_directives(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *d, tine_stage *st) {
    const tine_kernel_ast *k = &kn->ast;
    for (int i = 0; i < k->nsched; i++) {
        const tine_kdirective *s = &k->sched[i];
        if (strcmp(s->what, "vectorize") || strcmp(s->func, d->name)) continue;
        bool coord = false;
        for (int j = 0; j < d->nargs; j++) coord |= !strcmp(d->args[j], s->dim);
        if (coord || tine_kloops_find(d, s->dim) >= 0) continue; /* a coordinate's loop: check()'s */
        int found = -1, count = 0;
        for (int j = 0; j < st->reds1.n; j++)
            if (!strcmp(st->reds1.v[j].name, s->dim)) {
                if (found < 0) found = j;
                count++;
            }
        if (count == 0) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: '%s' has no coordinate '%s' and no loop reduction over '%s' (a reduction with constant "
                 "bounds is unrolled)", d->name, s->dim, s->dim);
            return false;
        }
        if (count > 1) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: '%s' has %d loop reductions over '%s' (through the functions it calls); rename the "
                 "variables or materialize a function so that the name says which", d->name, count, s->dim);
            return false;
        }
        const tine_reduction *R = &st->reds1.v[found];
        if (R->parent >= 0) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the reduction over '%s' is inside another loop reduction (over '%s'); only an outermost "
                 "one can be vectorized so far", s->dim, st->reds1.v[R->parent].name);
            return false;
        }
        int user = rvec_bound_user(ctx, &st->reds1, found);
        if (user >= 0) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the bounds of the reduction over '%s' nested in it read '%s', which vectorizing makes a "
                 "vector; a loop's bounds must be one value", st->reds1.v[user].name, s->dim);
            return false;
        }
        tine_type_t T = R->acc->type;
        if (T.kind == TINE_FLOAT) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the reduction over '%s' is of floats, whose result depends on the order of its terms", s->dim);
            return false;
        }
        if (s->n & (s->n - 1)) {
            tine_diag(ctx, k->src, s->line, s->col, "the vector width must be a power of two, not %d", s->n);
            return false;
        }
        for (int j = 0; j < st->nrvec; j++)
            if (st->rvec[j].index == found) {
                int first = 0; /* the directive that vectorized it */
                while (strcmp(k->sched[first].what, "vectorize") || strcmp(k->sched[first].func, d->name) ||
                       strcmp(k->sched[first].dim, s->dim))
                    first++;
                return tine_kdirective_again(ctx, s, &k->sched[first], "%s.%s is already vectorized", d->name, s->dim);
            }
        int N = s->n ? s->n : 256 / T.bits;
        if (!st->rvec) {
            st->rvec = calloc((size_t)k->nsched, sizeof *st->rvec);
            TINE_CHECK_ALLOC(st->rvec != NULL);
        }
        /* the accumulator fills one 256-bit vector at most: a sum of N terms per step
           adds N / acc adjacent terms per lane first (pmaddwd, vpdpbusd, psadbw); `acc A`
           chooses A lanes (Neon's SMLAL accumulates each product in a lane of its own) */
        int A = R->op == TINE_OP_ADD && N > 256 / T.bits ? 256 / T.bits : N;
        if (s->n2 && R->op != TINE_OP_ADD) {
            tine_diag(ctx, k->src, s->acc_line, s->acc_col,
                      "vectorize: acc sets a sum's accumulator; the reduction over '%s' is not a sum", s->dim);
            return false;
        }
        if (s->n2 && (s->n2 > N || N % s->n2 || (s->n2 & (s->n2 - 1)))) {
            tine_diag(ctx, k->src, s->acc_line, s->acc_col,
                      "vectorize: the accumulator's lanes must be a power of two that divides the %d terms per step, "
                      "not %d", N, s->n2);
            return false;
        }
        if (s->n2) A = s->n2;
        tine_rvec *v = &st->rvec[st->nrvec++];
        v->index = found;
        v->lanes = N;
        v->acc = A;
        v->vec.base = v->tail.base = st->reds1.base;
        v->vec.vector = found + 1;
        if (!lower_at(ctx, kn, d, N, &v->vec, "$.x0") || !lower_at(ctx, kn, d, 1, &v->tail, "$.x0")) return false;
        TINE_ASSERT(v->vec.n == st->reds1.n && v->tail.n == st->reds1.n);
        if (rvec_foreign(ctx, &v->vec, found)) {
            tine_diag(ctx, k->src, s->line, s->col,
                 "vectorize: the terms of the reduction over '%s' read the result of another loop reduction; "
                 "materialize a function so that they read its buffer", s->dim);
            return false;
        }
    }
    return true;
}

/* The element type a materialized function's buffer stores: the narrowest integer type of
 * at most its own width that holds every value its body can take (bounds analysis), so that
 * a vertical pass of a stencil whose i32 sums stay below 2^16 keeps u16 rows (half the
 * memory traffic, twice the lanes per load); its readers widen what they load. */
static tine_type_t storage_type(tine_ctx_t *ctx, const tine_expr_t *body1) {
    tine_type_t t = tine_type_with_lanes(body1->type, 1);
    tine_i128 lo, hi;
    if (t.kind != TINE_INT && t.kind != TINE_UINT) return t;
    if (!tine_bounds(ctx, body1, &lo, &hi)) return t;
    for (int bits = 8; bits < t.bits; bits *= 2) {
        tine_type_t u = tine_type(TINE_UINT, bits, 1), s = tine_type(TINE_INT, bits, 1);
        if (lo >= 0 && hi < ((tine_i128)1 << bits)) return u;
        if (lo >= -((tine_i128)1 << (bits - 1)) && hi < ((tine_i128)1 << (bits - 1))) return s;
    }
    return t;
}

static tine_i128 type_min(tine_type_t t) { return t.kind == TINE_UINT ? 0 : -((tine_i128)1 << (t.bits - 1)); }
static tine_i128 type_max(tine_type_t t) { return ((tine_i128)1 << (t.bits - (t.kind == TINE_UINT ? 0 : 1))) - 1; }

/* `store_as f T`: T instead of storage_type's choice (a u8 copy of an image whose
 * readers compute in i16 widens at every tap; stored as i16 it is loaded as is). Exact
 * only when every value of f fits T: by bounds analysis, or else f's whole type does. */
static bool stored_as(tine_ctx_t *ctx, const tine_kernel_ast *k, const tine_kdecl *d, const tine_expr_t *body1,
                      tine_type_t *out) {
    tine_type_t t = tine_type_with_lanes(body1->type, 1), st = d->store_as;
    const tine_kdirective *s = &k->sched[d->store_as_sched - 1];
    tine_i128 lo = type_min(t), hi = type_max(t);
    if (t.kind != TINE_INT && t.kind != TINE_UINT) {
        tine_diag(ctx, k->src, s->line, s->col, "store_as: the values of '%s' are not integers; its buffer stores them as they are",
             d->name);
        return false;
    }
    tine_i128 blo, bhi;
    if (tine_bounds(ctx, body1, &blo, &bhi)) lo = blo, hi = bhi; /* unknown: the type's whole range */
    if (!tine_fits(st, lo) || !tine_fits(st, hi)) {
        char tb[16], los[48], his[48];
        tine_i128_str(lo, los);
        tine_i128_str(hi, his);
        tine_diag(ctx, k->src, s->line, s->col, "store_as: '%s' (%s) takes values in [%s, %s], which %s does not hold; "
             "stored as it, they would change", d->name, tine_type_name(t, tb), los, his, s->name);
        return false;
    }
    *out = st;
    return true;
}

/* Unrolled points of a stage with loop reductions (none vectorized) share one loop nest,
 * an accumulator each (stmt/build.c, unroll-and-jam): at most TINE_KLIMIT_JAM of them
 * (code size, and registers long before). The error is at the stage's last unroll. */
static bool jam_limit(tine_ctx_t *ctx, tine_kernel_t *kn, const tine_kdecl *d, const tine_stage *st) {
    if (st->reds1.n == 0 || st->nrvec > 0 || st->reshaped) return true; /* see jams() */
    int u0 = tine_kloop_unroll(tine_stage_loop(st, 0));
    int n = u0 * (st->dims > 1 && !st->tile[0] ? tine_kloop_unroll(tine_stage_loop(st, 1)) : 1);
    if (n <= TINE_KLIMIT_JAM) return true;
    const tine_kernel_ast *k = &kn->ast;
    const tine_kdirective *at = NULL;
    for (int i = 0; i < k->nsched; i++)
        if (!strcmp(k->sched[i].what, "unroll") && !strcmp(k->sched[i].func, d->name)) at = &k->sched[i];
    TINE_ASSERT(at != NULL);
    tine_diag(ctx, k->src, at->line, at->col,
         "unroll: '%s' would compute %d points together (%d x %d), each with its own accumulators of the loop "
         "reductions; at most %d", d->name, n, u0, n / u0, TINE_KLIMIT_JAM);
    return false;
}

/* One stage: the body at one lane first (its errors name element types, u8, not vectors,
 * u8x32), which gives the element type and so the natural width (one 256-bit vector). */
static bool lower_stage(tine_ctx_t *ctx, tine_kernel_t *kn, tine_kdecl *d) {
    tine_stage *st = &kn->stages[kn->nstages];
    memset(st, 0, sizeof *st);
    /* loop variables of different stages are different nodes: a stage's loop ranges (its
       bounds facts while a run is planned) can never be taken for another stage's */
    for (int i = 0; i < kn->nstages; i++) st->reds1.base += kn->stages[i].reds1.n;
    st->reds.base = st->reds1.base;
    if (!(st->body1 = lower(ctx, kn, d, 1, &st->reds1))) return false;
    if (st->body1->type.kind == TINE_BOOL) {
        tine_diag(ctx, kn->ast.src, d->line, d->col, "'%s' is a condition (bool); materialize values, as in u8(c)", d->name);
        return false;
    }
    st->name = d->name;
    tine_type_t vt = tine_type_with_lanes(st->body1->type, 1);
    st->type = d->kind == K_FUNC ? storage_type(ctx, st->body1) : vt;
    if (d->store_as_sched && !stored_as(ctx, &kn->ast, d, st->body1, &st->type)) return false;
    st->dims = d->nargs;
    for (int i = 0; i < d->nargs; i++) st->coord[i] = d->args[i];
    st->lanes = d->lanes ? d->lanes : 256 / vt.bits;
    /* a function of one coordinate computed at a loop: that coordinate is its rows,
       computed one value each (check(): never vectorized) */
    if (d->kind == K_FUNC && d->at_sched && d->nargs == 1) st->lanes = 1;
    st->tile[0] = d->tile[0];
    st->tile[1] = d->tile[1];
    st->nloops = tine_kloops_of(d, st->loops);
    st->reshaped = d->nloops > 0;
    if (!(st->body = lower(ctx, kn, d, st->lanes, &st->reds))) return false;
    if (!rvec_directives(ctx, kn, d, st)) return false;
    if (st->type.bits != vt.bits || st->type.kind != vt.kind) {
        st->body = tine_cast(ctx, st->type, st->body);
        st->body1 = tine_cast(ctx, st->type, st->body1);
    }
    if (!jam_limit(ctx, kn, d, st)) return false;
    uint32_t nodes;
    free(tine_topo(ctx, st->body, &nodes)); /* code generation is superlinear in a body's size */
    if (nodes > TINE_KLIMIT_NODES) {
        tine_diag(ctx, kn->ast.src, d->line, d->col,
             "'%s' has %u operations once the functions it calls are inlined; a stage has at most %d "
             "(materialize some of the functions it calls, or split it)", d->name, nodes, TINE_KLIMIT_NODES);
        return false;
    }
    d->mtype = st->type;
    d->vtype = vt;
    kn->sdecl[kn->nstages++] = d;
    return true;
}

/* The stages: materialized functions in an order where each comes after those it reads
 * (directly or through inlined functions), then the output. */
static bool lower_all(tine_ctx_t *ctx, tine_kernel_t *kn) {
    tine_kernel_ast *k = &kn->ast;
    kn->cap = 1;
    for (int i = 0; i < k->ndecls; i++) kn->cap += k->decls[i].materialized;
    kn->stages = calloc((size_t)kn->cap, sizeof *kn->stages);
    kn->sdecl = calloc((size_t)kn->cap, sizeof *kn->sdecl);
    TINE_CHECK_ALLOC(kn->stages && kn->sdecl);
    for (;;) {
        tine_kdecl *next = NULL;
        for (int i = 0; i < k->ndecls && !next; i++) {
            tine_kdecl *d = &k->decls[i];
            bool done = false, ready = d->materialized;
            for (int s = 0; s < kn->nstages; s++) done |= kn->sdecl[s] == d;
            for (int j = 0; j < k->ndecls && ready && !done; j++) {
                const tine_kdecl *e = &k->decls[j];
                bool lowered = false;
                for (int s = 0; s < kn->nstages; s++) lowered |= kn->sdecl[s] == e;
                if (e != d && e->materialized && !lowered && reaches(kn, d, e)) ready = false;
            }
            if (ready && !done) next = d;
        }
        if (!next) break;
        if (!lower_stage(ctx, kn, next)) return false;
    }
    return lower_stage(ctx, kn, (tine_kdecl *)kn->out);
}

/* ---- what the schedule multiplies ------------------------------------------------------ */

/* The unroll directives a stage's code is copied by, and the product of their factors
 * (saturated: 64^8 per stage along a chain of 17 would not fit). */
typedef struct {
    const tine_kdirective *by[TINE_KLOOPS_MAX * TINE_KERNEL_MAX_STAGES];
    int n;
    int64_t times;
} unrolls;

static void add_unroll(unrolls *u, int factor, const tine_kdirective *by) {
    if (factor <= 1) return;
    TINE_ASSERT(by != NULL && u->n < (int)(sizeof u->by / sizeof *u->by));
    u->by[u->n++] = by;
    u->times = u->times > ((int64_t)1 << 40) ? u->times : u->times * factor;
}

/* The unrolls of stage s's own loops (a loop reduction's points jammed are copies too). */
static void own_unrolls(const tine_kernel_t *kn, int s, unrolls *u) {
    const tine_stage *st = &kn->stages[s];
    for (int j = 0; st->reshaped && j < st->nloops; j++) add_unroll(u, st->loops[j].unroll, st->loops[j].unroll_by);
    for (int d = 0; !st->reshaped && d < st->dims; d++) /* coordinate by coordinate, the first first */
        add_unroll(u, tine_stage_loop(st, d)->unroll, tine_stage_loop(st, d)->unroll_by);
}

/* The unrolls around stage s's nest: none at the root; for a stage computed at stage g's
 * loop, those of g's loops at and outside it (stmt/build.c builds s's nest in every
 * unrolled copy of them) and those around g's own nest. */
static void enclosing_unrolls(const tine_kernel_t *kn, int s, unrolls *u) {
    const tine_stage *st = &kn->stages[s];
    if (!st->fold) return;
    const tine_stage *g = &kn->stages[st->at];
    enclosing_unrolls(kn, st->at, u);
    const char *at = kn->ast.sched[kn->sdecl[s]->at_sched - 1].dim;
    for (int j = 0; j < g->nloops; j++) { /* g's loops from the outermost to the one s is at */
        add_unroll(u, g->loops[j].unroll, g->loops[j].unroll_by);
        if (!strcmp(g->loops[j].name, at)) break;
    }
}

static int by_place(const void *a, const void *b) {
    const tine_kdirective *x = *(const tine_kdirective *const *)a, *y = *(const tine_kdirective *const *)b;
    return x->line != y->line ? (x->line > y->line) - (x->line < y->line) : (x->col > y->col) - (x->col < y->col);
}

/* The code the schedule makes of each stage: the operations of its body (as the limit on
 * one body counts them, TINE_KLIMIT_NODES) times the unrolls it is copied by, at most
 * TINE_KLIMIT_UNROLLED = 2 * TINE_KLIMIT_NODES, so that the automatic scheduler's
 * schedules always fit (it unrolls by 2 rows at most, and never a stage computed at
 * another's loop, so nothing is copied more than twice). Known before any
 * statement is built: a schedule that would take minutes to compile is refused at once.
 * The error is at the last of the unrolls and names them all. */
static bool unrolled_limit(tine_ctx_t *ctx, const tine_kernel_t *kn) {
    for (int s = 0; s < kn->nstages; s++) {
        const tine_stage *st = &kn->stages[s];
        unrolls u = {.times = 1};
        enclosing_unrolls(kn, s, &u);
        own_unrolls(kn, s, &u);
        if (u.n == 0) continue; /* not multiplied: the limit on a body's operations is the one */
        uint32_t n;
        free(tine_topo(ctx, st->body, &n));
        int64_t ops = n;
        if (ops * u.times <= TINE_KLIMIT_UNROLLED) continue;
        qsort(u.by, (size_t)u.n, sizeof *u.by, by_place);
        tine_buf b = {0};
        for (int i = 0; i < u.n; i++) {
            if (i) tine_buf_puts(&b, " x ");
            tine_directive_print(u.by[i], &b);
            tine_buf_printf(&b, " at %d:%d", u.by[i]->line, u.by[i]->col);
        }
        const tine_kdirective *at = u.by[u.n - 1];
        tine_diag(ctx, at->src, at->line, at->col,
                  "%s: the schedule makes stage '%s' %lld operations, %lld copied %lld times (%s); at most %d once "
                  "unrolled (unroll less, or materialize some of the functions it calls)", at->what, st->name,
                  (long long)(ops * u.times), (long long)ops, (long long)u.times, b.p, TINE_KLIMIT_UNROLLED);
        tine_error_set_kind(ctx, TINE_ERROR_LIMIT);
        free(b.p);
        return false;
    }
    return true;
}

/* A kernel from its text. Under schedule auto, a choice the checks refuse (a sliding
 * window or a vectorized reduction whose conditions the scheduler did not foresee) is not
 * the user's error: the kernel is made again with the plainer directives only, and an
 * error then is the kernel's own. */
static tine_kernel_t *parse_for(tine_ctx_t *ctx, const char *text, const char *file, const char *isa) {
    for (int level = 0; level < 2; level++) {
        tine_kernel_t *kn = calloc(1, sizeof *kn);
        TINE_CHECK_ALLOC(kn != NULL);
        kn->ctx = ctx;
        if (tine_parse_kernel(ctx, &kn->arena, text, file, &kn->ast) != 0 || !tine_kernel_on_check(ctx, &kn->ast)) {
            tine_kernel_free(kn);
            return NULL;
        }
        tine_kernel_on_filter(&kn->ast, isa);
        kn->ast.auto_level = level;
        if (check(ctx, kn) && lower_all(ctx, kn) && tine_kernel_slide(ctx, &kn->ast, kn->stages, kn->sdecl, kn->nstages) &&
            unrolled_limit(ctx, kn)) {
            build_scalars(kn);
            return kn;
        }
        bool retry = kn->ast.auto_sched && level == 0;
        tine_kernel_free(kn);
        if (!retry) return NULL;
    }
    return NULL;
}

/* The kernel for every target, with one more per instruction set its `on` lines name. */
static tine_kernel_t *kernel_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *k = parse_for(ctx, text, file, NULL);
    for (int i = 0; k && i < k->ast.non; i++) {
        tine_kernel_t *v = parse_for(ctx, text, file, k->ast.on[i].isa);
        if (!v) {
            tine_kernel_free(k);
            return NULL;
        }
        k->isa[k->nvariants] = k->ast.on[i].isa;
        k->variant[k->nvariants++] = v;
    }
    return k;
}

tine_kernel_t *tine_kernel_parse(tine_ctx_t *ctx, const char *text, const char *file) {
    tine_kernel_t *k;
    TINE_GUARD(ctx, NULL, k, kernel_parse(ctx, text, file));
    return k;
}

tine_kernel_t *tine_kernel_parse_common(tine_ctx_t *ctx, const char *text, const char *file) {
    return parse_for(ctx, text, file, NULL);
}

int tine_kernel_has_own(const tine_kernel_t *k, const char *target) {
    return tine_kernel_for_target((tine_kernel_t *)k, target) != k;
}

tine_kernel_t *tine_kernel_for_target(tine_kernel_t *k, const char *target) {
    const tine_target_info *t = k ? tine_target_find(target ? target : "host") : NULL;
    for (int i = 0; t && i < k->nvariants; i++)
        if (!strcmp(k->isa[i], t->isa)) return k->variant[i];
    return k;
}

void tine_kernel_free(tine_kernel_t *k) {
    if (!k) return;
    for (int i = 0; i < k->nvariants; i++) tine_kernel_free(k->variant[i]);
    for (int i = 0; i < k->cap; i++) {
        free(k->stages[i].reds.v);
        free(k->stages[i].reds1.v);
        for (int j = 0; j < k->stages[i].nrvec; j++) {
            free(k->stages[i].rvec[j].vec.v);
            free(k->stages[i].rvec[j].tail.v);
        }
        free(k->stages[i].rvec);
    }
    free(k->stages);
    free(k->sdecl);
    free(k->ks);
    tine_arena_free(&k->arena);
    free(k->reach);
    free(k);
}

int tine_kernel_lanes(const tine_kernel_t *k) { return last(k)->lanes; }
const tine_expr_t *tine_kernel_body(const tine_kernel_t *k, int scalar) { return scalar ? last(k)->body1 : last(k)->body; }
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

static int cmp_ks(const void *a, const void *b) {
    uint32_t x = ((const tine_kscalar *)a)->var->id, y = ((const tine_kscalar *)b)->var->id;
    return x < y ? -1 : x > y;
}

/* The table: every parameter, and min, extent and stride of every dimension of every
 * input and every stage's buffer. */
static void build_scalars(tine_kernel_t *k) {
    int nin = tine_kernel_ninputs(k), np = tine_kernel_nparams(k), n = np;
    for (int i = 0; i < nin; i++) n += 3 * nth(k, K_INPUT, i)->dims;
    for (int s = 0; s < k->nstages; s++) n += 3 * k->stages[s].dims;
    k->ks = calloc((size_t)n + 1, sizeof *k->ks);
    TINE_CHECK_ALLOC(k->ks != NULL);
    for (int i = 0; i < np; i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(k, i, &t);
        k->ks[k->nks++] = (tine_kscalar){tine_kernel_param_var(k->ctx, name, t), TINE_KS_PARAM, i, -1, -1, 0};
    }
    for (int b = 0; b < nin + k->nstages; b++) {
        const char *name = b < nin ? nth(k, K_INPUT, b)->name : k->stages[b - nin].name;
        int dims = b < nin ? nth(k, K_INPUT, b)->dims : k->stages[b - nin].dims;
        for (int w = TINE_KS_MIN; w <= TINE_KS_STRIDE; w++)
            for (int d = 0; d < dims; d++)
                k->ks[k->nks++] = (tine_kscalar){tine_kernel_geometry_var(k->ctx, name, (tine_ks_what)w, d), (tine_ks_what)w,
                                                 -1, b < nin ? b : -1, b < nin ? -1 : b - nin, d};
    }
    qsort(k->ks, (size_t)k->nks, sizeof *k->ks, cmp_ks);
}

const tine_kscalar *tine_kernel_scalars(const tine_kernel_t *k, int *n) {
    *n = k->nks;
    return k->ks;
}

const tine_kscalar *tine_kernel_scalar_of(const tine_kernel_t *k, const tine_expr_t *var) {
    int lo = 0, hi = k->nks - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (k->ks[mid].var == var) return &k->ks[mid];
        if (k->ks[mid].var->id < var->id) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

const tine_kscalar *tine_kernel_geometry(const tine_kernel_t *k, int input, int stage, tine_ks_what what, int dim) {
    for (int i = 0; i < k->nks; i++) {
        const tine_kscalar *s = &k->ks[i];
        if (s->what == what && s->input == input && s->stage == stage && s->dim == dim) return s;
    }
    return NULL;
}

int64_t tine_kernel_param_value(const tine_kernel_t *k, int i, const void *const *params) {
    tine_type_t t;
    tine_kernel_param(k, i, &t);
    const void *p = params[i];
    bool sg = t.kind == TINE_INT;
    switch (t.bits) {
    case 1: return *(const uint8_t *)p != 0; /* bool: one byte */
    case 8: return sg ? (int64_t) * (const int8_t *)p : (int64_t) * (const uint8_t *)p;
    case 16: return sg ? (int64_t) * (const int16_t *)p : (int64_t) * (const uint16_t *)p;
    case 32: return sg ? (int64_t) * (const int32_t *)p : (int64_t) * (const uint32_t *)p;
    default: return *(const int64_t *)p;
    }
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

static char *print_stages(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    if (target) k = tine_kernel_for_target(k, target);
    tine_buf b = {0};
    int scope = tine_bounds_open(k->ctx, true); /* as compiled: no run's facts */
    for (int s = 0; s < k->nstages; s++) {
        const tine_stage *st = &k->stages[s];
        tine_expr_t *e = sel == TINE_SELECT_TINE && !target ? tine_lift(k->ctx, st->body) /* FPIR, before lowering */
                                                            : tine_select_expr(k->ctx, st->body, sel, target);
        if (!e) {
            tine_bounds_close(k->ctx, scope);
            free(b.p);
            return NULL;
        }
        char *p = tine_print(k->ctx, e);
        tine_buf_printf(&b, "# stage %s (%d lanes, %s)%s\n%s\n", st->name, st->lanes,
                        s == k->nstages - 1 ? "the output" : "materialized",
                        st->reds.n ? "; its loop reductions' results are $.redN" : "", p);
        free(p);
    }
    tine_bounds_close(k->ctx, scope);
    return b.p;
}

char *tine_kernel_print_stages(tine_kernel_t *k, tine_selection_t sel, const char *target) {
    char *text;
    TINE_GUARD(k->ctx, NULL, text, print_stages(k, sel, target));
    return text;
}

char *tine_kernel_print_schedule(const tine_kernel_t *k) {
    tine_buf b = {0};
    tine_schedule_print(&k->ast, &b);
    for (int i = 0; i < k->nvariants; i++) { /* each instruction set's own directives, if any */
        tine_buf own = {0};
        tine_schedule_print_on(&k->variant[i]->ast, k->isa[i], &own);
        if (own.p) tine_buf_printf(&b, "on %s\n%s", k->isa[i], own.p);
        free(own.p);
    }
    return b.p;
}

tine_ctx_t *tine_kernel_ctx(const tine_kernel_t *k) { return k->ctx; }
const char *tine_kernel_output_name(const tine_kernel_t *k) { return k->out->name; }
