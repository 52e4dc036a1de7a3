/* diffkern_gen.c — test_diffkern's random kernels as .tine text (its part 3): one to three
 * dimensions, inputs, parameters, boundaries, materialized, computed-at and inlined
 * functions, reductions, FPIR ops, and random schedules of the whole directive
 * vocabulary (docs/KERNELS.md). test_diffkern.c's header says what is drawn and why.
 */
#include "internal.h"

#include "diffkern_gen.h"

#include <string.h>

/* Whether DIFFKERN_KNOWN_BAD (a comma-separated list) names finding. */
bool known_bad(const char *finding) {
    const char *l = getenv("DIFFKERN_KNOWN_BAD");
    size_t n = strlen(finding);
    for (const char *p = l ? strstr(l, finding) : NULL; p; p = strstr(p + 1, finding))
        if ((p == l || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return true;
    return false;
}

typedef struct {
    uint64_t *seed;
    tine_buf *b;
    int dims;
    /* what a body may read: name, element type; sources of kind 0 are inputs read directly
       (coordinates stay near the region), 1 boundaries and materialized or inlined
       functions (any coordinates) */
    const char *src[8];
    const char *src_type[8];
    int src_kind[8];
    int nsrc;
    const char *ptype; /* the type of parameter q */
    int slide_a;       /* kind 2 sources (computed at out's last coordinate): their rows are slide_a * y + c */
    int loopvars;      /* loop variables in scope: r<rname[0]> .. */
    int reductions;    /* reductions in this body so far */
    int rname[2];      /* the names of the loop variables in scope: each reduction gets its own */
    bool rloop[2];     /* whether each makes a loop (bounds not both constants) */
    int nextr;         /* the next reduction's name */
    int cand[8];       /* outermost reductions with parameter bounds in this body: the ones
                          `vectorize f.rN` may name */
    int ncand;
    bool cand_sum[8];  /* whether each is a sum (`acc` applies) */
} gen_t;

static const char *const TYPES[] = {"u8", "i8", "u16", "i16", "u32", "i32"};
enum { NTYPES = 6 };
static const char *const COORD[3] = {"x", "y", "z"};

static int rnd(gen_t *g, int n) { return (int)(tine_rand64(g->seed) % (uint64_t)n); }
static const char *rtype(gen_t *g) { return TYPES[rnd(g, NTYPES)]; }
static int type_bits(const char *t) { return atoi(t + 1); }

/* A coordinate of dimension d for a read: near the coordinate, halved or quartered (with
 * an offset: lane patterns per residue, residue.c), clamped to constants, offset by loop
 * variables or by the parameter, or (for boundaries and functions, kind 1) doubled or
 * tripled (strided loads). */
static void gen_coord(gen_t *g, int d, int kind) {
    const char *c = COORD[d];
    if (kind == 2 && d == g->dims - 1) { /* a row of a sliding window: a*y + c, a the same for every read */
        if (g->slide_a == 1) tine_buf_printf(g->b, "%s + %d", c, rnd(g, 5) - 2);
        else tine_buf_printf(g->b, "%d * %s + %d", g->slide_a, c, rnd(g, 5) - 2);
        return;
    }
    if (kind == 2) kind = 1;
    switch (rnd(g, kind ? 9 : 8)) {
    case 0: case 1: tine_buf_puts(g->b, c); break;
    case 2: tine_buf_printf(g->b, "%s + %d", c, rnd(g, 7) - 3); break;
    case 3:
        switch (rnd(g, 4)) {
        case 0: tine_buf_printf(g->b, "%s / 2", c); break;
        case 1: tine_buf_printf(g->b, "(%s + %d) / 2", c, rnd(g, 5) - 2); break;
        case 2: tine_buf_printf(g->b, "%s / 4", c); break;
        default: tine_buf_printf(g->b, "(%s - %d) / 4 + %s / 2", c, rnd(g, 4), c); break;
        }
        break;
    case 4: tine_buf_printf(g->b, "min(%s, %d)", c, rnd(g, 48)); break;
    case 5: tine_buf_printf(g->b, "max(%s, %d)", c, rnd(g, 24)); break;
    case 6:
        if (g->loopvars) tine_buf_printf(g->b, "%s + r%d", c, g->rname[rnd(g, g->loopvars)]);
        else tine_buf_printf(g->b, "clamp(%s, %d, %d)", c, rnd(g, 4), 4 + rnd(g, 40));
        break;
    case 7: tine_buf_printf(g->b, "%s + (p & 3)", c); break;
    default:
        switch (rnd(g, 5)) { /* scaled, negative offsets, reversed */
        case 0: case 1: tine_buf_printf(g->b, "%s * 2", c); break;
        case 2: tine_buf_printf(g->b, "%s * 3 + 1", c); break;
        case 3: tine_buf_printf(g->b, "2 * %s - %d", c, 1 + rnd(g, 5)); break;
        default: tine_buf_printf(g->b, "%d - %s", rnd(g, 9) - 4, c); break;
        }
        break;
    }
}

static void gen_expr(gen_t *g, const char *T, int depth);

/* A value of type T that is a leaf: a read, a coordinate, a parameter, a loop variable,
 * a constant; cast to T where it has another type. */
static void gen_leaf(gen_t *g, const char *T) {
    int k = rnd(g, 10);
    if (k < 4 && g->nsrc) {
        int s = rnd(g, g->nsrc);
        bool cast = strcmp(g->src_type[s], T) != 0;
        if (cast) tine_buf_printf(g->b, "%s(", T);
        tine_buf_printf(g->b, "%s(", g->src[s]);
        for (int d = 0; d < g->dims; d++) {
            if (d) tine_buf_puts(g->b, ", ");
            gen_coord(g, d, g->src_kind[s]);
        }
        tine_buf_puts(g->b, cast ? "))" : ")");
        return;
    }
    switch (k) {
    case 4: tine_buf_printf(g->b, "%s(%s)", T, COORD[rnd(g, g->dims)]); break;
    case 5: /* a coordinate, its parity or its half (constant lane patterns, residue.c) */
        tine_buf_printf(g->b, (const char *[]){"%s(%s)", "%s(%s %% 2)", "%s((%s + 1) / 2)", "%s(%s %% 4)"}[rnd(g, 4)],
                        T, COORD[rnd(g, g->dims)]);
        break;
    case 6:
        if (g->loopvars) {
            int i = rnd(g, g->loopvars), v = g->rname[i];
            /* arithmetic on the i32 variable that wraps (r * 2^30 / 2^30), and reinterprets
               (issue 30 findings 1, 2); with issue30-2 known bad, of loop variables only
               (a constant-bound variable becomes an untyped literal: refused) */
            int form = g->rloop[i] || !known_bad("issue30-2") ? rnd(g, 6) : 0;
            if (form == 1) tine_buf_printf(g->b, "%s((r%d * 1073741824) / 1073741824)", T, v);
            else if (form == 2) tine_buf_printf(g->b, "%s(r%d * %d + 2147483647)", T, v, 1 + rnd(g, 3));
            else if (form == 3 && type_bits(T) == 32) tine_buf_printf(g->b, "reinterpret<%s>(r%d - %d)", T, v, rnd(g, 3));
            else tine_buf_printf(g->b, "%s(r%d)", T, v);
            break;
        }
        /* fall through */
    case 7: tine_buf_printf(g->b, "%s(q)", T); break;
    case 8: tine_buf_printf(g->b, "%s(p)", T); break;
    default: tine_buf_printf(g->b, "%s(%d)", T, rnd(g, 100)); break;
    }
}

/* Reduction bounds: constants (empty ones too), the parameter, an enclosing loop variable.
 * Whether they make a loop (not constants). */
static bool gen_range(gen_t *g) {
    switch (rnd(g, 7)) {
    case 0: /* may be empty; negative unless issue30-2 is known bad (a cast of the variable refused) */
        if (!known_bad("issue30-2") && rnd(g, 2)) tine_buf_printf(g->b, "%d..%d", -1 - rnd(g, 3), rnd(g, 3) - 1);
        else tine_buf_printf(g->b, "%d..%d", rnd(g, 3), rnd(g, 4));
        return false;
    case 1: tine_buf_printf(g->b, "%d..%d", rnd(g, 2), 2 + rnd(g, 2)); return false;
    case 2: case 3: tine_buf_puts(g->b, "0..p"); break;
    case 4: tine_buf_puts(g->b, "0..min(p, 3)"); break;
    case 5: tine_buf_printf(g->b, "%d..p + %d", -rnd(g, 2), rnd(g, 2)); break;
    default:
        if (g->loopvars) tine_buf_printf(g->b, "0..r%d + 1", g->rname[g->loopvars - 1]);
        else tine_buf_puts(g->b, "p..3");
        break;
    }
    return true;
}

static void gen_expr(gen_t *g, const char *T, int depth) {
    if (depth <= 0) {
        gen_leaf(g, T);
        return;
    }
    int bits = type_bits(T);
    /* division and modulo are rare: LLVM's code for vector division is large and slow to
       compile, and the test's budget is compile time */
    static const char *const BIN[] = {"+", "-", "*", "&", "|", "^", "+", "-", "*", "-", "&", "+", "-", "|",
                                      "^", "*", "+", "-", "/", "%"};
    static const char *const SAME2[] = {"saturating_add", "saturating_sub", "halving_add", "rounding_halving_add",
                                        "min", "max"};
    static const char *const WIDE2[] = {"absd", "widening_add", "widening_mul", "widening_sub"};
    switch (rnd(g, 14)) {
    case 0: case 1: case 2:
        tine_buf_puts(g->b, "(");
        gen_expr(g, T, depth - 1);
        tine_buf_printf(g->b, " %s ", BIN[rnd(g, 20)]);
        if (rnd(g, 3)) gen_expr(g, T, depth - 1);
        else tine_buf_printf(g->b, "%d", rnd(g, 100));
        tine_buf_puts(g->b, ")");
        break;
    case 3: /* against constants: what bounds-predicated rules simplify */
        if (rnd(g, 2)) {
            tine_buf_printf(g->b, "%s(", rnd(g, 2) ? "min" : "max");
            gen_expr(g, T, depth - 1);
            tine_buf_printf(g->b, ", %d)", rnd(g, 64));
        } else {
            int lo = rnd(g, 20);
            tine_buf_puts(g->b, "clamp(");
            gen_expr(g, T, depth - 1);
            tine_buf_printf(g->b, ", %d, %d)", lo, lo + rnd(g, 80));
        }
        break;
    case 4:
        tine_buf_printf(g->b, "%s(", SAME2[rnd(g, 6)]);
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ", ");
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ")");
        break;
    case 5: {
        const char *U = rtype(g);
        tine_buf_printf(g->b, "%s(%s(", T, WIDE2[rnd(g, 4)]);
        gen_expr(g, U, depth - 1);
        tine_buf_puts(g->b, ", ");
        gen_expr(g, U, depth - 1);
        tine_buf_puts(g->b, "))");
        break;
    }
    case 6: {
        const char *U = rtype(g);
        tine_buf_printf(g->b, rnd(g, 2) ? "%s(" : "saturating_cast<%s>(", T);
        gen_expr(g, U, depth - 1);
        tine_buf_puts(g->b, ")");
        break;
    }
    case 7:
        tine_buf_puts(g->b, "(");
        gen_expr(g, T, depth - 1);
        tine_buf_printf(g->b, " %s %d)", rnd(g, 2) ? ">>" : "<<", rnd(g, bits));
        break;
    case 8: {
        static const char *const CMP[] = {"<", "<=", "==", "!=", ">", ">="};
        const char *U = rtype(g);
        tine_buf_puts(g->b, "select(");
        gen_expr(g, U, depth - 1);
        tine_buf_printf(g->b, " %s ", CMP[rnd(g, 6)]);
        if (rnd(g, 2)) gen_expr(g, U, depth - 1);
        else tine_buf_printf(g->b, "%d", rnd(g, 64));
        tine_buf_puts(g->b, ", ");
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ", ");
        gen_expr(g, T, depth - 1);
        tine_buf_puts(g->b, ")");
        break;
    }
    case 9: case 10:
        if (g->reductions < 3 && g->loopvars < 2) {
            static const char *const RED[] = {"sum", "min", "max"};
            int v = g->nextr++;
            g->reductions++;
            int op = rnd(g, 3);
            tine_buf_printf(g->b, "%s(r%d in ", RED[op], v);
            bool loop = gen_range(g);
            bool cand = loop && !g->loopvars && g->ncand < 8;
            tine_buf_puts(g->b, ") (");
            g->rloop[g->loopvars] = loop;
            g->rname[g->loopvars++] = v;
            gen_expr(g, T, depth - 1);
            g->loopvars--;
            /* a reduction nested inside may take its bounds from v, which a vectorized v
               would make a vector: the compiler refuses that, so only leaves are named */
            if (cand && g->nextr == v + 1) {
                g->cand_sum[g->ncand] = op == 0;
                g->cand[g->ncand++] = v;
            }
            tine_buf_puts(g->b, ")");
            break;
        }
        /* fall through */
    default: gen_leaf(g, T); break;
    }
}

/* Random split, fuse, reorder (and unroll, partition, parallel of the loops they make) of
 * stage fn's loops, from their own random stream (the kernels' other draws stay as they
 * were). touched[d]: coordinate d already unrolled, partitioned or parallel (not split or
 * fused then); par: its last coordinate's loop is parallel already (so stays outermost);
 * may_par: the stage may run a loop in parallel. The generator keeps the
 * nest as the checker does, so every directive it writes is valid. */
typedef struct {
    char name[24];
    int kind, dim; /* 0 whole, 1 split outer, 2 split inner, 3 fused */
    bool touched;
} gloop;

static void gen_reshape(tine_buf *b, uint64_t *seed, const char *fn, int dims, const bool *touched, bool par, bool may_par) {
    gen_t g = {.seed = seed};
    gloop L[8];
    int n = 0;
    for (int d = dims - 1; d >= 0; d--) {
        L[n] = (gloop){.kind = 0, .dim = d, .touched = touched[d]};
        snprintf(L[n++].name, sizeof L[0].name, "%s", COORD[d]);
    }
    int steps = 1 + rnd(&g, 3);
    for (int step = 0; step < steps; step++) {
        int what = rnd(&g, 4), i = rnd(&g, n);
        if (what == 0 || what == 1) { /* split a whole, untouched loop */
            if (L[i].kind != 0 || L[i].touched || n == 8) continue;
            int f = 1 + rnd(&g, 9), d = L[i].dim;
            memmove(&L[i + 1], &L[i], sizeof *L * (size_t)(n - i));
            n++;
            L[i] = (gloop){.kind = 1, .dim = d};
            L[i + 1] = (gloop){.kind = 2, .dim = d};
            snprintf(L[i].name, sizeof L[i].name, "%so%d", COORD[d], step);
            snprintf(L[i + 1].name, sizeof L[i].name, "%si%d", COORD[d], step);
            tine_buf_printf(b, "split %s.%s %s %s %d\n", fn, COORD[d], L[i].name, L[i + 1].name, f);
            if (rnd(&g, 3) == 0) { /* the inner or outer loop unrolled */
                int j = i + rnd(&g, 2);
                tine_buf_printf(b, "unroll %s.%s %d\n", fn, L[j].name, 2 + rnd(&g, 2));
                L[j].touched = true;
            }
            if (rnd(&g, 4) == 0) {
                static const char *const PART[] = {"auto", "always", "never"};
                int j = i + rnd(&g, 2);
                tine_buf_printf(b, "partition %s.%s %s\n", fn, L[j].name, PART[rnd(&g, 3)]);
                L[j].touched = true;
            }
        } else if (what == 2) { /* fuse loop i with the one just outside it */
            if (i == 0 || L[i].kind != 0 || L[i - 1].kind != 0 || L[i].touched || L[i - 1].touched || L[i].dim == 0 ||
                L[i - 1].dim == 0)
                continue;
            tine_buf_printf(b, "fuse %s.%s %s.%s f%d\n", fn, L[i].name, fn, L[i - 1].name, step);
            L[i - 1] = (gloop){.kind = 3, .dim = L[i].dim};
            snprintf(L[i - 1].name, sizeof L[0].name, "f%d", step);
            memmove(&L[i], &L[i + 1], sizeof *L * (size_t)(n - i - 1));
            n--;
        } else if (n >= 2) { /* reorder: a random order where each split's inner loop stays inside */
            gloop M[8];
            memcpy(M, L, sizeof M);
            for (int j = n - 1; j > 0; j--) {
                int r = rnd(&g, j + 1);
                gloop t = M[j];
                M[j] = M[r];
                M[r] = t;
            }
            bool ok = !par;
            for (int j = 0; j < n; j++)
                for (int m = j + 1; m < n; m++) ok &= !(M[j].kind == 2 && M[m].kind == 1 && M[m].dim == M[j].dim);
            if (!ok) continue;
            tine_buf_puts(b, "reorder");
            for (int j = n - 1; j >= 0; j--) tine_buf_printf(b, " %s.%s", fn, M[j].name); /* innermost first */
            tine_buf_puts(b, "\n");
            memcpy(L, M, sizeof M);
        }
    }
    /* the outermost loop in parallel (not the vector loop) */
    bool now_par = false;
    if (may_par && !par && !(L[0].dim == 0 && L[0].kind != 1) && !L[0].touched && rnd(&g, 3) == 0) {
        tine_buf_printf(b, "parallel %s.%s\n", fn, L[0].name);
        now_par = true;
    }
    /* a tile of two whole, untouched loops, any two in either order (split both, the inner
       loops inside the outer ones: kernel_loops.c) */
    int w[8], nw = 0;
    for (int m = 0; m < n; m++)
        if (L[m].kind == 0 && !L[m].touched && !(now_par && m == 0)) w[nw++] = m;
    if (nw >= 2 && !par && may_par && rnd(&g, 2) == 0) { /* not of a function computed at a loop */
        int i = rnd(&g, nw), j = (i + 1 + rnd(&g, nw - 1)) % nw;
        tine_buf_printf(b, "tile %s %s %s %d %d\n", fn, L[w[i]].name, L[w[j]].name, 1 + rnd(&g, 9), 1 + rnd(&g, 9));
    }
}

/* Whether every read of m0 in the output's body has its first coordinate at x or x + a
 * constant (what channel tiles need). */
static bool reads_at_x(const char *text) {
    const char *o = strstr(text, "output ");
    if (!o) return false;
    for (const char *r = strstr(o, "m0("); r; r = strstr(r + 3, "m0(")) {
        const char *a = r + 3;
        int k, n = 0;
        if (!strncmp(a, "x, ", 3) || !strncmp(a, "x)", 2)) continue;
        if (sscanf(a, "x + %d%n", &k, &n) >= 1 && n && (a[n] == ',' || a[n] == ')')) continue;
        return false;
    }
    return true;
}

/* A random kernel; *parallel says whether it splits its output's last coordinate. */
char *gen_kernel(uint64_t *seed, int *dims_out, bool automatic) {
    tine_buf b = {0};
    gen_t g = {.seed = seed, .b = &b};
    int dims = g.dims = 1 + rnd(&g, 3) % 2 + (rnd(&g, 12) == 0);
    *dims_out = dims;
    char args[16] = "x";
    if (dims > 1) strcat(args, ", y");
    if (dims > 2) strcat(args, ", z");
    int nin = 1 + (rnd(&g, 3) == 0);
    const char *it[2] = {rtype(&g), rtype(&g)};
    for (int i = 0; i < nin; i++) tine_buf_printf(&b, "input in%d: %s[%d]\n", i, it[i], dims);
    g.ptype = rtype(&g);
    tine_buf_printf(&b, "param p: i32\nparam q: %s\n", g.ptype);
    for (int i = 0; i < nin; i++) {
        g.src[g.nsrc] = i ? "in1" : "in0";
        g.src_type[g.nsrc] = it[i];
        g.src_kind[g.nsrc++] = 0;
    }
    /* boundaries */
    if (rnd(&g, 2)) {
        tine_buf_puts(&b, "func e = edge(in0)\n");
        g.src[g.nsrc] = "e";
        g.src_type[g.nsrc] = it[0];
        g.src_kind[g.nsrc++] = 1;
    }
    if (rnd(&g, 2)) {
        tine_buf_printf(&b, "func z = constant(in%d, %d)\n", nin - 1, rnd(&g, 100));
        g.src[g.nsrc] = "z";
        g.src_type[g.nsrc] = it[nin - 1];
        g.src_kind[g.nsrc++] = 1;
    }
    /* functions: materialized m0, m1 (m1 may read m0), an inlined f */
    static const char *const FN[3] = {"m0", "m1", "f"};
    bool has[3] = {false};
    /* m0 computed at the output's last coordinate (a sliding window): then only the
       output reads it, its rows a*y + c */
    bool at = dims >= 2 && rnd(&g, 3) == 0;
    const char *m0_type = NULL, *ftype[3] = {NULL};
    g.slide_a = 1 + rnd(&g, 2);
    int cand[3][8], ncand[3] = {0};
    bool cand_sum[3][8];
    for (int f = 0; f < 3; f++) {
        /* each stage costs compile time: one materialized function in two kernels, two in
           eight */
        if (!(f == 0 && at) && (f == 0 ? rnd(&g, 2) : f == 1 ? rnd(&g, 4) : rnd(&g, 3))) continue;
        const char *T = rtype(&g);
        if (f == 0) m0_type = T;
        ftype[f] = T;
        int depth = 1 + rnd(&g, 2);
        g.reductions = g.ncand = 0;
        tine_buf_printf(&b, "func %s(%s) = ", FN[f], args);
        size_t body_at = b.n;
        gen_expr(&g, T, depth);
        tine_buf_puts(&b, "\n");
        if (f == 2 && rnd(&g, 4) == 0) { /* f defined again for one instruction set */
            char *same = tine_strdup(b.p + body_at);
            switch (rnd(&g, 3)) {
            case 0: /* another value on Arm: x86 code keeps the every-target one */
                tine_buf_printf(&b, "# f differs on arm\non arm\nfunc f(%s) = ", args);
                g.reductions = 3; /* no loop reductions: the output's may be vectorized */
                gen_expr(&g, T, depth);
                tine_buf_puts(&b, "\non all\n");
                break;
            case 1: tine_buf_printf(&b, "on arm\nfunc f(%s) = %son all\n", args, same); break;
            default: tine_buf_printf(&b, "on x86\nfunc f(%s) = %son all\n", args, same); break;
            }
            free(same);
        }
        has[f] = true;
        memcpy(cand[f], g.cand, sizeof g.cand);
        memcpy(cand_sum[f], g.cand_sum, sizeof g.cand_sum);
        ncand[f] = f < 2 ? g.ncand : 0; /* f is inlined: its reductions are its callers' */
        if (f == 0 && at) continue; /* readable by the output only: added below */
        g.src[g.nsrc] = FN[f];
        g.src_type[g.nsrc] = T;
        g.src_kind[g.nsrc++] = 1;
    }
    at = at && has[0];
    if (at) {
        g.src[g.nsrc] = FN[0];
        g.src_type[g.nsrc] = m0_type;
        g.src_kind[g.nsrc++] = 2;
    }
    const char *OT = rtype(&g);
    g.reductions = g.ncand = 0;
    tine_buf_printf(&b, "output out(%s): %s = ", args, OT);
    /* the output reads every function (so each is computed), then a random body */
    int depth = 1 + rnd(&g, 3);
    bool any = false;
    for (int f = 0; f < 3; f++) {
        if (!has[f]) continue;
        if (any) tine_buf_puts(&b, " + ");
        tine_buf_printf(&b, "%s(%s(", OT, FN[f]);
        for (int d = 0; d < dims; d++) {
            if (d) tine_buf_puts(&b, ", ");
            gen_coord(&g, d, f == 0 && at ? 2 : 1);
        }
        tine_buf_puts(&b, "))");
        any = true;
    }
    /* under schedule auto, each function read at two more taps (one row and one column
       on): stencils whose producers the scheduler may materialize and whose rows it may
       unroll (no random draws: the stream stays the other kernels') */
    for (int f = 0; f < 3 && automatic; f++)
        if (has[f]) {
            for (int t = 1; t <= 2 && t <= dims; t++) {
                tine_buf_printf(&b, " + %s(%s(", OT, FN[f]);
                for (int d = 0; d < dims; d++) tine_buf_printf(&b, "%s%s%s", d ? ", " : "", COORD[d], d == t - 1 ? " + 1" : "");
                tine_buf_puts(&b, "))");
            }
        }
    if (any) tine_buf_puts(&b, " + ");
    gen_expr(&g, OT, depth);
    tine_buf_puts(&b, "\nschedule\n");
    for (int f = 0; f < 2; f++)
        if (has[f]) {
            if (f == 0 && at) {
                tine_buf_printf(&b, "compute_at m0 out.%s\n", COORD[dims - 1]);
                if (rnd(&g, 3) == 0) tine_buf_printf(&b, "store_at m0 out.%s\n", COORD[dims - 1]);
            } else {
                tine_buf_printf(&b, "%s %s\n", rnd(&g, 2) ? "materialize" : "compute_root", FN[f]);
            }
            if (rnd(&g, 2)) tine_buf_printf(&b, "vectorize %s.x %d\n", FN[f], 1 << rnd(&g, 5));
        }
    /* loop reductions vectorized along their variable, any width (sums, min and max of
       every integer type; the ranges p gives are short: fewer terms than lanes, as many,
       a few more) */
    memcpy(cand[2], g.cand, sizeof g.cand);
    memcpy(cand_sum[2], g.cand_sum, sizeof g.cand_sum);
    ncand[2] = g.ncand;
    for (int f = 0; f < 3; f++)
        for (int i = 0; i < ncand[f]; i++)
            if (rnd(&g, 2)) {
                int w = 1 << rnd(&g, 6), form = rnd(&g, 8);
                tine_buf_printf(&b, "vectorize %s.r%d ", f < 2 ? FN[f] : "out", cand[f][i]);
                if (form == 0) tine_buf_puts(&b, "natural\n");
                else if (form == 1 && cand_sum[f][i]) { /* acc: lanes dividing w (sums only) */
                    int a = w >> rnd(&g, 3);
                    tine_buf_printf(&b, "%d acc %d\n", w, a ? a : 1);
                }
                else tine_buf_printf(&b, "%d\n", w);
            }
    if (rnd(&g, 3)) tine_buf_puts(&b, "vectorize out.x natural\n");
    else tine_buf_printf(&b, "vectorize out.x %d\n", 1 << rnd(&g, 5));
    bool touched[3][3] = {{false}}; /* m0, m1, out: coordinates unrolled, partitioned or parallel */
    bool tiled = dims >= 2 && !at && rnd(&g, 6) == 0; /* compute_at: the output's rows in order */
    if (tiled) tine_buf_printf(&b, "tile out x y %d %d\n", 4 << rnd(&g, 3), 1 + rnd(&g, 3));
    /* unrolled points (2 or 3 vectors, 2 or 5 rows: the rows' tails) share the loops of
       their loop reductions when none is vectorized (unroll-and-jam); one draw each, as
       before, so the stream stays the other kernels' */
    bool out_par = false;
    int ux = rnd(&g, 8), uy = dims >= 2 && !tiled ? rnd(&g, 8) : 8;
    if (ux < 2) {
        tine_buf_printf(&b, "unroll out.x %d\n", 2 + ux);
        touched[2][0] = true;
    }
    if (uy < 2) {
        tine_buf_printf(&b, "unroll out.y %d\n", 2 + 3 * uy);
        touched[2][1] = true;
    }
    if (dims >= 2 && !at && rnd(&g, 3) == 0) {
        tine_buf_printf(&b, "parallel out.%s\n", COORD[dims - 1]);
        touched[2][dims - 1] = out_par = true;
    }
    if (dims == 3 && at && rnd(&g, 4) == 0) {
        tine_buf_puts(&b, "unroll out.z 2\n");
        touched[2][2] = true;
    }
    /* partitioning per loop: auto is the default; always splits loops without conditions
       too, never keeps them whole */
    static const char *const PART[] = {"auto", "always", "never"};
    for (int f = 0; f < 3; f++) {
        if (f < 2 && !has[f]) continue;
        for (int d = 0; d < dims; d++)
            if (rnd(&g, 4) == 0) {
                tine_buf_printf(&b, "partition %s.%s %s\n", f < 2 ? FN[f] : "out", COORD[d], PART[rnd(&g, 3)]);
                touched[f][d] = true;
            }
    }
    /* split, fuse, reorder of each stage, half the time (not of a tiled output, nor of one
       another is computed at), from a stream of their own */
    uint64_t rs = 0x5eed;
    for (const char *c = b.p; *c; c++) rs = rs * 31 + (uint8_t)*c;
    for (int f = 0; f < 3 && !automatic; f++)
        if ((f == 2 ? !tiled && !at : has[f]) && tine_rand64(&rs) % 2)
            gen_reshape(&b, &rs, f < 2 ? FN[f] : "out", dims, touched[f], f == 2 && out_par, !(f == 0 && at));
    /* compute_at at a strip: the output's row loop split, m0 computed at its outer loop
       (the directive rewritten in place: the split must come first) */
    char at_dir[64];
    snprintf(at_dir, sizeof at_dir, "compute_at m0 out.%s\n", COORD[dims - 1]);
    char *atp = at && !automatic && !touched[2][dims - 1] ? strstr(b.p, at_dir) : NULL;
    if (atp && tine_rand64(&rs) % 2) {
        int N = 1 + (int)(tine_rand64(&rs) % 9);
        bool unroll = tine_rand64(&rs) % 3 == 0;
        tine_buf nb = {0};
        tine_buf_printf(&nb, "%.*s", (int)(atp - b.p), b.p);
        tine_buf_printf(&nb, "split out.%s so si %d\ncompute_at m0 out.so\n", COORD[dims - 1], N);
        if (unroll) tine_buf_printf(&nb, "unroll out.%s 2\n", tine_rand64(&rs) % 2 ? "so" : "si");
        tine_buf_puts(&nb, atp + strlen(at_dir));
        free(b.p);
        b = nb;
    }
    /* channel tiles: the output's first coordinate split, its outer loop outside the loop
       m0 is computed at (m0 then computed per tile), when every read of m0 has its first
       coordinate at x + a constant */
    atp = at && !automatic && !touched[2][0] ? strstr(b.p, "compute_at m0 out.") : NULL;
    bool ctiled = false;
    if (atp && reads_at_x(b.p) && tine_rand64(&rs) % 2) {
        ctiled = true;
        bool strip = strstr(b.p, "compute_at m0 out.so\n") != NULL;
        tine_buf nb = {0};
        tine_buf_printf(&nb, "%.*s", (int)(atp - b.p), b.p);
        tine_buf_printf(&nb, "split out.x xo xi %d\nreorder out.xi", 1 + (int)(tine_rand64(&rs) % 40));
        if (strip) tine_buf_puts(&nb, " out.si out.so");
        else if (dims == 3) tine_buf_puts(&nb, " out.y out.z");
        else tine_buf_puts(&nb, " out.y");
        tine_buf_puts(&nb, " out.xo\n");
        /* the rest, the output's vector loop now named out.xi */
        for (const char *r = atp, *v; *r; r = v + strlen("vectorize out.x")) {
            v = strstr(r, "vectorize out.x ");
            if (!v) {
                tine_buf_puts(&nb, r);
                break;
            }
            tine_buf_printf(&nb, "%.*svectorize out.xi", (int)(v - r), r);
        }
        free(b.p);
        b = nb;
    }
    /* a second reader of m0 computed at the same loop (compute_at with several readers),
       a third of the time: m2 reads m0 at rows of m0's slope a (a*r + c, or through a
       division: 2 * (r / 2) + c, (2a * r + c) / 2), the output reads m2 at rows y + c;
       from the reshapes' stream, so the rest of the kernel stays as drawn */
    if (at && !automatic && !ctiled && tine_rand64(&rs) % 3 == 0) { /* (a channel tile takes one reader) */
        const char *Y = COORD[dims - 1];
        char rows[2][48], lead[32] = "";
        for (int d = 1; d < dims - 1; d++) snprintf(lead + strlen(lead), sizeof lead - strlen(lead), ", %s", COORD[d]);
        for (int i = 0; i < 2; i++) {
            int c = (int)(tine_rand64(&rs) % 5) - 2, form = (int)(tine_rand64(&rs) % 3);
            if (form == 0 && g.slide_a == 1) snprintf(rows[i], sizeof rows[i], "%s + %d", Y, c);
            else if (form == 0) snprintf(rows[i], sizeof rows[i], "2 * %s + %d", Y, c);
            else if (form == 1 && g.slide_a == 1) snprintf(rows[i], sizeof rows[i], "2 * (%s / 2) + %d", Y, c);
            else snprintf(rows[i], sizeof rows[i], "(%d * %s + %d) / 2", 2 * g.slide_a, Y, c);
        }
        tine_buf nb = {0};
        char *outp = strstr(b.p, "output out(");
        char *sched = strstr(b.p, "\nschedule\n");
        tine_buf_printf(&nb, "%.*s", (int)(outp - b.p), b.p);
        tine_buf_printf(&nb, "func m2(%s) = m0(x%s, %s) - m0(x + 1%s, %s) * 3\n", args, lead, rows[0], lead, rows[1]);
        tine_buf_printf(&nb, "%.*s + %s(m2(x%s, %s + %d))", (int)(sched - outp), outp, OT, lead, Y,
                        (int)(tine_rand64(&rs) % 5) - 2);
        tine_buf_puts(&nb, sched);
        bool strip = strstr(b.p, "compute_at m0 out.so\n") != NULL;
        tine_buf_printf(&nb, "compute_at m2 out.%s\n", strip ? "so" : Y);
        if (tine_rand64(&rs) % 2) tine_buf_printf(&nb, "vectorize m2.x %d\n", 1 << (int)(tine_rand64(&rs) % 5));
        free(b.p);
        b = nb;
    }
    /* store_as: a materialized function's buffer in its own type or a wider one that
       holds it, instead of the narrowest its values fit (from the stream rs) */
    for (int f = 0; f < 2 && !automatic; f++) {
        const char *T = ftype[f];
        if (!has[f] || !T || (T[0] != 'u' && T[0] != 'i') || tine_rand64(&rs) % 3) continue;
        int bits = type_bits(T), wider = bits < 64 ? 2 * bits : bits, pick = (int)(tine_rand64(&rs) % 3);
        char kind = pick == 2 && T[0] == 'u' && bits < 64 ? 'i' : T[0];
        tine_buf_printf(&b, "store_as %s %c%d\n", FN[f], kind, pick ? wider : bits);
    }
    /* directives for Arm alone (`on arm` at the end of the schedule, from the stream rs):
       the output's vector width or unrolling again, or f materialized; x86 code keeps the
       every-target schedule. Or `inline f` for every target. */
    if (!automatic && tine_rand64(&rs) % 3 == 0) {
        bool plain_x = !strstr(b.p, "split out.x ") && !strstr(b.p, "tile out") && !strstr(b.p, "reorder out");
        bool mat_f = has[2] && !at && tine_rand64(&rs) % 2;
        if (plain_x || mat_f) tine_buf_puts(&b, "on arm\n");
        if (plain_x) tine_buf_printf(&b, "vectorize out.x %d\n", 1 << (int)(tine_rand64(&rs) % 5));
        if (plain_x && !touched[2][0] && tine_rand64(&rs) % 2) tine_buf_puts(&b, "unroll out.x 2\n");
        if (mat_f) tine_buf_puts(&b, "materialize f\n");
    } else if (!automatic && has[2] && tine_rand64(&rs) % 4 == 0)
        tine_buf_puts(&b, "inline f\n");
    if (automatic) { /* the automatic scheduler's choice instead (the same random stream) */
        char *sched = strstr(b.p, "\nschedule\n");
        b.n = (size_t)(sched - b.p);
        tine_buf_puts(&b, "\nschedule auto\n");
    }
    return b.p;
}
