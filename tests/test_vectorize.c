/* test_vectorize.c — tine vectorize's front end, search and validation (src/vectorize):
 *  - symbolic evaluation: the spec of small kernels evaluated on random and edge inputs
 *    against the same C compiled into this test, bit for bit; hash-consing (a product
 *    used twice is one node); sizes that must stay small (a 4×4 QR);
 *  - every construct outside the subset, and every limit, a located error naming it;
 *  - the search at 4, 8 and 16 lanes, strict, --contract and --reassociate: each program
 *    validated against its spec, and a program evaluated lane by lane (independently of
 *    validate.c) equal to the spec bit for bit in strict mode;
 *  - validation catches a wrong rule (x = x + 0, which -0 breaks), and the reals prover
 *    refutes what is false;
 *  - the program as a target-level program (tprog.c), selected, peephole-optimized and
 *    scheduled, interpreted with its inputs bound to their leaf lanes: equal to the spec
 *    bit for bit (strict), and the peephole's sign rules firing where a negation feeds an
 *    add or an FMA.
 * The emitted code runs in tests/vectorize/check.sh (native and qemu).
 */
#include "internal.h"
#include "testutil.h"
#include "vectorize/vectorize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *KERNELS =
    "#include <math.h>\n"
    "static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }\n"
    "void mm3(const float a[3][3], const float b[3][3], float out[3][3]) {\n"
    "    for (int i = 0; i < 3; i++)\n"
    "        for (int j = 0; j < 3; j++) {\n"
    "            float s = 0.0f;\n"
    "            for (int k = 0; k < 3; k++) s += a[i][k] * b[k][j];\n"
    "            out[i][j] = s;\n"
    "        }\n"
    "}\n"
    "void conv(const float in[3][4], const float f[2][2], float out[4][5]) {\n"
    "    for (int i = 0; i < 4; i++) for (int j = 0; j < 5; j++) out[i][j] = 0;\n"
    "    for (int r = 0; r < 3; r++) for (int c = 0; c < 4; c++)\n"
    "        for (int fr = 0; fr < 2; fr++) for (int fc = 0; fc < 2; fc++)\n"
    "            out[r + fr][c + fc] += in[r][c] * f[fr][fc];\n"
    "}\n"
    "void mixed(const float a[8], const float b[8], float out[11]) {\n"
    "    float t[3] = {a[0], a[1] - b[1]};\n"
    "    for (int i = 0; i < 8; i++) {\n"
    "        float d = a[i] - b[i];\n"
    "        out[i] = i % 2 ? d * d - a[i] : -(d / (b[i] + 1.5f));\n"
    "    }\n"
    "    out[8] = sqrtf(a[2] * a[2] + b[2] * b[2]) + dot3(a, b) + t[2];\n"
    "    out[9] = a[3] > b[3] ? a[3] : b[3] * 2.0f;\n"
    "    out[10] = fmaf(a[4], b[4], a[5]);\n"
    "}\n"
    "void twice(const float a[2], float out[2]) { float p = a[0] * a[1]; out[0] = p + a[0]; out[1] = p - a[1]; }\n"
    "void pad(const float a[4], const float b[4], float out[4]) {\n"
    "    for (int i = 0; i < 4; i++) out[i] = i == 1 ? a[i] : a[i] + b[i];\n"
    "}\n"
    "void negs(const float a[8], const float b[8], const float c[8], float out[16]) {\n"
    "    for (int i = 0; i < 8; i++) out[i] = a[i] + -b[i];\n"
    "    for (int i = 0; i < 8; i++) out[8 + i] = fmaf(-a[i], b[i], c[i]);\n"
    "}\n";

/* The same kernels, compiled here: the reference. */
static float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void mm3(const float a[3][3], const float b[3][3], float out[3][3]) {
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            float s = 0.0f;
            for (int k = 0; k < 3; k++) s += a[i][k] * b[k][j];
            out[i][j] = s;
        }
}
static void conv(const float in[3][4], const float f[2][2], float out[4][5]) {
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 5; j++) out[i][j] = 0;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            for (int fr = 0; fr < 2; fr++)
                for (int fc = 0; fc < 2; fc++) out[r + fr][c + fc] += in[r][c] * f[fr][fc];
}
static void mixed(const float a[8], const float b[8], float out[11]) {
    float t[3] = {a[0], a[1] - b[1]};
    for (int i = 0; i < 8; i++) {
        float d = a[i] - b[i];
        out[i] = i % 2 ? d * d - a[i] : -(d / (b[i] + 1.5f));
    }
    out[8] = sqrtf(a[2] * a[2] + b[2] * b[2]) + dot3(a, b) + t[2];
    out[9] = a[3] > b[3] ? a[3] : b[3] * 2.0f;
    out[10] = fmaf(a[4], b[4], a[5]);
}

static bool same_bits(float x, float y) { return (isnan(x) && isnan(y)) || memcmp(&x, &y, 4) == 0; }

static uint64_t rng = 88172645463325252ull;
static float draw(int kind) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    static const float edges[] = {0.0f, -0.0f, 1e-40f, -1e-40f, INFINITY, -INFINITY, 1.0f, -1.5f, 3e38f};
    if (kind == 1) return edges[rng % (sizeof edges / sizeof *edges)];
    if (kind == 2 && rng % 7 == 0) return NAN;
    return (float)((int64_t)(rng % 2000001) - 1000000) / 4096.0f;
}

/* The spec's value of node x on inputs in[array][elem] (C's float arithmetic). */
static float spec_value(const vz_spec *s, int32_t x, float *const *in, float *memo, bool *done) {
    if (done[x]) return memo[x];
    const vz_node *n = &s->node[x];
    float k[3] = {0};
    for (int i = 0; i < n->n; i++) k[i] = spec_value(s, n->kid[i], in, memo, done);
    float r = 0;
    switch (n->op) {
    case VZ_GET: r = in[n->data >> 32][(uint32_t)n->data]; break;
    case VZ_CONST: r = (float)vz_const_value(s, n); break;
    case VZ_ADD: r = k[0] + k[1]; break;
    case VZ_SUB: r = k[0] - k[1]; break;
    case VZ_MUL: r = k[0] * k[1]; break;
    case VZ_DIV: r = k[0] / k[1]; break;
    case VZ_NEG: r = -k[0]; break;
    case VZ_SQRT: r = sqrtf(k[0]); break;
    case VZ_FMA: r = fmaf(k[0], k[1], k[2]); break;
    case VZ_CMP: {
        static const char *const p[] = {"<", "<=", ">", ">=", "==", "!="};
        (void)p;
        r = n->data == VZ_LT ? k[0] < k[1] : n->data == VZ_LE ? k[0] <= k[1] : n->data == VZ_GT ? k[0] > k[1]
            : n->data == VZ_GE ? k[0] >= k[1] : n->data == VZ_EQ ? k[0] == k[1] : k[0] != k[1];
        break;
    }
    case VZ_SEL: r = k[0] != 0 ? k[1] : k[2]; break;
    }
    done[x] = true;
    return memo[x] = r;
}

static vz_spec *spec_of(tine_ctx_t *ctx, const char *text, const char *fn) {
    tine_cfile *f = tine_cfront_parse(ctx, "kernels.c", text, NULL, 0, NULL);
    if (!f) return NULL;
    vz_spec *s = vz_front(ctx, f, fn, NULL);
    tine_cfile_free(f);
    return s;
}

typedef void (*kernel_fn)(float *const *arrays);
static void run_mm3(float *const *x) { mm3((const float(*)[3])x[0], (const float(*)[3])x[1], (float(*)[3])x[2]); }
static void run_conv(float *const *x) { conv((const float(*)[4])x[0], (const float(*)[2])x[1], (float(*)[5])x[2]); }
static void run_mixed(float *const *x) { mixed(x[0], x[1], x[2]); }

/* The lane-l value of class c of the program, evaluated here from the chosen nodes. */
static float prog_value(const vz_program *p, eg_id c, int l, float *const *in, const vz_spec *s) {
    eg_node n = vz_chosen(p, c);
    float k[3] = {0};
    if (n.op == VZ_VEC) return prog_value(p, n.kids[l], l, in, s);
    if (n.op == VZ_DC) return NAN;
    uint32_t op = VZ_IS_V(n.op) ? n.op - VZ_VBASE : n.op;
    for (uint32_t i = 0; i < n.n; i++) k[i] = prog_value(p, n.kids[i], l, in, s);
    vz_node x = {.op = (uint8_t)op, .data = n.data};
    switch (op) {
    case VZ_GET: return in[n.data >> 32][(uint32_t)n.data];
    case VZ_CONST: return (float)vz_const_value(s, &x);
    case VZ_ADD: return k[0] + k[1];
    case VZ_SUB: return k[0] - k[1];
    case VZ_MUL: return k[0] * k[1];
    case VZ_DIV: return k[0] / k[1];
    case VZ_NEG: return -k[0];
    case VZ_SQRT: return sqrtf(k[0]);
    case VZ_FMA: return fmaf(k[0], k[1], k[2]);
    case VZ_SEL: return k[0] != 0 ? k[1] : k[2];
    case VZ_CMP:
        return n.data == VZ_LT ? k[0] < k[1] : n.data == VZ_LE ? k[0] <= k[1] : n.data == VZ_GT ? k[0] > k[1]
             : n.data == VZ_GE ? k[0] >= k[1] : n.data == VZ_EQ ? k[0] == k[1] : k[0] != k[1];
    }
    return NAN;
}

/* The spec (and, if p, the program) against the compiled C on random and edge inputs. */
static void check_against_c(const vz_spec *s, const vz_program *p, kernel_fn fn, const char *name, bool exact) {
    float buf[3][64], ref[3][64];
    float *in[3] = {buf[0], buf[1], buf[2]}, *rin[3] = {ref[0], ref[1], ref[2]};
    float *memo = malloc(sizeof *memo * (size_t)s->nnodes);
    bool *done = malloc((size_t)s->nnodes);
    int bad = 0;
    for (int it = 0; it < 300 && bad < 3; it++) {
        for (int a = 0; a < 3; a++)
            for (int i = 0; i < 64; i++) buf[a][i] = ref[a][i] = draw(exact ? it % 3 : 0); /* reals: finite inputs */
        fn(rin);
        memset(done, 0, (size_t)s->nnodes);
        for (int a = 0; a < s->narrays; a++)
            for (int i = 0; s->array[a].output && i < s->array[a].count; i++) {
                int32_t o = s->out[a][i];
                float v = o >= 0 ? spec_value(s, o, in, memo, done) : buf[a][i];
                if (!same_bits(v, ref[a][i]) && bad++ < 3)
                    check(false, "%s: spec's %s[%d] = %a, the C's %a", name, s->array[a].name, i, v, ref[a][i]);
            }
        for (int c = 0; p && c < p->nchunks; c++)
            for (int l = 0; l < p->width; l++) {
                int a = p->chunk[c].array[l], e = p->chunk[c].elem[l];
                if (a < 0) continue;
                float v = prog_value(p, p->chunk[c].cls, l, in, s);
                /* reassociated: equal up to rounding (terms are at most 2^16, a few of them) */
                bool ok = exact ? same_bits(v, ref[a][e]) : fabsf(v - ref[a][e]) <= 0.1f + 1e-4f * fabsf(ref[a][e]);
                if (!ok && bad++ < 3)
                    check(false, "%s at %d lanes: the program's %s[%d] = %a, the C's %a", name, p->width,
                          s->array[a].name, e, v, ref[a][e]);
            }
    }
    free(memo);
    free(done);
}

static void test_front(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    struct {
        const char *fn;
        kernel_fn run;
    } ks[] = {{"mm3", run_mm3}, {"conv", run_conv}, {"mixed", run_mixed}};
    for (size_t i = 0; i < sizeof ks / sizeof *ks; i++) {
        vz_spec *s = spec_of(ctx, KERNELS, ks[i].fn);
        check(s != NULL, "%s: %s", ks[i].fn, tine_error(ctx));
        if (s) check_against_c(s, NULL, ks[i].run, ks[i].fn, true);
        vz_spec_free(s);
    }
    /* hash-consing: a[0] * a[1] computed once, used twice */
    vz_spec *s = spec_of(ctx, KERNELS, "twice");
    int muls = 0;
    for (int i = 0; s && i < s->nnodes; i++) muls += s->node[i].op == VZ_MUL;
    check(s && muls == 1, "twice: %d products in the spec, 1 expected", muls);
    check(s && s->narrays == 2 && s->array[1].output && !s->array[0].output && s->array[1].count == 2,
          "twice: the arrays' roles and sizes");
    vz_spec_free(s);
    tine_ctx_free(ctx);
}

/* A 4×4 QR (Householder, as the bench's) stays small: Diospyros's ran out of 35 GB. */
static void test_qr_size(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    char *text = read_file("../bench/vectorize/qr.c"); /* tests run in tests/ */
    check(text != NULL, "bench/vectorize/qr.c readable");
    vz_spec *s = text ? spec_of(ctx, text, "qr_4x4") : NULL;
    check(s && s->nnodes < 20000, "qr_4x4's spec: %d nodes (%s)", s ? s->nnodes : -1, s ? "" : tine_error(ctx));
    if (s) {
        const vz_target *t = vz_target_find("x86-64-avx512");
        vz_options o = {0};
        vz_program *p = vz_search(ctx, s, t, &o);
        check(p && vz_validate(ctx, p, &o, NULL) == 0, "qr_4x4 at 16 lanes: %s", tine_error(ctx));
        check(p && p->seconds < 10, "qr_4x4 searched in %.2f s", p ? p->seconds : -1);
        vz_program_free(p);
    }
    vz_spec_free(s);
    free(text);
    tine_ctx_free(ctx);
}

static void test_errors(void) {
    static const struct {
        const char *src, *fn, *want;
    } bad[] = {
        {"void k(const float a[4], float o[4]) { int i = 0; while (a[i] > 0) i++; o[0] = 0; }", "k", "on float values"},
        {"void k(const float a[4], float o[4]) { if (a[0] > 0) o[0] = 1; }", "k", "if or loop condition on float"},
        {"float g; void k(const float a[4], float o[4]) { o[0] = g; }", "k", "globals are outside"},
        {"#include <stdio.h>\nvoid k(const float a[4], float o[4]) { printf(\"x\"); o[0] = 0; }", "k", "a call of 'printf'"},
        {"void k(const float a[4], float o[4]) { o[0] = a[0] * 0.5; }", "k", "write the literal with the kernel's type"},
        {"void k(const float a[4], float o[4], int n) { o[0] = a[n]; }", "k", "parameter 'n'"},
        {"struct s { float x; }; void k(const float a[4], float o[4]) { struct s v = {1}; o[0] = v.x; }", "k", "'struct s'"},
        {"void k(const float a[4], float o[4]) { o[4] = a[0]; }", "k", "outside the array's 4 elements"},
        {"void k(const float a[4], float o[4]) { float t[4]; o[0] = t[1]; }", "k", "read before it is written"},
        {"void k(const float a[4], float o[4]) { for (int i = 0; i < 2000000000; i++) o[0] = a[0]; }", "k", "statements when unrolled"},
        {"void k(const float a[4], float o[4]) { float x = a[0]; for (int i = 0; i < 5000000; i++) x = x * a[1] + a[2]; o[0] = x; }", "k", "passes"},
        {"float k(const float a[4], float o[4]) { return a[0]; }", "k", "returns a value"},
        {"void k(const float a[4], float o[4]) { int i = (int)a[0]; o[i] = 0; }", "k", "this cast"},
        {"void r(const float a[4], float o[4]) { r(a, o); }", "r", "nested more than 64"},
        {"void k(const float a[4], float o[4]) { o[0] = a[0]; }", "nope", "no function 'nope'"},
        {"void k(const float a[4], const float b[4]) { float x = a[0] + b[0]; (void)x; }", "k", "writes no array"},
        {"void k(const float a[4], float o[4]) { o[0] = a[0] +; }", "k", "expected expression"},
        {"void k(const float *a, float o[4]) { o[0] = *a; }", "k", "the operator '*' here"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        tine_ctx_t *ctx = tine_ctx_new();
        vz_front_limits lim = {.max_nodes = 100000, .max_steps = 2000000};
        tine_cfile *f = tine_cfront_parse(ctx, "bad.c", bad[i].src, NULL, 0, NULL);
        vz_spec *s = f ? vz_front(ctx, f, bad[i].fn, &lim) : NULL;
        const char *err = tine_error(ctx);
        check(!s && err && strstr(err, bad[i].want), "case %zu: want '%s', got '%s'", i, bad[i].want, err ? err : "");
        /* located: file:line:col, unless the function is not there */
        check(!s && err && (strstr(err, "bad.c:1:") || strstr(err, "bad.c:2:") || strstr(err, "no function")),
              "case %zu: the error is located: %s", i, err ? err : "");
        vz_spec_free(s);
        tine_cfile_free(f);
        tine_ctx_free(ctx);
    }
}

static void test_search(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    const char *targets[] = {"x86-64-sse41", "x86-64-avx2", "x86-64-avx512", "arm-64"};
    struct {
        const char *fn;
        kernel_fn run;
    } ks[] = {{"mm3", run_mm3}, {"conv", run_conv}, {"mixed", run_mixed}};
    for (size_t k = 0; k < sizeof ks / sizeof *ks; k++) {
        vz_spec *s = spec_of(ctx, KERNELS, ks[k].fn);
        for (size_t t = 0; s && t < sizeof targets / sizeof *targets; t++)
            for (int mode = 0; mode < 3; mode++) {
                vz_options o = {.contract = mode == 1, .reassociate = mode == 2};
                vz_program *p = vz_search(ctx, s, vz_target_find(targets[t]), &o);
                check(p != NULL, "%s at %s: %s", ks[k].fn, targets[t], tine_error(ctx));
                if (!p) continue;
                check(vz_validate(ctx, p, &o, NULL) == 0, "%s at %s, mode %d: %s", ks[k].fn, targets[t], mode, tine_error(ctx));
                check_against_c(s, p, ks[k].run, ks[k].fn, mode == 0);
                vz_program_free(p);
            }
        vz_spec_free(s);
    }
    tine_ctx_free(ctx);
}

/* How often the peephole fired rule `name`. */
static int fired(const tine_peep_stats *st, const char *name) {
    for (int i = 0; i < st->nfired; i++)
        if (!strcmp(st->fired[i], name)) return st->fired_counts[i];
    return 0;
}

static uint64_t float_bits(float v) {
    uint32_t u;
    memcpy(&u, &v, 4);
    return u;
}

/* The target-level program of p (t) on inputs in[array][elem], interpreted (tine_eval, the
 * instructions by their semantics): each vector input bound to its leaf lanes, each scalar
 * to its element; every stored lane against the spec's value, bit for bit (exact), or
 * within rounding. Returns the lanes that differ. */
static int check_tprog_once(tine_ctx_t *ctx, const vz_spec *s, const vz_program *p, const vz_tprog *t,
                            float *const *in, bool exact, const char *what) {
    const tine_tprog *tp = t->prog;
    tine_env_t *env = tine_env_new(ctx);
    float *memo = malloc(sizeof *memo * (size_t)s->nnodes);
    bool *done = calloc((size_t)s->nnodes, 1);
    int bad = 0;
    for (int q = 0; q < tp->ninputs; q++) {
        uint64_t lanes[16] = {0};
        if (t->in_array[q] >= 0) lanes[0] = float_bits(in[t->in_array[q]][t->in_elem[q]]);
        else {
            eg_node n = vz_chosen(p, t->in_cls[q]), x;
            for (uint32_t l = 0; l < n.n; l++)
                if (vz_leaf(p->g, n.kids[l], &x) && x.op == VZ_GET) lanes[l] = float_bits(in[x.data >> 32][(uint32_t)x.data]);
                else if (vz_leaf(p->g, n.kids[l], &x) && x.op == VZ_CONST) lanes[l] = (uint64_t)x.data & 0xffffffffu;
        }
        tine_env_bind(env, tp->inputs[q], lanes);
    }
    for (int k = 0; k < tp->nouts && k < p->nchunks; k++) {
        uint64_t got[16];
        if (tine_eval(ctx, tp->outs[k].value, env, got) != 0) {
            check(false, "%s: chunk %d does not evaluate: %s", what, k, tine_error(ctx));
            bad++;
            continue;
        }
        for (int l = 0; l < p->width; l++) {
            int a = p->chunk[k].array[l], e = p->chunk[k].elem[l];
            if (a < 0 || s->out[a][e] < 0) continue;
            float v, want = spec_value(s, s->out[a][e], in, memo, done);
            uint32_t u = (uint32_t)got[l];
            memcpy(&v, &u, 4);
            bool ok = exact ? same_bits(v, want) : fabsf(v - want) <= 0.1f + 1e-4f * fabsf(want);
            if (!ok && bad++ < 3)
                check(false, "%s: the target-level program's %s[%d] = %a, the spec's %a", what, s->array[a].name, e, v, want);
        }
    }
    free(memo);
    free(done);
    tine_env_free(env);
    return bad;
}

/* tprog.c: every kernel at every target, strict and --contract, through the bridge, the
 * peephole and the schedule, interpreted against the spec; the sign pass folds negs' two
 * negations (into sub and into FMA's negated product). */
static void test_tprog(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    const char *targets[] = {"x86-64-sse41", "x86-64-avx2", "x86-64-avx512", "arm-64"};
    const char *fns[] = {"mm3", "conv", "mixed", "pad", "negs"};
    for (size_t k = 0; k < sizeof fns / sizeof *fns; k++) {
        vz_spec *s = spec_of(ctx, KERNELS, fns[k]);
        check(s != NULL, "%s: %s", fns[k], tine_error(ctx));
        for (size_t ti = 0; s && ti < sizeof targets / sizeof *targets; ti++)
            for (int mode = 0; mode < 2; mode++) {
                vz_options o = {.contract = mode == 1};
                vz_program *p = vz_search(ctx, s, vz_target_find(targets[ti]), &o);
                vz_tprog *t = p ? vz_tprog_new(ctx, p, &(tine_tprog_opt){.contract = o.contract}, NULL) : NULL;
                char what[96];
                snprintf(what, sizeof what, "%s at %s%s", fns[k], targets[ti], mode ? " --contract" : "");
                check(t != NULL, "%s: %s", what, tine_error(ctx));
                if (t) {
                    check(tine_tprog_check(t->prog), "%s: the program's order is not valid", what);
                    float buf[4][64];
                    float *in[4] = {buf[0], buf[1], buf[2], buf[3]};
                    int bad = 0;
                    for (int it = 0; it < 40 && !bad; it++) {
                        for (int a = 0; a < 4; a++)
                            for (int i = 0; i < 64; i++) buf[a][i] = draw(mode ? 0 : it % 3);
                        bad = check_tprog_once(ctx, s, p, t, in, mode == 0, what);
                    }
                    check(bad == 0, "%s: the target-level program differs from the spec", what);
                    /* (at AVX-512 the search packs both halves into one 16-lane chunk, the
                       negations as scalars) */
                    if (!strcmp(fns[k], "negs") && !mode && strcmp(targets[ti], "x86-64-avx512")) {
                        bool arm = !strcmp(targets[ti], "arm-64"), fma = strcmp(targets[ti], "x86-64-sse41") != 0;
                        int sub = fired(&t->peep, arm ? "add_neg_f32" : "add_neg_ps");
                        int fnm = fired(&t->peep, arm ? "fmla_nega_f32" : "fma_nega_ps");
                        check(sub >= 1, "%s: a + -b not folded into a subtraction (add_neg fired %d times)", what, sub);
                        check(!fma || fnm >= 1, "%s: fma(-a, b, c) not folded (fma_nega fired %d times)", what, fnm);
                    }
                }
                vz_tprog_free(t);
                vz_program_free(p);
            }
        vz_spec_free(s);
    }
    tine_ctx_free(ctx);
}

/* Validation is what stands between a wrong rule and wrong code: with x = x + 0 (false for
 * -0) the search still runs, and strict validation refuses the program. */
static void test_catches(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    vz_spec *s = spec_of(ctx, KERNELS, "conv");
    vz_options o = {.wrong_identity = true};
    vz_program *p = s ? vz_search(ctx, s, vz_target_find("x86-64-avx2"), &o) : NULL;
    check(p && vz_validate(ctx, p, &o, NULL) != 0 && strstr(tine_error(ctx), "translation validation failed"),
          "a wrong identity is caught: %s", tine_error(ctx));
    vz_program_free(p);
    /* where the wrong identity joins an element (out[1] = a[1] + 0, wrong for a[1] = -0),
       Z3's floating-point theory finds the input that breaks it */
    o.prove_fpa = true;
    vz_options strict = {.prove_fpa = true};
    vz_spec_free(s);
    s = spec_of(ctx, KERNELS, "pad");
    p = s ? vz_search(ctx, s, vz_target_find("x86-64-sse41"), &o) : NULL;
    vz_validation v = {0};
    int rc = p ? vz_validate(ctx, p, &strict, &v) : 0;
    check(p && rc != 0 && strstr(tine_error(ctx), "not equal to the C's") && strstr(tine_error(ctx), "-0"),
          "Z3 refutes the wrong identity with -0: %s", tine_error(ctx));
    vz_program_free(p);
    vz_spec_free(s);
    /* every output of a correct program proven bit-exact one by one */
    s = spec_of(ctx, KERNELS, "mixed");
    p = s ? vz_search(ctx, s, vz_target_find("x86-64-avx2"), &strict) : NULL;
    rc = p ? vz_validate(ctx, p, &strict, &v) : -1;
    check(rc == 0 && v.outputs == 11 && v.proven_fpa + v.by_identities == 11 && v.proven_fpa >= 6,
          "mixed: %d of %d outputs proven in FPA, %d by the identities (%s)", v.proven_fpa, v.outputs, v.by_identities,
          rc ? tine_error(ctx) : "");
    vz_program_free(p);
    vz_spec_free(s);
    /* the identities strict mode relies on, proven in Z3's floating-point theory */
    double t0 = now();
    check(vz_prove_identities(ctx, tine_type(TINE_FLOAT, 32, 1)) == 0, "f32 identities: %s", tine_error(ctx));
    check(vz_prove_identities(ctx, tine_type(TINE_FLOAT, 64, 1)) == 0, "f64 identities: %s", tine_error(ctx));
    printf("test_vectorize: identities proven in %.1f s\n", now() - t0);
    /* the reals prover: (a + b) * c = a * c + b * c holds, (a + b) * c = a * c + b does not */
    vz_spec *t = tine_xcalloc(1, sizeof *t);
    t->elem = tine_type(TINE_FLOAT, 32, 1);
    int32_t a = vz_get(t, 0, 0), b = vz_get(t, 0, 1), c = vz_get(t, 0, 2);
    int32_t ab[2] = {a, b}, sum = vz_add(t, VZ_ADD, 0, 2, ab), sc[2] = {sum, c}, lhs = vz_add(t, VZ_MUL, 0, 2, sc);
    int32_t ac[2] = {a, c}, bc[2] = {b, c}, pa = vz_add(t, VZ_MUL, 0, 2, ac), pb = vz_add(t, VZ_MUL, 0, 2, bc);
    int32_t r1[2] = {pa, pb}, rhs = vz_add(t, VZ_ADD, 0, 2, r1), r2[2] = {pa, b}, wrong = vz_add(t, VZ_ADD, 0, 2, r2);
    int32_t sq = vz_add(t, VZ_SQRT, 0, 1, &lhs), sq2 = vz_add(t, VZ_SQRT, 0, 1, &rhs);
    check(vz_prove_reals(ctx, t, &lhs, &rhs, 1) == 0, "distributivity over the reals: %s", tine_error(ctx));
    check(vz_prove_reals(ctx, t, &sq, &sq2, 1) == 0, "sqrt of equal reals (Z3, past the normal forms): %s", tine_error(ctx));
    check(vz_prove_reals(ctx, t, &lhs, &wrong, 1) != 0, "a false identity is refuted");
    vz_spec_free(t);
    tine_ctx_free(ctx);
}

/* Limits: a node limit far below what the search wants still yields a valid program. */
static void test_limits(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    vz_spec *s = spec_of(ctx, KERNELS, "conv");
    vz_options o = {.limits = {.max_nodes = 120}};
    vz_program *p = s ? vz_search(ctx, s, vz_target_find("x86-64-avx2"), &o) : NULL;
    check(p && p->report.stop == EG_NODE_LIMIT, "the node limit stops the search (%d)", p ? (int)p->report.stop : -1);
    check(p && vz_validate(ctx, p, &o, NULL) == 0, "the partial search's program is valid: %s", tine_error(ctx));
    if (p) check_against_c(s, p, run_conv, "conv (node limit)", true);
    vz_program_free(p);
    vz_spec_free(s);
    tine_ctx_free(ctx);
}

int main(void) {
    test_front();
    test_qr_size();
    test_errors();
    test_search();
    test_tprog();
    test_catches();
    test_limits();
    printf("test_vectorize: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
