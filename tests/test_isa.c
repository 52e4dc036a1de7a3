/* test_isa.c — every instruction of the x86 description run on this machine against its
 * semantics, bit for bit.
 *
 * For each instruction and each of its forms whose feature the host has, the test
 * builds the instruction node on variables whose lanes fill exactly one register of
 * that form (the emitter then uses that form), compiles it with LLVM's JIT for the host,
 * and compares every lane with the interpreter, which evaluates the node through the
 * description's semantics. Inputs: every combination of the operand types' edge values
 * (min, max, 0, ±1, min+1, max-1, ±2^k, ±2^k ± 1; for three operands a thinned product),
 * every pair of values for two 8-bit operands, and at least 10,000 random lane tuples
 * (uniform bits, and values near the edges). The same node at half a register (padded
 * by the emitter) and at two registers (split) is checked on random inputs too, and the
 * form's assembly must name the instruction on a register of its width (vpavgb on %ymm).
 * A form the host lacks is reported and not run; a model that disagrees with the
 * hardware fails.
 *
 * The C intrinsics are checked the same way: the test writes a C file that calls each
 * form's C intrinsic on loaded registers, builds it with clang-19 -march=native into a
 * shared object (cshared.h), and compares its results on random and edge inputs with the model (a
 * pack's result in the machine's per-block order). A misspelt C name fails the build,
 * and the test with it.
 *
 * The test also checks the description's shape (every instruction has its forms, cost,
 * LLVM and C names) and that malformed descriptions get located errors.
 *
 * Usage: test_isa [-v] [--insn NAME]
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "ir/ast.h"

#include "testutil.h"
#include "edges.h"
#include "cshared.h"

#include <dlfcn.h>
#include <math.h>
#include <unistd.h>

static uint64_t rng = 0x15a15a15aull;
static uint64_t rnd(void) { return tine_rand64(&rng); }
static bool verbose;

static int64_t tmin(tine_type_t t) { return t.kind == TINE_INT ? -(int64_t)((1ull << (t.bits - 1)) - 1) - 1 : 0; }
static uint64_t tmask(tine_type_t t) { return t.bits == 64 ? ~0ull : (1ull << t.bits) - 1; }
static uint64_t tmax(tine_type_t t) { return t.kind == TINE_INT ? (tmask(t) >> 1) : tmask(t); }

/* Edge values of t as bit patterns (edges.h, shared with test_isa_arm). */
static int edges(tine_type_t t, uint64_t *out) {
    return t.kind == TINE_FLOAT ? g_float_edges(t.bits, out) : g_edges(t.bits, t.kind == TINE_INT, out);
}

static uint64_t rand_val(tine_type_t t) {
    uint64_t m = tmask(t), r = rnd();
    if (t.kind == TINE_FLOAT) { /* any bits (NaNs, denormals), or a value of modest size */
        if (r % 2) return rnd() & m;
        double d = (double)(int64_t)rnd() / ldexp(1.0, (int)(rnd() % 80));
        return (uint64_t)tine_bits_of_float(t, r % 4 == 0 ? trunc(d) + 0.5 : d);
    }
    switch (r % 4) {
    case 0: return rnd() & m;
    case 1: return ((uint64_t)tmin(t) + (rnd() % 4)) & m;
    case 2: return (tmax(t) - (rnd() % 4)) & m;
    default: return (rnd() >> (rnd() % 64)) & m;
    }
}

typedef struct {
    tine_ctx_t *ctx;
    const tine_insn *in;
    const char *form;
    tine_expr_t *e, *vars[TINE_INSN_MAX_OPS];
    tine_jit_t *jit;
    int lanes[TINE_INSN_MAX_OPS];
    /* pending lane tuples */
    uint64_t *vals[TINE_INSN_MAX_OPS];
    int n;
    long tuples, vectors, mismatches;
} icase;

/* Runs the pending tuples (a partial last vector is filled by repeating tuples). */
static void flush(icase *c) {
    if (c->n == 0) return;
    tine_type_t rt = tine_expr_type(c->e);
    int nops = c->in->nops, L0 = 0;
    for (int j = 0; j < nops; j++)
        if (c->lanes[j] > L0) L0 = c->lanes[j];
    /* lanes of operand j per tuple: operands with fewer lanes (an accumulator) take the
       value of the tuple at their lane's position */
    for (int start = 0; start < c->n; start += L0) {
        uint64_t in[TINE_INSN_MAX_OPS][512];
        for (int j = 0; j < nops; j++)
            for (int l = 0; l < c->lanes[j]; l++) {
                int idx = start + l * L0 / c->lanes[j];
                in[j][l] = c->vals[j][idx < c->n ? idx : idx % c->n];
            }
        tine_env_t *env = tine_env_new(c->ctx);
        const void *args[TINE_INSN_MAX_OPS];
        uint8_t mem[TINE_INSN_MAX_OPS][512 * 8];
        for (int a = 0; a < tine_jit_nargs(c->jit); a++) {
            const tine_expr_t *v = tine_jit_arg(c->jit, a);
            int j = 0;
            while (c->vars[j] != v) j++;
            tine_env_bind(env, v, in[j]);
            int bytes = c->in->optype[j].bits / 8;
            for (int l = 0; l < c->lanes[j]; l++) memcpy(mem[a] + (size_t)l * bytes, &in[j][l], (size_t)bytes);
            args[a] = mem[a];
        }
        uint64_t want[512];
        uint8_t got[512 * 8];
        if (tine_eval(c->ctx, c->e, env, want) != 0) {
            fail("%s (%s): the interpreter failed: %s", c->in->name, c->form, tine_error(c->ctx));
            tine_env_free(env);
            return;
        }
        tine_jit_call(c->jit, args, got);
        tine_env_free(env);
        int bytes = rt.bits / 8;
        c->vectors++;
        for (int l = 0; l < rt.lanes; l++) {
            uint64_t g = 0;
            memcpy(&g, got + (size_t)l * bytes, (size_t)bytes);
            g &= tmask(rt);
            uint64_t w = want[l] & tmask(rt);
            /* which NaN an arithmetic instruction returns is not the semantics' (SEMANTICS.md) */
            if (g != w && !(rt.kind == TINE_FLOAT && g_is_nan(rt.bits, g) && g_is_nan(rt.bits, w))) {
                if (c->mismatches++ == 0) {
                    char ops[256] = "";
                    for (int j = 0; j < nops; j++) {
                        int lj = l * c->lanes[j] / rt.lanes;
                        snprintf(ops + strlen(ops), sizeof ops - strlen(ops), "%s%s lane %d = %#llx", j ? ", " : "",
                                 c->in->opname[j], lj, (unsigned long long)in[j][lj]);
                    }
                    fail("%s (%s): result lane %d is %#llx on the machine, %#llx in the model (%s)", c->in->name,
                         c->form, l, (unsigned long long)g, (unsigned long long)w, ops);
                }
            }
        }
    }
    c->tuples += c->n;
    c->n = 0;
}

static void add(icase *c, const uint64_t *t) {
    for (int j = 0; j < c->in->nops; j++) c->vals[j][c->n] = t[j];
    if (++c->n == 4096) flush(c);
}

/* Random tuples, edge tuples, and all 8-bit pairs where there are two 8-bit operands. */
static void inputs(icase *c, int random) {
    const tine_insn *in = c->in;
    uint64_t e[TINE_INSN_MAX_OPS][128], t[TINE_INSN_MAX_OPS];
    int ne[TINE_INSN_MAX_OPS];
    for (int j = 0; j < in->nops; j++) ne[j] = edges(in->optype[j], e[j]);
    if (random < 0) return;
    /* edge products (thinned for three operands) */
    long total = 1;
    for (int j = 0; j < in->nops; j++) total *= ne[j];
    long step = total > 20000 ? total / 20000 : 1;
    for (long k = 0; k < total; k += step) {
        long r = k;
        for (int j = 0; j < in->nops; j++) {
            t[j] = e[j][r % ne[j]];
            r /= ne[j];
        }
        add(c, t);
    }
    bool all8 = in->nops == 2 && in->optype[0].bits == 8 && in->optype[1].bits == 8;
    if (all8)
        for (int a = 0; a < 256; a++)
            for (int b = 0; b < 256; b++) {
                t[0] = (uint64_t)a;
                t[1] = (uint64_t)b;
                add(c, t);
            }
    if (in->nops == 1 && in->optype[0].bits <= 16)
        for (uint64_t a = 0; a <= tmask(in->optype[0]); a++) add(c, &a);
    for (int k = 0; k < random; k++) {
        for (int j = 0; j < in->nops; j++) t[j] = rand_val(in->optype[j]);
        add(c, t);
    }
    flush(c);
}

/* The node at `bits` bits of result, compiled for the host. */
static bool build(icase *c, int code, int bits) {
    const tine_insn *in = c->in;
    tine_expr_t *ops[TINE_INSN_MAX_OPS];
    for (int j = 0; j < in->nops; j++) {
        tine_type_t t = in->optype[j];
        /* operands fill the result's bits (a pack operand twice that), the accumulator too */
        int l = bits / t.bits * (in->pack ? 2 : 1);
        if (j == 0 && in->nops == 3) l = bits / t.bits;
        c->lanes[j] = l;
        char name[16];
        snprintf(name, sizeof name, "%c", 'a' + j);
        ops[j] = c->vars[j] = tine_var(c->ctx, name, tine_type_with_lanes(t, l));
    }
    c->e = tine_insn_make(c->ctx, (uint32_t)code, in->nops, ops);
    if (!c->e) {
        fail("%s: cannot build the node at %d bits: %s", in->name, bits, tine_error(c->ctx));
        return false;
    }
    c->jit = tine_jit_expr(c->ctx, c->e, "host", TINE_SELECT_TINE);
    if (!c->jit) {
        fail("%s: does not compile at %d bits: %s", in->name, bits, tine_error(c->ctx));
        return false;
    }
    return true;
}

/* The assembly must hold the mnemonic on a register of the form's width. */
static void check_asm(icase *c, const tine_insn_form *f) {
    char *text = tine_emit_expr(c->ctx, c->e, "host", TINE_SELECT_TINE, TINE_EMIT_ASM);
    if (!text) {
        fail("%s (%s): no assembly: %s", c->in->name, f->reg, tine_error(c->ctx));
        return;
    }
    bool found = false;
    for (char *line = text; line && *line && !found;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char *m = strstr(line, c->in->name);
        /* vfmadd231ps is the operation; 132, 213 and 231 are its encodings (the register
           allocator picks which register the result overwrites) */
        if (!m && !strncmp(c->in->name, "vf", 2) && strstr(c->in->name, "231")) {
            char alt[32];
            snprintf(alt, sizeof alt, "%s", c->in->name);
            char *d = strstr(alt, "231");
            for (int k = 0; k < 2 && !m; k++) {
                memcpy(d, k ? "132" : "213", 3);
                m = strstr(line, alt);
            }
        }
        /* the bitwise pd instructions are their ps twins bit for bit; LLVM spells them in
           the ps domain when no float arithmetic is near (andpd as andps) */
        static const char *const bitwise_pd[] = {"andpd", "andnpd", "orpd", "xorpd"};
        for (size_t k = 0; !m && k < sizeof bitwise_pd / sizeof *bitwise_pd; k++)
            if (!strcmp(c->in->name, bitwise_pd[k])) {
                char alt[16];
                snprintf(alt, sizeof alt, "%.*sps", (int)strlen(c->in->name) - 2, c->in->name);
                m = strstr(line, alt);
            }
        char reg[8];
        snprintf(reg, sizeof reg, "%%%s", f->reg);
        if (m && (m == line || m[-1] == 'v' || m[-1] == '\t' || m[-1] == ' ') && strstr(line, reg)) found = true;
        line = nl ? nl + 1 : NULL;
    }
    check(found, "%s (%s): the assembly has no %s on %%%s registers", c->in->name, f->reg, c->in->name, f->reg);
    free(text);
}

static void test_insn(int code, uint32_t host) {
    tine_ctx_t *ctx = tine_ctx_new();
    const tine_insn *in = tine_insn_info(ctx, (uint32_t)code, NULL);
    int ran = 0;
    for (int f = 0; f < in->nforms; f++) {
        const tine_insn_form *fm = &in->form[f];
        const tine_isa *isa;
        tine_insn_info(ctx, (uint32_t)code, &isa);
        if (fm->features & ~host) {
            printf("  %-10s %s: this machine lacks %s; not run\n", in->name, fm->reg,
                   isa->features[__builtin_ctz(fm->features & ~host)]);
            continue;
        }
        ran++;
        int rbits = fm->bits;
        icase c = {.ctx = ctx, .in = in, .form = fm->reg};
        for (int j = 0; j < in->nops; j++) c.vals[j] = malloc(4096 * sizeof(uint64_t));
        /* the form's own width: the full input set and the assembly */
        if (build(&c, code, rbits)) {
            check_asm(&c, fm);
            int lanes = c.lanes[in->nops - 1];
            inputs(&c, lanes * 700 > 10240 ? lanes * 700 : 10240);
            tine_jit_free(c.jit);
            check(c.mismatches == 0 && c.tuples >= 10000, "%s (%s): %ld mismatches in %ld tuples", in->name,
                  fm->reg, c.mismatches, c.tuples);
            if (verbose) printf("  %-10s %s: %ld tuples in %ld vectors\n", in->name, fm->reg, c.tuples, c.vectors);
        }
        /* half a register (padded) and two registers (split), on random inputs; the
           narrowest form only (wider ones would pick another form) */
        int sizes[2] = {rbits / 2, 2 * rbits};
        for (int s = 0; s < 2; s++) {
            if (s == 0 && f != 0) continue;
            int total = sizes[s] / in->result.bits;
            if (total < 1 || (in->nops >= 2 && sizes[s] / in->optype[in->nops - 1].bits < 8)) continue;
            icase d = {.ctx = ctx, .in = in, .form = s ? "two registers" : "half a register"};
            for (int j = 0; j < in->nops; j++) d.vals[j] = c.vals[j];
            if (!build(&d, code, sizes[s])) continue;
            uint64_t t[TINE_INSN_MAX_OPS];
            for (int k = 0; k < 2048; k++) {
                for (int j = 0; j < in->nops; j++) t[j] = rand_val(in->optype[j]);
                add(&d, t);
            }
            flush(&d);
            tine_jit_free(d.jit);
            check(d.mismatches == 0, "%s at %d bits: %ld mismatches", in->name, sizes[s], d.mismatches);
        }
        for (int j = 0; j < in->nops; j++) free(c.vals[j]);
    }
    (void)ran;
    tine_ctx_free(ctx);
}

/* ---- the description itself ------------------------------------------------------------ */

static void test_shape(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    const tine_isa *isa = tine_isa_get(ctx, "x86");
    check(isa && isa->n >= 40, "the x86 description has %d instructions", isa ? isa->n : 0);
    for (int k = 0; isa && k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        check(in->nforms >= 1 && in->lat > 0 && in->rtp > 0, "%s: forms and cost", in->name);
        for (int f = 0; f < in->nforms; f++)
            check(in->form[f].c && !strncmp(in->form[f].c, "_mm", 3), "%s: C intrinsic of form %d", in->name, f);
    }
    /* targets: the registry's x86 rows, in its order, each with the features of the one
       before it and more; four of them */
    uint32_t prev = 0;
    int nlevels = 0;
    for (int i = 0; tine_target_name(ctx, i); i++) {
        const char *level = tine_target_name(ctx, i);
        if (strcmp(tine_target_isa(level), "x86")) continue;
        bool found;
        uint32_t m = tine_isa_target(isa, level, &found);
        check(found && (m & prev) == prev && m != prev, "target %s and its features", level);
        prev = m;
        nlevels++;
    }
    check(nlevels == 4, "the x86 targets: %d, not 4", nlevels);
    tine_ctx_free(ctx);
}

/* Malformed descriptions, each with its located message. */
static void test_errors(void) {
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a\n  forms xmm:avx9\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:4:13: unknown feature 'avx9' (declare it with 'feature')"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a\n  forms qmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:4:9: unknown register width 'qmm' (declare it with 'width')"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a + b\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:3:20: "},
        {"feature sse2\nwidth xmm 100\n", "<t>:2:11: a register width is a power of two from 64 to 2048 bits"},
        {"feature sse2\nwidth xmm 128\ninsn f(a) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:3:8: an operand is written name:TYPE with an integer or float type (a:u8)"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a\n  forms xmm:sse2\n  cost 1\n", "<t>:6:1: expected the reciprocal throughput (a number), found end of input"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f _mm_g\n",
         "<t>:7:5: instruction 'f' has 1 forms but 2 C names"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f(_P\n",
         "<t>:8:1: expected ')' after the intrinsic's fixed argument"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c\n",
         "<t>:8:1: expected a C intrinsic name per form, found end of input"},
        {"feature sse2\nbogus\n", "<t>:2:1: expected 'feature', 'target', 'width', 'byte_shift' or 'insn', found 'bogus'"},
        {"feature sse2\nwidth xmm 128\ninsn add(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:3:6: 'add' is already the name of an op"},
        {"feature sse2\nwidth xmm 128\ninsn sumall(a:u8) = vector_reduce_add(a, 1)\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:3:6: the semantics of 'sumall' do not scale with the lanes (twice the operands' lanes must give twice the result's)"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n  imm b\n",
         "<t>:8:7: 'b' is not an operand of this instruction"},
        /* semantics may use the instructions above them only: not one below, not itself */
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = g(a)\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n"
         "insn g(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_g\n",
         "<t>:3:16: unknown function 'g'"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = f(a)\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:3:16: unknown function 'f'"},
        {"feature sse2\nwidth xmm 128\ninsn f(a:u8) = nosuch(a)\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:3:16: unknown function 'nosuch'"},
        {"feature sse2\nwidth xmm 128\ninsn g(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_g\n"
         "insn g(a:u8) = a\n  forms xmm:sse2\n  cost 1 1\n  llvm generic\n  c _mm_f\n",
         "<t>:8:6: duplicate instruction 'g'"},
        /* fixed (imported) entries: exact types, one form, immediates with their bits */
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16) = a\n  fixed\n  forms ymm:sse2\n  c _mm_f\n",
         "<t>:6:9: the form of 'f' is 256 bits wide, but its widest vector is 128 bits"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16) = a\n  fixed\n  forms xmm:sse2+avx9\n  c _mm_f\n",
         "<t>:6:18: unknown feature 'avx9' (declare it with 'feature')"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x3) = a\n  fixed\n  forms xmm:sse2\n  c _mm_f\n",
         "<t>:4:8: operand a of 'f' is a vector of 24 bits, not of a register width"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16, k:bool) = a\n  fixed\n  forms xmm:sse2\n  c _mm_f\n",
         "<t>:4:17: an operand of a fixed instruction is written name:TYPE"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16, b:u8x16, c:u8x16, d:u8x16, e:u8x16, g:u8x16, h:u8x16) = a\n  fixed\n  forms xmm:sse2\n  c _mm_f\n",
         "<t>:4:6: an instruction has 1 to 6 operands"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16) = a\n  fixed\n  forms xmm:sse2 ymm:avx512f\n  c _mm_f _mm256_f\n",
         "<t>:4:6: fixed instruction 'f' has one form and no 'pack'"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16) = a\n  fixed\n  forms xmm:sse2\n",
         "<t>:6:1: fixed instruction 'f' needs forms and c"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16, n:u32) = a\n  fixed\n  forms xmm:sse2\n  c _mm_f\n  imm a 8\n",
         "<t>:8:7: the immediate 'a' of a fixed instruction is an integer scalar with its bits (imm a 8)"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16, n:u32) = a\n  fixed\n  forms xmm:sse2\n  c _mm_f\n  imm n 40\n",
         "<t>:8:9: an immediate has 1 to 32 bits"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16, n:u32) = a\n  fixed\n  forms xmm:sse2\n  c _mm_f\n  imm n\n",
         "<t>:8:7: the immediate 'n' of a fixed instruction is an integer scalar with its bits (imm n 8)"},
        {"feature sse2 avx512f\nwidth xmm 128\nwidth ymm 256\n"
         "insn f(a:u8x16) = x8(slice(a, 0, 1, 1))\n  fixed\n  forms xmm:sse2\n  c _mm_f\n",
         "<t>:4:6: the result of 'f' is a vector of 64 bits, not of a register width"},

    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tine_ctx_t *ctx = tine_ctx_new();
        tine_isa *isa = tine_isa_parse(ctx, cases[i].text, "<t>");
        const char *err = tine_error(ctx);
        check(!isa && err && !strncmp(err, cases[i].msg, strlen(cases[i].msg)),
              "malformed description %zu: got '%s', want '%s...'", i, err ? err : "(no error)", cases[i].msg);
        if (isa) tine_isa_free(isa);
        tine_ctx_free(ctx);
    }
}

/* An entry's semantics may use an instruction above it in the same description, at
 * the operand types it is used with (f's semantics type only through g's result). */
static void test_nested(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_isa *isa = tine_isa_parse(ctx,
                                   "feature sse2\nwidth xmm 128\ninsn g(a:u8) = widen(a) + 1\n  forms xmm:sse2\n  cost 1 1\n"
                                   "  llvm generic\n  c _mm_g\ninsn f(acc:u16, a:u8) = acc + g(a)\n  forms xmm:sse2\n"
                                   "  cost 1 1\n  llvm generic\n  c _mm_f\n",
                                   "<t>");
    check(isa && isa->n == 2, "an entry using the one above it loads: %s", isa ? "" : tine_error(ctx));
    if (isa) {
        char b[16];
        check(isa->insn[1].result.kind == TINE_UINT && isa->insn[1].result.bits == 16, "f's result is g's, u16 (got %s)",
              tine_type_name(isa->insn[1].result, b));
    }
    tine_isa_free(isa);
    tine_ctx_free(ctx);
}

/* Every instruction's expanded semantics is primitive ops only, also where the
 * semantics use another instruction (srsra_i8 = acc + srshr_i8): expansion goes through
 * the inner one too. Those that do are counted, so the check cannot pass vacuously. */
static void test_expanded(const char *which) {
    tine_ctx_t *ctx = tine_ctx_new();
    const tine_isa *isa = tine_isa_get(ctx, which);
    int nested = 0;
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        tine_expr_t *ops[TINE_INSN_MAX_OPS];
        for (int j = 0; j < in->nops; j++) {
            char name[16]; /* "x" and an int */
            snprintf(name, sizeof name, "x%d", j);
            ops[j] = tine_var(ctx, name, tine_type_with_lanes(in->optype[j], in->probe_lanes[j]));
        }
        tine_expr_t *e = tine_insn_make(ctx, (uint32_t)tine_isa_lookup(ctx, in->name), in->nops, ops);
        if (!e) {
            fail("%s: no node at its probe lanes: %s", in->name, tine_error(ctx));
            continue;
        }
        const tine_expr_t *const *ph;
        const tine_expr_t *sem = tine_insn_template(ctx, e, &ph, false), *exp = tine_insn_template(ctx, e, &ph, true);
        uint32_t n;
        tine_expr_t **order = tine_topo(ctx, sem, &n);
        bool inner = false;
        for (uint32_t i = 0; i < n; i++) inner |= order[i]->op == TINE_OP_INSN;
        free(order);
        nested += inner;
        order = tine_topo(ctx, exp, &n);
        bool prim = true;
        for (uint32_t i = 0; i < n; i++)
            prim &= order[i]->op != TINE_OP_INSN && !tine_op_is_fpir((tine_op_t)order[i]->op);
        free(order);
        check(prim, "%s: the expanded semantics are primitive ops only", in->name);
    }
    if (!strcmp(which, "arm")) check(nested >= 12, "arm: %d entries use another instruction (srsra, sadalp ...)", nested);
    tine_ctx_free(ctx);
}

/* ---- the C intrinsics ------------------------------------------------------------------ */

typedef void (*cfn)(const void *, const void *, const void *, void *);

/* Registers read by form f's C intrinsic (a pack reads two from its one operand). */
static int c_args(const tine_insn *in) { return in->pack ? 2 : in->nops; }

static void test_c_intrinsics(uint32_t host, const char *only) {
    tine_ctx_t *ctx = tine_ctx_new();
    const tine_isa *isa = tine_isa_get(ctx, "x86");
    char dir[] = "/tmp/tine-isa-XXXXXX";
    if (!mkdtemp(dir)) {
        fail("C intrinsics: cannot make a temporary directory");
        tine_ctx_free(ctx);
        return;
    }
    char src[256], so[256];
    snprintf(src, sizeof src, "%s/intrinsics.c", dir);
    snprintf(so, sizeof so, "%s/intrinsics.so", dir);
    FILE *f = fopen(src, "w");
    if (!f) {
        fail("C intrinsics: cannot write %s", src);
        tine_ctx_free(ctx);
        return;
    }
    fprintf(f, "#include <immintrin.h>\n");
    int nfn = 0;
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        if (only && strcmp(only, in->name)) continue;
        for (int fm = 0; fm < in->nforms; fm++) {
            if (in->form[fm].features & ~host) continue;
            int W = in->form[fm].bits;
            const char *pre = W == 128 ? "_mm" : W == 256 ? "_mm256" : "_mm512";
            /* each register as its lanes' kind: __m128 (ps), __m128d (pd) or __m128i */
            char ty[4][16], ld[4][64], st[64];
            for (int j = 0; j < 4; j++) {
                tine_type_t t = j < 3 ? (j < in->nops ? in->optype[j] : in->optype[0]) : in->result;
                bool fl = t.kind == TINE_FLOAT;
                snprintf(ty[j], sizeof ty[j], "__m%d%s", W, !fl ? "i" : t.bits == 64 ? "d" : "");
                snprintf(ld[j], sizeof ld[j], "%s_loadu_%s", pre, !fl ? (W == 128 ? "si128" : W == 256 ? "si256" : "si512")
                                                               : t.bits == 64 ? "pd" : "ps");
                if (j == 3) snprintf(st, sizeof st, "%s_storeu_%s", pre, ld[j] + strlen(pre) + 7);
            }
            fprintf(f, "void t_%d_%d(const void *a, const void *b, const void *c, void *out) {\n", k, fm);
            fprintf(f, "    %s r0 = %s((const void *)a);\n    %s r1 = %s((const void *)b);\n    %s r2 = %s((const void *)c);\n",
                    ty[0], ld[0], ty[1], ld[1], ty[2], ld[2]);
            fprintf(f, "    (void)r0; (void)r1; (void)r2;\n");
            /* a compare's mask lanes are integers, its intrinsic's register a float one */
            fprintf(f, "    %s r = (%s)%s(", ty[3], ty[3], in->form[fm].c);
            for (int j = 0; j < c_args(in); j++) fprintf(f, "%sr%d", j ? ", " : "", j);
            if (in->form[fm].c_arg) fprintf(f, ", %s", in->form[fm].c_arg);
            fprintf(f, ");\n    %s((void *)out, r);\n}\n", st);
            nfn++;
        }
    }
    fclose(f);
    char out[4096], *srcs[1] = {src};
    void *lib = cshared_build(srcs, 1, so, out, sizeof out) ? dlopen(so, RTLD_NOW) : NULL;
    cshared_clean(srcs, 1);
    check(lib != NULL, "C intrinsics: %s does not build with clang-19 (%d functions): %s", src, nfn, out);
    for (int k = 0; lib && k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        if (only && strcmp(only, in->name)) continue;
        for (int fm = 0; fm < in->nforms; fm++) {
            if (in->form[fm].features & ~host) continue;
            char sym[32];
            snprintf(sym, sizeof sym, "t_%d_%d", k, fm);
            cfn fn = (cfn)(uintptr_t)dlsym(lib, sym);
            int W = in->form[fm].bits;
            icase c = {.ctx = ctx, .in = in, .form = in->form[fm].reg};
            if (!fn || !build(&c, k, W)) {
                fail("C intrinsics: %s (%s) missing", in->name, in->form[fm].reg);
                continue;
            }
            tine_jit_free(c.jit);
            tine_type_t rt = tine_expr_type(c.e);
            long bad = 0;
            for (int v = 0; v < 3000 && bad == 0; v++) {
                uint8_t mem[TINE_INSN_MAX_OPS][128];
                uint64_t lanes[TINE_INSN_MAX_OPS][128];
                tine_env_t *env = tine_env_new(ctx);
                for (int j = 0; j < in->nops; j++) {
                    tine_type_t t = in->optype[j];
                    uint64_t e[128];
                    int ne = edges(t, e);
                    for (int l = 0; l < c.lanes[j]; l++) {
                        lanes[j][l] = v < 64 ? e[(size_t)(v * 7 + l * (j + 3)) % (size_t)ne] : rand_val(t);
                        memcpy(mem[j] + (size_t)l * (size_t)(t.bits / 8), &lanes[j][l], (size_t)(t.bits / 8));
                    }
                    tine_env_bind(env, c.vars[j], lanes[j]);
                }
                uint64_t want[128];
                uint8_t res[64];
                tine_eval(ctx, c.e, env, want);
                tine_env_free(env);
                /* a pack reads its one operand as two registers */
                const void *a0 = mem[0], *a1 = in->pack ? (const void *)(mem[0] + W / 8) : mem[1 % in->nops];
                fn(a0, a1, mem[in->nops > 2 ? 2 : 0], res);
                int rl = rt.lanes, blk = 128 / rt.bits, half = blk / 2;
                for (int pl = 0; pl < rl && bad == 0; pl++) {
                    int l = pl;
                    if (in->pack) { /* machine lane pl of block j: half from each register */
                        int j = pl / blk, q = pl % blk;
                        l = q < half ? j * half + q : rl / 2 + j * half + (q - half);
                    }
                    uint64_t g = 0;
                    memcpy(&g, res + (size_t)pl * (size_t)(rt.bits / 8), (size_t)(rt.bits / 8));
                    uint64_t w = want[l] & tmask(rt);
                    g &= tmask(rt);
                    if (g != w && !(rt.kind == TINE_FLOAT && g_is_nan(rt.bits, g) && g_is_nan(rt.bits, w))) {
                        bad++;
                        fail("C intrinsic %s (%s): lane %d is %#llx, the model says %#llx", in->form[fm].c,
                             in->form[fm].reg, pl, (unsigned long long)g, (unsigned long long)(want[l] & tmask(rt)));
                    }
                }
            }
            check(bad == 0, "C intrinsic %s", in->form[fm].c);
        }
    }
    if (lib) dlclose(lib);
    unlink(so);
    unlink(src);
    rmdir(dir);
    printf("C intrinsics: %d forms built and compared with their models\n", nfn);
    tine_ctx_free(ctx);
}

int main(int argc, char **argv) {
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = true;
        else if (!strcmp(argv[i], "--insn") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: test_isa [-v] [--insn NAME]\n");
            return 2;
        }
    }
    double t0 = now();
    test_shape();
    test_errors();
    test_nested();
    test_expanded("arm");
    test_expanded("x86");
    tine_ctx_t *ctx = tine_ctx_new();
    uint32_t host = tine_target_features(ctx, "host", NULL);
    const tine_isa *isa = tine_isa_get(ctx, "x86");
    int n = isa->n, tested = 0;
    tine_ctx_free(ctx);
    tine_ctx_t *c2;
    for (int k = 0; k < n; k++) {
        c2 = tine_ctx_new();
        const char *name = tine_insn_info(c2, (uint32_t)k, NULL)->name;
        bool skip = only && strcmp(only, name);
        tine_ctx_free(c2);
        if (skip) continue;
        test_insn(k, host);
        tested++;
    }
    if (only && !tested) fail("no instruction is named '%s'", only);
    c2 = tine_ctx_new();
    test_c_intrinsics(tine_target_features(c2, "host", NULL), only);
    tine_ctx_free(c2);
    printf("test_isa: %d instructions, %.1f s\n", tested, now() - t0);
    printf("test_isa: %lld checks passed, %lld failed\n", g_pass, g_fail);
    return g_fail != 0;
}
