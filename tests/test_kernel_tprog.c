/* test_kernel_tprog.c — the kernels' loop bodies as target-level programs, emitted three
 * ways and compared bit for bit.
 *
 * For a sample of the benchmark kernels (stencils, a matrix product with interleaved
 * packing, pooling, softmax and l2norm's reductions, camera_pipe's halved coordinates,
 * conv_nn's paired loads) and each target this machine runs (x86-64-sse2, -avx2, -avx512;
 * arm-64 under qemu-aarch64 where clang-19 builds static AArch64 programs), the statement
 * after the interleave step is handed to tine_stmt_body_progs, the peephole step's bridge:
 * every innermost straight-line body becomes a program, optimized (peephole and schedule)
 * as the compile driver's peephole step optimizes it. Each distinct program is then
 *
 *   a. written as a C function by tine_cemit_program (inputs read from an array of input
 *      vectors, outputs stored to an array), built with gcc and clang-19 at -O2 -Wall
 *      -Wextra -Werror and the target's flags (tine_target_cflags; AArch64: clang-19
 *      --target, static, run under qemu-aarch64), and run;
 *   b. built node by node in the program's order with tine_cg_emit_node into one LLVM
 *      module per target and run by the JIT (x86 only: the JIT runs this machine's code);
 *   c. evaluated by the interpreter (tine_eval on each output).
 *
 * The inputs are NV vectors per program: all lanes 0, all -1, all the type's minimum, all
 * its maximum, all 0x80 in every byte, then lanes drawn from the type's edges (edges.h)
 * and random bits. Every lane of every output must agree; a mismatch prints the kernel,
 * target, loop, output and the lanes of all three.
 *
 * Usage: test_kernel_tprog [--keep] [--target NAME] [--break]   (--break: the C emitter's
 * first output of each program off by one in lane 0, to see the test fail)
 */
#define _POSIX_C_SOURCE 200809L
#include "internal.h"
#include "codegen/c.h"
#include "codegen/codegen.h"
#include "driver/driver.h"
#include "stmt/body_tprog.h"
#include "targets/targets.h"

#ifndef MAX_REPORT
#define MAX_REPORT 20
#endif
#include "testutil.h"
#include "cshared.h"
#include "edges.h"

#include <sys/stat.h>
#include <unistd.h>

enum { NV = 12, MAXIN = 96, MAXOUT = 16 };

static const char *const KERNELS[] = {"blur3x3", "sobel3x3", "gaussian7x7", "matmul",   "max_pool",
                                      "average_pool", "softmax", "l2norm", "camera_pipe", "conv_nn"};
enum { NK = sizeof KERNELS / sizeof KERNELS[0] };

static tine_ctx_t *g_ctx;
static uint64_t g_rng = 0x6b70726f67ull; /* "kprog" */
static char g_dir[64];
static bool g_keep, g_break;

/* ---- lanes and bytes ------------------------------------------------------------------ */

/* Bytes per lane as the C and the JIT read and write a value: a bool vector is a mask of
 * bytes, a scalar bool an int, other lanes their width. */
static int lane_bytes(tine_type_t t) { return t.kind == TINE_BOOL ? (t.lanes > 1 ? 1 : 4) : t.bits / 8; }
static int value_bytes(tine_type_t t) { return lane_bytes(t) * t.lanes; }

/* A lane's canonical bits (tine_env_bind's: signed lanes sign-extended). */
static uint64_t canon(tine_type_t t, uint64_t v) {
    if (t.kind == TINE_BOOL) return v & 1;
    v &= g_mask(t.bits);
    if (t.kind == TINE_INT && t.bits < 64 && (v >> (t.bits - 1) & 1)) v |= ~g_mask(t.bits);
    return v;
}

/* Lane `l` of input vector `v` of type t: the uniform patterns first, then edges and
 * random bits. */
static uint64_t input_lane(tine_type_t t, int v, int l) {
    (void)l;
    if (t.kind == TINE_BOOL) return v == 1 ? 1 : v < 5 ? 0 : tine_rand64(&g_rng) & 1;
    int sgn = t.kind == TINE_INT;
    switch (v) {
    case 0: return 0;
    case 1: return canon(t, ~0ull);
    case 2: return canon(t, g_min(t.bits, sgn));
    case 3: return canon(t, g_max(t.bits, sgn));
    case 4: return canon(t, 0x8080808080808080ull);
    default: break;
    }
    if (tine_rand64(&g_rng) % 2) {
        uint64_t e[128];
        int n = g_edges(t.bits, sgn, e);
        return canon(t, e[tine_rand64(&g_rng) % (uint64_t)n]);
    }
    return canon(t, tine_rand64(&g_rng) >> (tine_rand64(&g_rng) % 64));
}

static void lanes_to_bytes(tine_type_t t, const uint64_t *lanes, unsigned char *out) {
    int lb = lane_bytes(t);
    for (int l = 0; l < t.lanes; l++) {
        uint64_t x = t.kind == TINE_BOOL && t.lanes > 1 ? (lanes[l] ? 0xff : 0) : lanes[l];
        for (int b = 0; b < lb; b++) out[l * lb + b] = (unsigned char)(x >> (8 * b));
    }
}

/* A result's lanes from its bytes, masked to the type's width (a bool: nonzero). */
static void bytes_to_lanes(tine_type_t t, const unsigned char *in, uint64_t *lanes) {
    int lb = lane_bytes(t);
    for (int l = 0; l < t.lanes; l++) {
        uint64_t x = 0;
        for (int b = lb - 1; b >= 0; b--) x = x << 8 | in[l * lb + b];
        lanes[l] = t.kind == TINE_BOOL ? x != 0 : x & g_mask(t.bits);
    }
}

/* ---- the programs --------------------------------------------------------------------- */

typedef struct {
    char *label;                        /* kernel, target, loop */
    int nin, nout;
    tine_type_t in_t[MAXIN], out_t[MAXOUT];
    char *out_name[MAXOUT];
    unsigned char *in[NV][MAXIN];       /* value_bytes(in_t[i]) each */
    uint64_t *want[NV][MAXOUT];         /* the interpreter's lanes, masked */
} pcase;

/* One target's run: its programs, the C file and the LLVM module they are written into. */
typedef struct {
    const char *name;
    bool arm, jit;
    const char *cflags;
    pcase *cases;
    int n, cap;
    tine_u64map seen;                   /* program -> already taken (bodies repeat) */
    tine_buf c;                         /* the C functions */
    tine_cemit *ce;
    LLVMOrcThreadSafeContextRef tsc;
    gen g;                              /* the module; g.b per function */
    LLVMValueRef *fns;
    int nfns, capfns;
    const char *kernel;
} target_run;

static const tine_tprog *g_cur; /* the program being written (its inputs, for binding) */

/* Input i: its bytes copied into a C variable of its type, bound to it. Every function
 * declares all its inputs first: the emitter keeps bindings across programs (their inputs
 * are the same variables, $.ld0 ...), so it would not ask again for one bound before. */
static void input_c(void *user, int i, tine_buf *out) {
    target_run *T = user;
    char ty[64], nm[16];
    snprintf(nm, sizeof nm, "x%d", i);
    tine_buf_printf(out, "    %s %s;\n    memcpy(&%s, in[%d], sizeof %s);\n    (void)%s;\n",
                    tine_cemit_type(T->ce, g_cur->inputs[i]->type, ty, sizeof ty), nm, nm, i, nm, nm);
    tine_cemit_bind(T->ce, g_cur->inputs[i], nm);
}

static void store_c(void *user, int k, const char *value, tine_buf *out) {
    target_run *T = user;
    char ty[64];
    tine_type_t t = T->cases[T->n - 1].out_t[k];
    tine_buf_printf(out, "    { %s r = %s;\n      memcpy(out[%d], &r, sizeof r); }\n", tine_cemit_type(T->ce, t, ty, sizeof ty),
                    value, k);
    if (g_break && k == 0) /* the deliberate bug: lane 0's lowest byte off by one */
        tine_buf_printf(out, "    out[0][0] ^= 1;\n");
}

/* The program as LLVM function `f<i>(ptr in, ptr out)`: in and out arrays of pointers to
 * each input's and output's bytes; values emitted node by node in the program's order. */
static bool emit_llvm(target_run *T, const tine_tprog *p, int idx) {
    gen *g = &T->g;
    LLVMContextRef lc = g->lc;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(lc, 0), i64 = LLVMInt64TypeInContext(lc);
    LLVMTypeRef params[2] = {ptr, ptr};
    char name[32];
    snprintf(name, sizeof name, "f%d", idx);
    LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(LLVMVoidTypeInContext(lc), params, 2, 0));
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    g->b = LLVMCreateBuilderInContext(lc);
    LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(lc, fn, "entry"));
    g->args = (const tine_expr_t **)p->inputs;
    g->nargs = p->ninputs;
    g->argv = LLVMGetParam(fn, 0);
    LLVMValueRef outv = LLVMGetParam(fn, 1);
    tine_u64map val = {0};
    uint64_t got;
    for (int i = 0; i < p->n; i++) {
        const tine_tprog_item *it = &p->order[i];
        const tine_expr_t *x = it->e;
        if (it->store >= 0) {
            TINE_ASSERT(tine_u64map_get(&val, x->id, &got));
            LLVMValueRef r = (LLVMValueRef)(uintptr_t)got;
            if (x->type.kind == TINE_BOOL) {
                int nb = x->type.lanes > 1 ? 8 : 32; /* as input_lane's bytes: a mask of bytes, an int */
                r = LLVMBuildZExt(g->b, r, LLVMVectorType(LLVMIntTypeInContext(lc, (unsigned)nb), (unsigned)x->type.lanes), "");
            }
            LLVMValueRef k = LLVMConstInt(i64, (unsigned long long)it->store, 0);
            LLVMValueRef slot = LLVMBuildLoad2(g->b, ptr, LLVMBuildGEP2(g->b, ptr, outv, &k, 1, ""), "");
            LLVMSetAlignment(LLVMBuildStore(g->b, r, slot), 1);
            continue;
        }
        if (tine_u64map_get(&val, x->id, &got)) continue;
        LLVMValueRef ov[256]; /* nops is 8 bits */
        for (int k = 0; k < x->nops; k++) {
            if (tine_u64map_get(&val, x->ops[k]->id, &got)) {
                ov[k] = (LLVMValueRef)(uintptr_t)got;
                continue;
            }
            ov[k] = tine_cg_emit_node(g, x->ops[k], NULL); /* a constant */
            tine_u64map_put(&val, x->ops[k]->id, (uint64_t)(uintptr_t)ov[k]);
        }
        LLVMValueRef v = tine_cg_emit_node(g, x, ov);
        tine_u64map_put(&val, x->id, (uint64_t)(uintptr_t)v);
    }
    tine_u64map_free(&val);
    TINE_GROW(T->fns, T->nfns + 1, T->capfns);
    T->fns[T->nfns++] = fn;
    return tine_cg_finish_function(g);
}

/* A body's program seen by the peephole step's bridge: inputs drawn, the interpreter's
 * outputs, the C and the LLVM function written. */
static void seen(void *user, const tine_body_prog *b) {
    target_run *T = user;
    const tine_tprog *p = b->prog;
    const char *loop = b->loop->loop.name ? b->loop->loop.name : "(loop)";
    uint64_t x;
    if (tine_u64map_get(&T->seen, (uint64_t)(uintptr_t)p, &x)) return;
    tine_u64map_put(&T->seen, (uint64_t)(uintptr_t)p, 1);
    if (p->ninputs > MAXIN || p->nouts > MAXOUT) {
        fail("%s %s %s: %d inputs, %d outputs: more than the test holds", T->kernel, T->name, loop, p->ninputs, p->nouts);
        return;
    }
    TINE_GROW(T->cases, T->n + 1, T->cap);
    pcase *c = &T->cases[T->n++];
    memset(c, 0, sizeof *c);
    c->label = tine_xasprintf("%s %s %s (program %d)", T->kernel, T->name, loop, T->n - 1);
    c->nin = p->ninputs;
    c->nout = p->nouts;
    for (int i = 0; i < p->ninputs; i++) c->in_t[i] = p->inputs[i]->type;
    for (int k = 0; k < p->nouts; k++) {
        c->out_t[k] = p->outs[k].value->type;
        c->out_name[k] = tine_strdup(p->outs[k].name);
    }
    for (int v = 0; v < NV; v++) {
        tine_env_t *env = tine_env_new(g_ctx);
        for (int i = 0; i < p->ninputs; i++) {
            uint64_t lanes[TINE_MAX_LANES];
            tine_type_t t = c->in_t[i];
            for (int l = 0; l < t.lanes; l++) lanes[l] = input_lane(t, v, l);
            tine_env_bind(env, p->inputs[i], lanes);
            c->in[v][i] = tine_xmalloc((size_t)value_bytes(t));
            lanes_to_bytes(t, lanes, c->in[v][i]);
        }
        for (int k = 0; k < p->nouts; k++) {
            tine_type_t t = c->out_t[k];
            c->want[v][k] = tine_xcalloc((size_t)t.lanes, sizeof(uint64_t));
            if (tine_eval(g_ctx, p->outs[k].value, env, c->want[v][k]) != 0) {
                fail("%s: the interpreter refuses output %s: %s", c->label, p->outs[k].name, tine_error(g_ctx));
                continue;
            }
            for (int l = 0; l < t.lanes; l++) c->want[v][k][l] = t.kind == TINE_BOOL ? c->want[v][k][l] != 0 : c->want[v][k][l] & g_mask(t.bits);
        }
        tine_env_free(env);
    }
    /* a: the C function */
    g_cur = p;
    tine_cemit_forget(T->ce);
    tine_buf_printf(&T->c, "/* %s */\nstatic __attribute__((noinline)) void f%d(const unsigned char *const *in, unsigned char *const *out) {\n",
                    c->label, T->n - 1);
    tine_buf body = {0};
    tine_buf_puts(&body, "");
    for (int i = 0; i < p->ninputs; i++) input_c(T, i, &body);
    if (!tine_cemit_program(T->ce, p, input_c, store_c, T, &body)) fail("%s: the C emitter refuses: %s", c->label, tine_error(g_ctx));
    tine_buf_printf(&T->c, "%s    (void)in; (void)out;\n}\n", body.p);
    free(body.p);
    /* b: the LLVM function */
    if (T->jit && !emit_llvm(T, p, T->n - 1)) fail("%s: the LLVM module does not verify: %s", c->label, tine_error(g_ctx));
}

/* ---- running a target ------------------------------------------------------------------ */

/* The dispatcher `run(i32 which, ptr in, ptr out)` calling f<which>, and the module run by
 * the JIT; NULL with an error. */
typedef void (*run_fn)(int32_t which, const unsigned char *const *in, unsigned char *const *out);
static run_fn jit_module(target_run *T, LLVMTargetMachineRef tm, char *triple, LLVMOrcLLJITRef *jit) {
    gen *g = &T->g;
    LLVMContextRef lc = g->lc;
    LLVMTypeRef ptr = LLVMPointerTypeInContext(lc, 0), i32 = LLVMInt32TypeInContext(lc);
    LLVMTypeRef fparams[2] = {ptr, ptr}, params[3] = {i32, ptr, ptr};
    LLVMTypeRef fty = LLVMFunctionType(LLVMVoidTypeInContext(lc), fparams, 2, 0);
    LLVMValueRef run = LLVMAddFunction(g->m, "run", LLVMFunctionType(LLVMVoidTypeInContext(lc), params, 3, 0));
    LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
    LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(lc, run, "entry"), done = LLVMAppendBasicBlockInContext(lc, run, "done");
    LLVMPositionBuilderAtEnd(b, entry);
    LLVMValueRef sw = LLVMBuildSwitch(b, LLVMGetParam(run, 0), done, (unsigned)T->nfns);
    for (int i = 0; i < T->nfns; i++) {
        LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(lc, run, "");
        LLVMAddCase(sw, LLVMConstInt(i32, (unsigned long long)i, 0), bb);
        LLVMPositionBuilderAtEnd(b, bb);
        LLVMValueRef a[2] = {LLVMGetParam(run, 1), LLVMGetParam(run, 2)};
        LLVMBuildCall2(b, fty, T->fns[i], a, 2, "");
        LLVMBuildBr(b, done);
    }
    LLVMPositionBuilderAtEnd(b, done);
    LLVMBuildRetVoid(b);
    LLVMDisposeBuilder(b);
    if (!tine_cg_verify_module(g_ctx, g->m)) {
        tine_cg_jit_abandon(T->tsc, g->m, tm, triple);
        return NULL;
    }
    uint64_t addr = tine_cg_jit_module(g_ctx, tm, triple, T->tsc, g->m, "run", jit);
    free(triple);
    return (run_fn)(uintptr_t)addr;
}

/* The C file: the functions, each program's input vectors, and main() printing every
 * output of every vector as "case vector output hex-bytes". */
static void write_c(const target_run *T, const char *path) {
    tine_buf o = {0};
    tine_buf_printf(&o, "#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n#include <%s>\n",
                    T->arm ? "arm_neon.h" : "immintrin.h");
    tine_cemit_prelude(T->ce, &o);
    tine_buf_puts(&o, T->c.p ? T->c.p : "");
    for (int i = 0; i < T->n; i++) {
        const pcase *c = &T->cases[i];
        for (int v = 0; v < NV; v++)
            for (int j = 0; j < c->nin; j++) {
                tine_buf_printf(&o, "static const unsigned char D%d_%d_%d[] = {", i, v, j);
                for (int b = 0; b < value_bytes(c->in_t[j]); b++) tine_buf_printf(&o, "%s%d", b ? "," : "", c->in[v][j][b]);
                tine_buf_puts(&o, "};\n");
            }
        tine_buf_printf(&o, "static const unsigned char *const IN%d[%d][%d] = {", i, NV, c->nin ? c->nin : 1);
        for (int v = 0; v < NV; v++) {
            tine_buf_puts(&o, "{");
            for (int j = 0; j < c->nin; j++) tine_buf_printf(&o, "%sD%d_%d_%d", j ? "," : "", i, v, j);
            tine_buf_puts(&o, c->nin ? "}," : "0},");
        }
        tine_buf_printf(&o, "};\nstatic const int OSZ%d[] = {", i);
        for (int k = 0; k < c->nout; k++) tine_buf_printf(&o, "%s%d", k ? "," : "", value_bytes(c->out_t[k]));
        tine_buf_puts(&o, "};\n");
    }
    tine_buf_printf(&o, "static unsigned char OB[%d][%d];\n"
                        "static void dump(int i, int v, int n, const int *sz) {\n"
                        "    for (int k = 0; k < n; k++) {\n"
                        "        printf(\"%%d %%d %%d \", i, v, k);\n"
                        "        for (int b = 0; b < sz[k]; b++) printf(\"%%02x\", OB[k][b]);\n"
                        "        putchar('\\n');\n    }\n}\n"
                        "int main(void) {\n    unsigned char *out[%d];\n    for (int k = 0; k < %d; k++) out[k] = OB[k];\n",
                    MAXOUT, TINE_MAX_LANES * 8, MAXOUT, MAXOUT);
    for (int i = 0; i < T->n; i++)
        tine_buf_printf(&o, "    for (int v = 0; v < %d; v++) { memset(OB, 0, sizeof OB); f%d(IN%d[v], out); dump(%d, v, %d, OSZ%d); }\n",
                        NV, i, i, i, T->cases[i].nout, i);
    tine_buf_puts(&o, "    return 0;\n}\n");
    FILE *f = fopen(path, "w");
    if (!f || fputs(o.p, f) < 0 || fclose(f) != 0) fail("cannot write %s", path);
    free(o.p);
}

static void show(tine_buf *b, const char *who, tine_type_t t, const uint64_t *lanes) {
    tine_buf_printf(b, "\n      %-12s", who);
    for (int l = 0; l < t.lanes; l++) tine_buf_printf(b, " %llx", (unsigned long long)lanes[l]);
}

/* One output of one vector against the interpreter; got is NULL where a run is missing. */
static void compare(const target_run *T, int i, int v, int k, const char *who, const uint64_t *got) {
    const pcase *c = &T->cases[i];
    tine_type_t t = c->out_t[k];
    if (!got) {
        fail("%s: %s wrote no output %s for vector %d", c->label, who, c->out_name[k], v);
        return;
    }
    if (!memcmp(got, c->want[v][k], sizeof *got * (size_t)t.lanes)) {
        pass();
        return;
    }
    tine_buf b = {0};
    char tb[32];
    tine_buf_printf(&b, "%s: output %s (%s), vector %d: %s differs from the interpreter", c->label, c->out_name[k],
                    tine_type_str(t, tb, sizeof tb), v, who);
    show(&b, "interpreter", t, c->want[v][k]);
    show(&b, who, t, got);
    fail("%s", b.p);
    free(b.p);
}

/* The outputs a C program printed, against the interpreter. */
static void compare_c(const target_run *T, const char *who, const char *text) {
    int seen_lines = 0;
    for (const char *line = text; line && *line;) {
        int i, v, k, off = 0;
        if (sscanf(line, "%d %d %d %n", &i, &v, &k, &off) == 3 && i >= 0 && i < T->n && v >= 0 && v < NV && k >= 0 &&
            k < T->cases[i].nout) {
            tine_type_t t = T->cases[i].out_t[k];
            unsigned char bytes[TINE_MAX_LANES * 8];
            int nb = value_bytes(t);
            bool ok = true;
            for (int b = 0; b < nb && ok; b++) {
                unsigned x;
                ok = sscanf(line + off + 2 * b, "%2x", &x) == 1;
                bytes[b] = (unsigned char)x;
            }
            uint64_t got[TINE_MAX_LANES];
            bytes_to_lanes(t, bytes, got);
            compare(T, i, v, k, who, ok ? got : NULL);
            seen_lines++;
        }
        line = strchr(line, '\n');
        if (line) line++;
    }
    int want_lines = 0;
    for (int i = 0; i < T->n; i++) want_lines += NV * T->cases[i].nout;
    CHECK(seen_lines == want_lines, "%s %s: %d outputs printed, %d expected", T->name, who, seen_lines, want_lines);
}

/* The C file built by each compiler (two at a time) and run; its outputs compared. */
static void run_c(target_run *T) {
    char src[128], cmd[2048], log[8192];
    snprintf(src, sizeof src, "%s/%s.c", g_dir, T->name);
    write_c(T, src);
    const char *cc[2] = {"clang-19", T->arm ? NULL : "gcc"};
    int ncc = T->arm ? 1 : 2, w = 0;
    for (int k = 0; k < ncc; k++)
        w += snprintf(cmd + w, sizeof cmd - (size_t)w,
                      "(%s -O2 -Wall -Wextra -Werror %s%s -o %s.%d %s > %s.%d.log 2>&1 && %s%s.%d > %s.%d.out 2>&1; "
                      "echo $? > %s.%d.rc) & ",
                      cc[k], T->cflags, T->arm ? " -static" : "", src, k, src, src, k, T->arm ? "qemu-aarch64 " : "", src, k,
                      src, k, src, k);
    snprintf(cmd + w, sizeof cmd - (size_t)w, "wait");
    cshared_run(cmd, log, sizeof log);
    for (int k = 0; k < ncc; k++) {
        char path[160];
        snprintf(path, sizeof path, "%s.%d.rc", src, k);
        char *rc = read_file(path);
        snprintf(path, sizeof path, "%s.%d.log", src, k);
        char *blog = read_file(path);
        snprintf(path, sizeof path, "%s.%d.out", src, k);
        char *out = read_file(path);
        if (!rc || atoi(rc) != 0) fail("%s %s: the C does not build or run (%s):\n%.4000s%.2000s", T->name, cc[k], src,
                                       blog ? blog : "", out ? out : "");
        else compare_c(T, cc[k], out ? out : "");
        free(rc);
        free(blog);
        free(out);
    }
}

static void run_jit(target_run *T, LLVMTargetMachineRef tm, char *triple) {
    LLVMOrcLLJITRef jit = NULL;
    run_fn run = jit_module(T, tm, triple, &jit);
    T->tsc = NULL; /* the JIT took the context and the module (or disposed of them) */
    if (!run) {
        fail("%s: the JIT: %s", T->name, tine_error(g_ctx));
        return;
    }
    static unsigned char ob[MAXOUT][TINE_MAX_LANES * 8];
    unsigned char *out[MAXOUT];
    for (int k = 0; k < MAXOUT; k++) out[k] = ob[k];
    for (int i = 0; i < T->n; i++)
        for (int v = 0; v < NV; v++) {
            memset(ob, 0, sizeof ob);
            run(i, (const unsigned char *const *)T->cases[i].in[v], out);
            for (int k = 0; k < T->cases[i].nout; k++) {
                uint64_t got[TINE_MAX_LANES];
                bytes_to_lanes(T->cases[i].out_t[k], ob[k], got);
                compare(T, i, v, k, "LLVM (JIT)", got);
            }
        }
    LLVMOrcDisposeLLJIT(jit);
}

/* The statement after the interleave step (the peephole step's input). */
typedef struct {
    const tine_stmt *s;
} capture;
static void after(void *user, const char *pass, const tine_stmt *s) {
    if (!strcmp(pass, "interleave")) ((capture *)user)->s = s;
}

static void run_target(target_run *T, tine_kernel_t *const *kernels) {
    double t0 = now();
    char *triple = NULL;
    LLVMTargetMachineRef tm = T->jit ? tine_cg_jit_target_machine(g_ctx, T->name, &triple) : NULL;
    if (T->jit && !tm) {
        fail("%s: no JIT target machine: %s", T->name, tine_error(g_ctx));
        T->jit = false;
    }
    T->ce = tine_cemit_new(g_ctx, T->name, "    ");
    if (T->jit) {
        T->tsc = LLVMOrcCreateNewThreadSafeContext();
        T->g = (gen){.ctx = g_ctx, .lc = LLVMOrcThreadSafeContextGetContext(T->tsc), .sel = TINE_SELECT_TINE,
                     .features = tine_target_features(g_ctx, T->name, NULL)};
        T->g.m = LLVMModuleCreateWithNameInContext("kernel_tprog", T->g.lc);
    }
    int bodies = 0;
    for (int ki = 0; ki < NK; ki++) {
        if (!kernels[ki]) continue;
        T->kernel = KERNELS[ki];
        tine_stmt_pool pool;
        tine_stmt_pool_init(&pool, g_ctx);
        capture cap = {0};
        int before = T->n;
        tine_u64map_free(&T->seen); /* programs are the pass's: a freed one's address is reused */
        if (!tine_compile_stmt(&pool, kernels[ki], TINE_SELECT_TINE, T->name, after, &cap) || !cap.s)
            fail("%s %s: the statement: %s", KERNELS[ki], T->name, tine_error(g_ctx));
        else if (!tine_stmt_body_progs(&pool, (tine_stmt *)cap.s, T->name, seen, T, NULL))
            fail("%s %s: the peephole step: %s", KERNELS[ki], T->name, tine_error(g_ctx));
        CHECK(T->n > before, "%s %s: no loop body became a program", KERNELS[ki], T->name);
        bodies += T->n - before;
        tine_stmt_pool_free(&pool);
    }
    double t1 = now();
    run_c(T);
    double t2 = now();
    if (T->jit) run_jit(T, tm, triple);
    if (T->tsc) LLVMOrcDisposeThreadSafeContext(T->tsc); /* with the module in it */
    printf("test_kernel_tprog: %-15s %3d programs: built %.1f s, C %.1f s, JIT %.1f s\n", T->name, bodies, t1 - t0, t2 - t1,
           now() - t2);
    tine_cemit_free(T->ce);
    for (int i = 0; i < T->n; i++) {
        pcase *c = &T->cases[i];
        for (int v = 0; v < NV; v++) {
            for (int j = 0; j < c->nin; j++) free(c->in[v][j]);
            for (int k = 0; k < c->nout; k++) free(c->want[v][k]);
        }
        for (int k = 0; k < c->nout; k++) free(c->out_name[k]);
        free(c->label);
    }
    free(T->cases);
    free(T->fns);
    free(T->c.p);
    tine_u64map_free(&T->seen);
}

static bool arm_runs(void) {
    char cmd[1024], log[4096];
    snprintf(cmd, sizeof cmd,
             "command -v qemu-aarch64 >/dev/null && printf 'int main(void){return 0;}\\n' > %s/p.c && "
             "clang-19 --target=aarch64-linux-gnu -O1 -static -o %s/p %s/p.c && qemu-aarch64 %s/p",
             g_dir, g_dir, g_dir, g_dir);
    return cshared_run(cmd, log, sizeof log) == 0;
}

int main(int argc, char **argv) {
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--keep")) g_keep = true;
        else if (!strcmp(argv[i], "--break")) g_break = true;
        else if (!strcmp(argv[i], "--target") && i + 1 < argc) only = argv[++i];
        else {
            fprintf(stderr, "usage: test_kernel_tprog [--keep] [--target NAME] [--break]\n");
            return 2;
        }
    }
    double t0 = now();
    snprintf(g_dir, sizeof g_dir, "/tmp/tine-ktprog-XXXXXX");
    if (!mkdtemp(g_dir)) {
        fprintf(stderr, "cannot make a temporary directory\n");
        return 1;
    }
    g_ctx = tine_ctx_new();
    tine_kernel_t *kernels[NK] = {0};
    for (int i = 0; i < NK; i++) {
        char path[128];
        snprintf(path, sizeof path, "../bench/kernels/%s.tine", KERNELS[i]);
        char *text = read_file(path);
        kernels[i] = text ? tine_kernel_parse(g_ctx, text, path) : NULL;
        if (!kernels[i]) fail("%s: %s", path, text ? tine_error(g_ctx) : "cannot read it");
        free(text);
    }
    static const char *const TARGETS[] = {"x86-64-sse2", "x86-64-avx2", "x86-64-avx512", "arm-64"};
    bool arm = arm_runs();
    for (size_t ti = 0; ti < sizeof TARGETS / sizeof *TARGETS; ti++) {
        target_run T = {.name = TARGETS[ti]};
        int runs = 0;
        T.cflags = tine_target_cflags(T.name, &runs);
        T.arm = !strncmp(T.name, "arm", 3);
        if (only && strcmp(only, T.name)) continue;
        if (T.arm ? !arm : !(runs && tine_target_runs_here(g_ctx, T.name) == 1)) {
            printf("test_kernel_tprog: %s skipped: %s\n", T.name,
                   T.arm ? "clang-19 cannot build or qemu-aarch64 run a static AArch64 program" : "this CPU does not run its code");
            continue;
        }
        T.jit = !T.arm;
        run_target(&T, kernels);
    }
    for (int i = 0; i < NK; i++) tine_kernel_free(kernels[i]);
    tine_ctx_free(g_ctx);
    if (!g_keep) {
        char cmd[128], log[256];
        snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
        cshared_run(cmd, log, sizeof log);
    } else {
        printf("test_kernel_tprog: files kept in %s\n", g_dir);
    }
    printf("test_kernel_tprog: %lld checks passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    return g_fail != 0;
}
