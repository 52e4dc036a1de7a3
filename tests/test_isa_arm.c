/* test_isa_arm.c — every instruction of the AArch64 description run under qemu-aarch64
 * against its semantics, bit for bit, two ways.
 *
 * For each instruction, each form and (for an immediate operand) several counts across
 * the instruction's range, the test builds the instruction node on variables whose lanes
 * make the result fill exactly one register of the form, emits it with tine's emitter as
 * AArch64 assembly (the function t_K_F_I) and checks that the assembly names the
 * mnemonic on a register of the form's width. It also writes a wrapper c_K_F_I that calls
 * the form's arm_neon.h intrinsic. All functions go into ONE static AArch64 program
 * (clang-19 --target=aarch64-linux-gnu, the assembly files concatenated, one generated C
 * driver), which qemu-aarch64 runs once; it writes both results of every input vector to
 * a file, and the host compares each lane with the interpreter, which evaluates the node
 * through the description's semantics.
 *
 * Inputs per form (as test_isa): every combination of the operand types' edge values (a
 * thinned product for three operands; a float type's are g_float_edges: ±0, ±inf, quiet
 * and signalling NaNs, denormals ...), every pair of values where two operands are 8-bit,
 * every value of a lone operand of at most 16 bits, and at least 10,000 random lane
 * tuples (uniform and near the edges; for floats also small halves and modest
 * magnitudes). A float lane is compared bit for bit, except that where the model's lane
 * is a NaN the machine's only has to be a NaN (docs/SEMANTICS.md). The driver does not read them: it computes them
 * with the same code as the host (the generator below is compiled here and pasted into
 * the driver as text), so the program stays small.
 *
 * Skipped (exit 0, with a note) where clang-19 cannot build static AArch64 programs or
 * qemu-aarch64 is missing. The test also checks the description's shape.
 *
 * Usage: test_isa_arm [-v] [--insn NAME] [--keep]
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "ir/ast.h"

#include "testutil.h"
#include "isa_imm.h"
#include "edges.h"

#include <sys/stat.h>
#include <unistd.h>

static bool verbose, keep;

/* ---- the input generator, shared with the driver ----------------------------------------
 * A case's lane tuples are a pure function of the tuple's index: edge products first,
 * then all pairs of the two 8-bit operands (or all values of a lone narrow operand), then
 * random tuples. SHARED compiles the code here and keeps its text for the driver, which also
 * includes edges.h from the tests directory. */
#define SHARED(...) __VA_ARGS__ static const char shared_src[] = #__VA_ARGS__;
/* The operands the driver's rows and gspec hold (arm.isa's entries have at most 4; an
 * instruction may have TINE_INSN_MAX_OPS). */
enum { DRIVER_OPS = 4 };
SHARED(
typedef struct {
    int nops, imm, bits[4], sgn[4], flt[4], ne[4];
    uint64_t e[4][96], immval;
    long nedge, step, npair, nall, nrand, total;
    int p0, p1;
} gspec;

static uint64_t g_mix(uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static void g_init(gspec *s, long nrand) {
    s->nedge = 1;
    s->p0 = s->p1 = -1;
    for (int j = 0; j < s->nops; j++) {
        if (j == s->imm) {
            s->ne[j] = 1;
            s->e[j][0] = s->immval;
            continue;
        }
        s->ne[j] = s->flt[j] ? g_float_edges(s->bits[j], s->e[j]) : g_edges(s->bits[j], s->sgn[j], s->e[j]);
        s->nedge *= s->ne[j];
        if (s->bits[j] == 8) {
            if (s->p0 < 0) s->p0 = j;
            else if (s->p1 < 0) s->p1 = j;
        }
    }
    s->step = s->nedge > 20000 ? s->nedge / 20000 : 1;
    s->nedge = (s->nedge + s->step - 1) / s->step;
    s->npair = s->p1 >= 0 ? 65536 : 0;
    s->nall = 0;
    if (s->nops - (s->imm >= 0) == 1)
        for (int j = 0; j < s->nops; j++)
            if (j != s->imm && s->bits[j] <= 16) s->nall = 1l << s->bits[j];
    s->nrand = nrand;
    s->total = s->nedge + s->npair + s->nall + s->nrand;
}

/* A random float lane's bits (bits 32 or 64): any bits (NaNs, infinities, denormals), an
 * edge's neighbours, a small integer or half (ties of rounding), or a value of modest
 * magnitude (exponent within 40 of 1's), either sign. */
static uint64_t g_frand(int bits, uint64_t r, uint64_t r2) {
    int mb = bits == 32 ? 23 : 52, bias = bits == 32 ? 127 : 1023;
    uint64_t m = g_mask(bits);
    switch (r % 4) {
    case 0: return r2 & m;
    case 1: {
        uint64_t e[30];
        int n = g_float_edges(bits, e);
        return (e[r2 % (uint64_t)n] + (r2 >> 32) % 5 - 2) & m;
    }
    case 2: {
        double d = (double)((int64_t)(r2 % 4001) - 2000) / 2;
        float f = (float)d;
        uint64_t v = 0;
        if (bits == 32) memcpy(&v, &f, 4);
        else memcpy(&v, &d, 8);
        return v;
    }
    default:
        return (r2 >> 63) << (bits - 1) | (uint64_t)(bias - 40 + (int)((r2 >> 40) % 81)) << mb |
               (r2 & (((uint64_t)1 << mb) - 1));
    }
}

static uint64_t g_rand(const gspec *s, int j, uint64_t seed) {
    uint64_t r = g_mix(seed), r2 = g_mix(r), m = g_mask(s->bits[j]);
    if (s->flt[j]) return g_frand(s->bits[j], r, r2);
    switch (r % 4) {
    case 0: return r2 & m;
    case 1: return (g_min(s->bits[j], s->sgn[j]) + r2 % 4) & m;
    case 2: return (g_max(s->bits[j], s->sgn[j]) - r2 % 4) & m;
    default: return (r2 >> (r2 % 64)) & m;
    }
}

static uint64_t g_val(const gspec *s, long k, int j) {
    if (j == s->imm) return s->immval;
    k %= s->total;
    if (k < s->nedge) {
        long r = k * s->step;
        for (int i = 0; i < j; i++) r /= s->ne[i];
        return s->e[j][r % s->ne[j]];
    }
    k -= s->nedge;
    if (k < s->npair && (j == s->p0 || j == s->p1)) return (uint64_t)(j == s->p0 ? k & 255 : k >> 8);
    if (k < s->npair) return g_rand(s, j, (uint64_t)k * 8 + (uint64_t)j + 0x5eed);
    k -= s->npair;
    if (k < s->nall) return (uint64_t)k;
    k -= s->nall;
    return g_rand(s, j, (uint64_t)k * 8 + (uint64_t)j);
}
)

/* ---- cases ------------------------------------------------------------------------------ */

typedef struct {
    int code, form;
    const tine_insn *in;
    char sym[48], csym[48]; /* t_K_F_I: three ints */
    tine_expr_t *e, *vars[TINE_INSN_MAX_OPS];
    int lanes[TINE_INSN_MAX_OPS], rlanes, L0, nvec;
    bool reduce; /* an across-vector sum: one result lane */
    int argop[TINE_INSN_MAX_OPS], nargs;
    gspec s;
} acase;

/* The C type of `lanes` lanes of t (a scalar for one lane that is not a whole register). */
static void ctype(tine_type_t t, int lanes, char *out, size_t n) {
    const char *u = t.kind == TINE_UINT ? "u" : "", *k = t.kind == TINE_FLOAT ? "float" : "int";
    bool reg = lanes * t.bits == 64 || lanes * t.bits == 128;
    if (reg) snprintf(out, n, "%s%s%dx%d_t", u, k, t.bits, lanes);
    else if (t.kind == TINE_FLOAT) snprintf(out, n, "%s", t.bits == 32 ? "float" : "double");
    else snprintf(out, n, "%sint%d_t", u, t.bits);
}

static const char *ARR64[] = {".8b", ".4h", ".2s", ".1d"}, *ARR128[] = {".16b", ".8h", ".4s", ".2d"};

/* The assembly names the mnemonic on a line with a register arrangement of the form's
 * width. */
static void check_asm(const acase *c, const char *text) {
    char m[32];
    mnemonic(c->in->name, m, sizeof m);
    const char **arr = c->in->form[c->form].bits == 64 ? ARR64 : ARR128;
    bool found = false;
    size_t ml = strlen(m);
    for (const char *line = text; line && *line && !found;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char buf[256];
        snprintf(buf, sizeof buf, "%.*s", (int)(len < 255 ? len : 255), line);
        char *p = buf;
        while (*p == ' ' || *p == '\t') p++;
        /* LLVM writes RSHRN by the full narrow width as RADDHN with zero, the same value */
        bool alt = !strcmp(m, "rshrn") && !strncmp(p, "raddhn", 6) && (p[6] == ' ' || p[6] == '\t');
        /* a pairwise d form's operand fills a q register, and LLVM pairs it there (addp
           v0.16b, v0.16b, v0.16b) and keeps the low half: the same lanes */
        bool q_too = c->in->pack && arr == ARR64;
        if (alt || (!strncmp(p, m, ml) && (p[ml] == ' ' || p[ml] == '\t')))
            for (int a = 0; a < 4 && !found; a++) found = strstr(p, arr[a]) != NULL || (q_too && strstr(p, ARR128[a]));
        /* one 64-bit lane is a d register (sqadd d0, d0, d1) */
        for (char *d = p; !found && c->in->form[c->form].bits == 64 && (d = strstr(d, " d")) != NULL; d++)
            found = d[2] >= '0' && d[2] <= '9';
        line = nl ? nl + 1 : NULL;
    }
    check(found, "%s (%s): the assembly has no %s on %d-bit registers:\n%s", c->in->name, c->in->form[c->form].reg, m,
          c->in->form[c->form].bits, text);
}

/* Builds case c (instruction code, form, immediate); false on failure (reported). */
static bool build_case(tine_ctx_t *ctx, acase *c, int64_t immval, FILE *asmf) {
    const tine_insn *in = c->in;
    int W = in->form[c->form].bits;
    c->rlanes = W / in->result.bits;
    c->reduce = in->probe_result == 1 && in->result.bits < in->form[0].bits;
    if (c->reduce) { /* not when every operand had one lane too (xtn_i64 at 64 bits) */
        bool many = false;
        for (int j = 0; j < in->nops; j++) many |= j != in->imm && in->probe_lanes[j] > 1;
        c->reduce = many;
    }
    if (in->nops > DRIVER_OPS) {
        fail("%s: %d operands; the driver's rows hold %d", in->name, in->nops, DRIVER_OPS);
        return false;
    }
    bool ok;
    if (c->reduce) { /* an across-vector sum: the operands fill the register */
        ok = true;
        c->rlanes = 1;
        for (int j = 0; j < in->nops; j++) c->lanes[j] = in->probe_lanes[j] * W / in->form[0].bits;
    } else {
        ok = tine_insn_operand_lanes(in, c->rlanes, c->lanes);
    }
    if (!ok) {
        fail("%s (%s): no operand lanes for %d result lanes", in->name, in->form[c->form].reg, c->rlanes);
        return false;
    }
    tine_expr_t *ops[TINE_INSN_MAX_OPS];
    c->L0 = 1;
    for (int j = 0; j < in->nops; j++) {
        tine_type_t t = tine_type_with_lanes(in->optype[j], c->lanes[j]);
        if (j == in->imm) {
            ops[j] = c->vars[j] = tine_const_int(ctx, t, immval);
            continue;
        }
        char name[4] = {(char)('a' + j), 0};
        ops[j] = c->vars[j] = tine_var(ctx, name, t);
        if (c->lanes[j] > c->L0) c->L0 = c->lanes[j];
    }
    c->e = tine_insn_make(ctx, (uint32_t)c->code, in->nops, ops);
    if (!c->e) {
        fail("%s (%s): cannot build the node: %s", in->name, in->form[c->form].reg, tine_error(ctx));
        return false;
    }
    if (tine_expr_type(c->e).lanes != c->rlanes) {
        fail("%s (%s): the node has %d lanes, not %d", in->name, in->form[c->form].reg, tine_expr_type(c->e).lanes,
             c->rlanes);
        return false;
    }
    size_t size = 0;
    const tine_expr_t **args = NULL;
    char *text = tine_emit_expr_as(ctx, c->e, "arm-64-i8mm", TINE_SELECT_TINE, TINE_EMIT_ASM, c->sym, &size, &args,
                                   &c->nargs);
    if (!text) {
        fail("%s (%s): no assembly: %s", in->name, in->form[c->form].reg, tine_error(ctx));
        return false;
    }
    check_asm(c, text);
    /* local labels (.Lfunc_end0, .LCPI0_0) are per file: make them the case's own */
    for (const char *p = text; p < text + size; p++) {
        if (p[0] == '.' && p[1] == 'L') fprintf(asmf, ".L%s_", c->sym), p++;
        else fputc(*p, asmf);
    }
    fputc('\n', asmf);
    free(text);
    for (int a = 0; a < c->nargs; a++) {
        c->argop[a] = -1;
        for (int j = 0; j < in->nops; j++)
            if (args[a] == c->vars[j]) c->argop[a] = j;
        check(c->argop[a] >= 0, "%s: argument %d is not an operand", in->name, a);
    }
    free(args);
    c->s.nops = in->nops;
    c->s.imm = in->imm;
    c->s.immval = (uint64_t)immval;
    for (int j = 0; j < in->nops; j++) {
        c->s.bits[j] = in->optype[j].bits;
        c->s.sgn[j] = in->optype[j].kind == TINE_INT;
        c->s.flt[j] = in->optype[j].kind == TINE_FLOAT;
    }
    long nrand = c->L0 * 700 > 10240 ? c->L0 * 700 : 10240;
    g_init(&c->s, nrand);
    c->nvec = (int)((c->s.total + c->L0 - 1) / c->L0);
    return true;
}

/* The driver's part for case c: the intrinsic's wrapper and the case's table row. */
static void write_wrapper(FILE *f, const acase *c, int64_t immval) {
    const tine_insn *in = c->in;
    char rt[32];
    ctype(in->result, c->reduce ? 0 : c->rlanes, rt, sizeof rt);
    fprintf(f, "void %s(const void *const *args, void *out);\n", c->sym);
    fprintf(f, "static void %s(const void *const *o, void *out) {\n", c->csym);
    if (in->pack) { /* the pairwise instructions: the one operand's halves, one register each */
        char t[32];
        ctype(in->optype[0], c->lanes[0] / 2, t, sizeof t);
        fprintf(f, "    %s x0, x1; memcpy(&x0, o[0], sizeof x0); memcpy(&x1, (const char *)o[0] + sizeof x0, sizeof x1);\n"
                   "    %s r = %s(x0, x1);\n    memcpy(out, &r, sizeof r);\n}\n", t, rt, in->form[c->form].c);
        return;
    }
    for (int j = 0; j < in->nops; j++) {
        if (j == in->imm) continue;
        char t[32];
        ctype(in->optype[j], c->lanes[j], t, sizeof t);
        fprintf(f, "    %s x%d; memcpy(&x%d, o[%d], sizeof x%d);\n", t, j, j, j, j);
    }
    fprintf(f, "    %s r = %s(", rt, in->form[c->form].c);
    for (int j = 0; j < in->nops; j++) {
        if (j == in->imm) fprintf(f, "%s%lld", j ? ", " : "", (long long)immval);
        else fprintf(f, "%sx%d", j ? ", " : "", j);
    }
    fprintf(f, ");\n    memcpy(out, &r, sizeof r);\n}\n");
}

static void write_row(FILE *f, const acase *c) {
    const tine_insn *in = c->in;
    fprintf(f, "    {%s, %s, %d, %d, %d, {", c->sym, c->csym, in->nops, c->L0, c->rlanes * in->result.bits / 8);
    for (int j = 0; j < DRIVER_OPS; j++) fprintf(f, "%s%d", j ? ", " : "", j < in->nops ? c->lanes[j] : 0);
    fprintf(f, "}, {");
    for (int j = 0; j < DRIVER_OPS; j++) fprintf(f, "%s%d", j ? ", " : "", j < in->nops ? c->s.bits[j] : 0);
    fprintf(f, "}, %d, {", c->nargs);
    for (int a = 0; a < DRIVER_OPS; a++) fprintf(f, "%s%d", a ? ", " : "", a < c->nargs ? c->argop[a] : 0);
    fprintf(f, "}, {%d, %d, {", in->nops, in->imm);
    for (int j = 0; j < DRIVER_OPS; j++) fprintf(f, "%s%d", j ? ", " : "", j < in->nops ? c->s.bits[j] : 8);
    fprintf(f, "}, {");
    for (int j = 0; j < DRIVER_OPS; j++) fprintf(f, "%s%d", j ? ", " : "", j < in->nops ? c->s.sgn[j] : 0);
    fprintf(f, "}, {");
    for (int j = 0; j < DRIVER_OPS; j++) fprintf(f, "%s%d", j ? ", " : "", j < in->nops ? c->s.flt[j] : 0);
    fprintf(f, "}, {0}, {{0}}, %lluull, 0, 0, 0, 0, 0, 0, 0, 0}, %ld},\n", (unsigned long long)c->s.immval, c->s.nrand);
}

/* The driver's main: per case and vector, the operands from the generator, then both
 * functions' results appended to the output file. */
static const char DRIVER_MAIN[] =
    "static void fill(const gspec *s, const struct row *r, long start, unsigned char op[4][64]) {\n"
    "    for (int j = 0; j < r->nops; j++)\n"
    "        for (int l = 0; l < r->lanes[j]; l++) {\n"
    "            uint64_t v = g_val(s, start + (long)l * r->L0 / r->lanes[j], j);\n"
    "            memcpy(op[j] + l * (r->bits[j] / 8), &v, (size_t)(r->bits[j] / 8));\n"
    "        }\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "    FILE *f = argc > 1 ? fopen(argv[1], \"wb\") : NULL;\n"
    "    if (!f) return 2;\n"
    "    for (unsigned i = 0; i < sizeof rows / sizeof rows[0]; i++) {\n"
    "        const struct row *r = &rows[i];\n"
    "        gspec s = r->s;\n"
    "        g_init(&s, r->nrand);\n"
    "        for (long start = 0; start < s.total; start += r->L0) {\n"
    "            unsigned char op[4][64], res[2][64];\n"
    "            memset(op, 0, sizeof op);\n"
    "            fill(&s, r, start, op);\n"
    "            const void *args[4], *ops[4] = {op[0], op[1], op[2], op[3]};\n"
    "            for (int a = 0; a < r->nargs; a++) args[a] = op[r->argop[a]];\n"
    "            r->t(args, res[0]);\n"
    "            r->c(ops, res[1]);\n"
    "            fwrite(res[0], 1, (size_t)r->rbytes, f);\n"
    "            fwrite(res[1], 1, (size_t)r->rbytes, f);\n"
    "        }\n"
    "    }\n"
    "    return fclose(f) != 0;\n"
    "}\n";

/* Compares every lane of the program's results with the model. */
static void compare(tine_ctx_t *ctx, acase *c, FILE *res) {
    const tine_insn *in = c->in;
    tine_type_t rt = in->result;
    int rbytes = c->rlanes * rt.bits / 8;
    long bad[2] = {0, 0};
    uint64_t mask = g_mask(rt.bits);
    for (int v = 0; v < c->nvec; v++) {
        long start = (long)v * c->L0;
        uint64_t in_lanes[TINE_INSN_MAX_OPS][64];
        tine_env_t *env = tine_env_new(ctx);
        for (int j = 0; j < in->nops; j++) {
            if (j == in->imm) continue;
            for (int l = 0; l < c->lanes[j]; l++) in_lanes[j][l] = g_val(&c->s, start + (long)l * c->L0 / c->lanes[j], j);
            tine_env_bind(env, c->vars[j], in_lanes[j]);
        }
        uint64_t want[64];
        unsigned char got[2][64];
        int rc = tine_eval(ctx, c->e, env, want);
        tine_env_free(env);
        if (fread(got[0], 1, (size_t)rbytes, res) != (size_t)rbytes ||
            fread(got[1], 1, (size_t)rbytes, res) != (size_t)rbytes) {
            fail("%s: the program's results end early", c->sym);
            return;
        }
        if (rc != 0) {
            fail("%s: the interpreter failed: %s", in->name, tine_error(ctx));
            return;
        }
        for (int w = 0; w < 2; w++)
            for (int l = 0; l < c->rlanes; l++) {
                uint64_t g = 0;
                memcpy(&g, got[w] + (size_t)l * (size_t)(rt.bits / 8), (size_t)(rt.bits / 8));
                if ((g & mask) == (want[l] & mask)) continue;
                /* which NaN an arithmetic instruction returns is not the semantics' (SEMANTICS.md) */
                if (rt.kind == TINE_FLOAT && g_is_nan(rt.bits, g & mask) && g_is_nan(rt.bits, want[l] & mask)) continue;
                if (bad[w]++ == 0) {
                    char ops[256] = "";
                    for (int j = 0; j < in->nops; j++) {
                        int lj = (int)((long)l * c->lanes[j] / c->rlanes);
                        uint64_t x = j == in->imm ? c->s.immval : in_lanes[j][lj];
                        snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s%s lane %d = %#llx", j ? ", " : "",
                                 in->opname[j], lj, (unsigned long long)x);
                    }
                    fail("%s (%s%s, %s): result lane %d is %#llx under qemu, %#llx in the model (%s)", in->name,
                         in->form[c->form].reg, in->imm >= 0 ? " imm" : "", w ? in->form[c->form].c : "tine", l,
                         (unsigned long long)g, (unsigned long long)(want[l] & mask), ops);
                }
            }
    }
    check(bad[0] == 0 && bad[1] == 0, "%s: %ld mismatches through tine, %ld through %s, in %ld tuples", c->sym,
          bad[0], bad[1], in->form[c->form].c, c->s.total);
    if (verbose)
        printf("  %-14s %s imm %lld: %ld tuples in %d vectors\n", in->name, in->form[c->form].reg,
               (long long)c->s.immval, c->s.total, c->nvec);
}

/* ---- the description itself ------------------------------------------------------------ */

static void test_shape(tine_ctx_t *ctx) {
    const tine_isa *isa = tine_isa_get(ctx, "arm");
    check(isa && isa->n >= 150, "the arm description has %d instructions", isa ? isa->n : 0);
    for (int k = 0; isa && k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        check(in->nforms >= 1 && in->lat > 0 && in->rtp > 0, "%s: forms and cost", in->name);
        for (int f = 0; f < in->nforms; f++) {
            const tine_insn_form *fm = &in->form[f];
            check(fm->c && fm->c[0] == 'v', "%s: the arm_neon.h name of form %s", in->name, fm->reg);
            check(in->generic || (fm->llvm && !strncmp(fm->llvm, "llvm.", 5)), "%s: the LLVM name of form %s",
                  in->name, fm->reg);
            check(fm->bits == 64 || fm->bits == 128, "%s: form %s is a d or q register", in->name, fm->reg);
        }
        char m[32];
        mnemonic(in->name, m, sizeof m);
        check(strlen(m) > 1 && strlen(m) < strlen(in->name), "%s: named mnemonic_type", in->name);
    }
    bool found;
    uint32_t base = tine_isa_target(isa, "arm-64", &found);
    check(found, "target arm-64");
    uint32_t i8mm = tine_isa_target(isa, "arm-64-i8mm", &found);
    check(found && (i8mm & base) == base && i8mm != base, "target arm-64-i8mm has arm-64's features and more");
}

/* ---- running ---------------------------------------------------------------------------- */

static int run(const char *cmd, char *out, size_t n) {
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    size_t got = fread(out, 1, n - 1, p);
    out[got] = 0;
    for (char sink[4096]; fread(sink, 1, sizeof sink, p) > 0;) {}
    return pclose(p);
}

#define CC "clang-19 --target=aarch64-linux-gnu -march=armv8.6-a+i8mm+dotprod+rdm -O1 -static -w -flax-vector-conversions=all"

/* Why the AArch64 toolchain cannot be used here, or NULL. */
static const char *toolchain_missing(const char *dir) {
    struct stat st;
    if (stat("/usr/aarch64-linux-gnu", &st) != 0) return "the AArch64 sysroot /usr/aarch64-linux-gnu is missing";
    char cmd[1024], out[4096];
    if (run("command -v qemu-aarch64 2>&1", out, sizeof out) != 0) return "qemu-aarch64 is not installed";
    snprintf(cmd, sizeof cmd,
             "printf '#include <arm_neon.h>\\nint main(void){return vaddv_u8(vdup_n_u8(1)) != 8;}\\n' > %s/probe.c && "
             CC " -o %s/probe %s/probe.c 2>&1 && qemu-aarch64 %s/probe 2>&1",
             dir, dir, dir, dir);
    if (run(cmd, out, sizeof out) != 0) return "clang-19 cannot build and qemu-aarch64 run a static AArch64 program";
    return NULL;
}

int main(int argc, char **argv) {
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "--keep")) keep = true;
        else if (!strcmp(argv[i], "--insn") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: test_isa_arm [-v] [--insn NAME] [--keep]\n");
            return 2;
        }
    }
    double t0 = now();
    tine_ctx_t *ctx = tine_ctx_new();
    test_shape(ctx);
    char dir[] = "/tmp/tine-isa-arm-XXXXXX";
    if (!mkdtemp(dir)) {
        fail("cannot make a temporary directory");
        return 1;
    }
    const char *why = toolchain_missing(dir);
    if (why) {
        printf("test_isa_arm: skipped: %s\n", why);
        printf("test_isa_arm: %lld checks passed, %lld failed\n", g_pass, g_fail);
        tine_ctx_free(ctx);
        return g_fail != 0;
    }
    const tine_isa *isa = tine_isa_get(ctx, "arm");
    int id = tine_isa_lookup(ctx, isa->insn[0].name) >> 12;
    char path[256], cmd[2048];
    snprintf(path, sizeof path, "%s/all.s", dir);
    FILE *asmf = fopen(path, "w");
    snprintf(path, sizeof path, "%s/driver.c", dir);
    FILE *drv = fopen(path, "w");
    if (!asmf || !drv) {
        fail("cannot write in %s", dir);
        return 1;
    }
    char here[1024]; /* the tests directory (ctest's working directory): the driver includes edges.h */
    if (!getcwd(here, sizeof here)) {
        fail("cannot read the working directory");
        return 1;
    }
    fprintf(drv, "#include <arm_neon.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n"
                 "#include \"%s/edges.h\"\n%s\n",
            here, shared_src);
    fprintf(drv, "struct row { void (*t)(const void *const *, void *); void (*c)(const void *const *, void *);\n"
                 "    int nops, L0, rbytes, lanes[4], bits[4], nargs, argop[4]; gspec s; long nrand; };\n");
    int ncases = 0, cap = 64;
    acase *cases = malloc(sizeof *cases * (size_t)cap);
    int64_t *imms = malloc(sizeof *imms * (size_t)cap);
    int ninsn = 0;
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        if (only && strcmp(only, in->name)) continue;
        ninsn++;
        for (int f = 0; f < in->nforms; f++) {
            int64_t iv[8] = {0};
            int niv = in->imm >= 0 ? imm_values(in, iv) : 1;
            for (int i = 0; i < niv; i++) {
                if (ncases == cap) {
                    cap *= 2;
                    cases = realloc(cases, sizeof *cases * (size_t)cap);
                    imms = realloc(imms, sizeof *imms * (size_t)cap);
                }
                acase *c = &cases[ncases];
                memset(c, 0, sizeof *c);
                c->code = id << 12 | k;
                c->form = f;
                c->in = in;
                snprintf(c->sym, sizeof c->sym, "t_%d_%d_%d", k, f, i);
                snprintf(c->csym, sizeof c->csym, "c_%d_%d_%d", k, f, i);
                if (!build_case(ctx, c, iv[i], asmf)) continue;
                write_wrapper(drv, c, iv[i]);
                imms[ncases++] = iv[i];
            }
        }
    }
    if (only && !ninsn) fail("no instruction is named '%s'", only);
    fprintf(drv, "static const struct row rows[] = {\n");
    for (int i = 0; i < ncases; i++) write_row(drv, &cases[i]);
    fprintf(drv, "};\n%s", DRIVER_MAIN);
    fclose(asmf);
    fclose(drv);
    double t1 = now();
    char out[8192];
    snprintf(cmd, sizeof cmd, CC " -o %s/prog %s/driver.c %s/all.s 2>&1", dir, dir, dir);
    int rc = run(cmd, out, sizeof out);
    check(rc == 0, "the AArch64 program (%s/driver.c, %s/all.s) does not build: %s", dir, dir, out);
    double t2 = now();
    if (rc == 0) {
        snprintf(cmd, sizeof cmd, "qemu-aarch64 %s/prog %s/results.bin 2>&1", dir, dir);
        rc = run(cmd, out, sizeof out);
        check(rc == 0, "the AArch64 program failed under qemu-aarch64 (%d): %s", rc, out);
    }
    double t3 = now();
    snprintf(path, sizeof path, "%s/results.bin", dir);
    FILE *res = rc == 0 ? fopen(path, "rb") : NULL;
    for (int i = 0; res && i < ncases; i++) compare(ctx, &cases[i], res);
    if (res) {
        check(fgetc(res) == EOF, "the program wrote more results than the cases have");
        fclose(res);
    }
    double t4 = now();
    printf("test_isa_arm: %d instructions, %d cases; emit %.1f s, build %.1f s, qemu %.1f s, compare %.1f s\n", ninsn,
           ncases, t1 - t0, t2 - t1, t3 - t2, t4 - t3);
    if (!keep) {
        const char *files[] = {"probe.c", "probe", "all.s", "driver.c", "prog", "results.bin"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            snprintf(path, sizeof path, "%s/%s", dir, files[i]);
            unlink(path);
        }
        rmdir(dir);
    } else {
        printf("test_isa_arm: files kept in %s\n", dir);
    }
    free(cases);
    free(imms);
    tine_ctx_free(ctx);
    printf("test_isa_arm: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
