/* test_parallel.c — parallel loops really run on threads, and give what the interpreter gives.
 *
 * 1. The runtime alone (src/codegen/parallel.c): a module whose loop body calls back into
 *    this program records each chunk's range and thread. With TINE_NUM_THREADS=4 a range
 *    of 100 runs as 4 contiguous chunks covering it, on 4 distinct threads (chunk 0 on the
 *    caller's); fewer iterations than threads give one chunk per iteration; an empty range
 *    runs nothing; TINE_NUM_THREADS=1 runs one chunk on the caller; the result is the
 *    first non-zero chunk result in chunk order.
 * 2. Kernels with `parallel` (the output's rows, a materialized stage's rows, unrolled
 *    rows, tiles, a 1-D output in blocks, a 3-D output): the emitted LLVM calls
 *    pthread_create (one without `parallel` does not), and compiled runs at 1, 3 and 4
 *    threads equal tine_kernel_interpret byte for byte.
 *
 * A failed Assert inside a parallel chunk is covered at the runtime level only: no
 * kernel's statement has an Assert that can fail in its loops yet.
 */
#define _GNU_SOURCE
#include "codegen/codegen.h"

#include <pthread.h>

#include "testutil.h"

/* ---- the runtime ------------------------------------------------------------------------ */

typedef struct {
    int64_t lo[64], hi[64];
    pthread_t who[64];
    int n, fail_from; /* chunks starting at or after fail_from return their lo + 1000 */
    pthread_mutex_t mu;
} record;

static int record_chunk(record *r, int64_t lo, int64_t hi) {
    pthread_mutex_lock(&r->mu);
    if (r->n < 64) {
        r->lo[r->n] = lo;
        r->hi[r->n] = hi;
        r->who[r->n] = pthread_self();
        r->n++;
    }
    pthread_mutex_unlock(&r->mu);
    /* slow enough that every thread is still running when the last one starts */
    struct timespec ts = {0, 20 * 1000 * 1000};
    nanosleep(&ts, NULL);
    return lo >= r->fail_from ? (int)(lo + 1000) : 0;
}

/* i32 run(ptr fn, ptr rec, i64 min, i64 extent): tine.parallel_for over
 * body(closure, lo, hi) = fn(rec, lo, hi), the closure { fn, rec }. */
typedef int (*run_fn)(void *fn, void *rec, int64_t min, int64_t extent);

static run_fn build_runtime_test(tine_ctx_t *ctx, LLVMOrcLLJITRef *jit) {
    char *triple = NULL;
    LLVMTargetMachineRef tm = tine_cg_target_machine(ctx, "host", &triple);
    if (!tm) return NULL;
    LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
    LLVMContextRef lc = LLVMOrcThreadSafeContextGetContext(tsc);
    LLVMModuleRef m = LLVMModuleCreateWithNameInContext("test", lc);
    LLVMTypeRef ptr = LLVMPointerTypeInContext(lc, 0), i64 = LLVMInt64TypeInContext(lc), i32 = LLVMInt32TypeInContext(lc);
    LLVMTypeRef cb[3] = {ptr, i64, i64}, clo_f[2] = {ptr, ptr};
    LLVMTypeRef body_ty = LLVMFunctionType(i32, cb, 3, 0), clo_ty = LLVMStructTypeInContext(lc, clo_f, 2, 0);
    LLVMBuilderRef b = LLVMCreateBuilderInContext(lc);
    /* the body: the callback with the record */
    LLVMValueRef body = LLVMAddFunction(m, "body", body_ty);
    LLVMSetLinkage(body, LLVMInternalLinkage);
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(lc, body, "entry"));
    LLVMValueRef clo = LLVMGetParam(body, 0);
    LLVMValueRef fn = LLVMBuildLoad2(b, ptr, LLVMBuildStructGEP2(b, clo_ty, clo, 0, ""), "");
    LLVMValueRef args[3] = {LLVMBuildLoad2(b, ptr, LLVMBuildStructGEP2(b, clo_ty, clo, 1, ""), ""), LLVMGetParam(body, 1),
                            LLVMGetParam(body, 2)};
    LLVMBuildRet(b, LLVMBuildCall2(b, body_ty, fn, args, 3, ""));
    /* the entry: the closure on the stack, the runtime called */
    LLVMTypeRef rp[4] = {ptr, ptr, i64, i64};
    LLVMValueRef run = LLVMAddFunction(m, "run", LLVMFunctionType(i32, rp, 4, 0));
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(lc, run, "entry"));
    LLVMValueRef c = LLVMBuildAlloca(b, clo_ty, "closure");
    LLVMBuildStore(b, LLVMGetParam(run, 0), LLVMBuildStructGEP2(b, clo_ty, c, 0, ""));
    LLVMBuildStore(b, LLVMGetParam(run, 1), LLVMBuildStructGEP2(b, clo_ty, c, 1, ""));
    LLVMValueRef rt = tine_cg_parallel_runtime(m);
    CHECK(tine_cg_parallel_runtime(m) == rt, "the runtime is built once per module");
    LLVMValueRef rargs[4] = {body, c, LLVMGetParam(run, 2), LLVMGetParam(run, 3)};
    LLVMBuildRet(b, LLVMBuildCall2(b, LLVMGlobalGetValueType(rt), rt, rargs, 4, ""));
    LLVMDisposeBuilder(b);
    if (!tine_cg_verify_module(ctx, m)) {
        fail("the runtime's module is invalid: %s", tine_error(ctx));
        tine_cg_jit_abandon(tsc, m, tm, triple);
        return NULL;
    }
    uint64_t addr = tine_cg_jit_module(ctx, tm, triple, tsc, m, "run", jit);
    free(triple);
    return (run_fn)(uintptr_t)addr;
}

static int distinct_threads(const record *r) {
    int n = 0;
    for (int i = 0; i < r->n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = pthread_equal(r->who[i], r->who[j]);
        n += !seen;
    }
    return n;
}

/* One call of the runtime; checks the chunks: `want` of them, contiguous and in order
 * (sorted by lo), covering [min, min + extent). Returns the run's result. */
static int run_chunks(run_fn run, record *r, int64_t min, int64_t extent, int want, int fail_from) {
    memset(r->lo, 0, sizeof r->lo);
    r->n = 0;
    r->fail_from = fail_from;
    int rc = run((void *)(uintptr_t)record_chunk, r, min, extent);
    CHECK(r->n == want, "[%lld, +%lld): %d chunks, want %d", (long long)min, (long long)extent, r->n, want);
    /* sort by lo (threads record in any order) */
    for (int i = 1; i < r->n; i++)
        for (int j = i; j > 0 && r->lo[j - 1] > r->lo[j]; j--) {
            int64_t t = r->lo[j];
            r->lo[j] = r->lo[j - 1], r->lo[j - 1] = t;
            t = r->hi[j];
            r->hi[j] = r->hi[j - 1], r->hi[j - 1] = t;
            pthread_t w = r->who[j];
            r->who[j] = r->who[j - 1], r->who[j - 1] = w;
        }
    int64_t at = min;
    for (int i = 0; i < r->n; i++) {
        CHECK(r->lo[i] == at && r->hi[i] > r->lo[i], "chunk %d is [%lld, %lld), want it to start at %lld", i,
              (long long)r->lo[i], (long long)r->hi[i], (long long)at);
        at = r->hi[i];
    }
    if (r->n) CHECK(at == min + extent, "the chunks end at %lld, want %lld", (long long)at, (long long)(min + extent));
    if (r->n) CHECK(pthread_equal(r->who[0], pthread_self()), "chunk 0 runs on the caller's thread");
    return rc;
}

static void test_runtime(tine_ctx_t *ctx) {
    LLVMOrcLLJITRef jit = NULL;
    run_fn run = build_runtime_test(ctx, &jit);
    if (!run) {
        fail("the runtime test module did not compile: %s", tine_error(ctx));
        return;
    }
    record r = {.mu = PTHREAD_MUTEX_INITIALIZER};
    setenv("TINE_NUM_THREADS", "4", 1);
    int rc = run_chunks(run, &r, -7, 100, 4, INT32_MAX);
    CHECK(rc == 0, "no chunk failed, yet the run returned %d", rc);
    CHECK(distinct_threads(&r) == 4, "4 chunks ran on %d distinct threads, want 4", distinct_threads(&r));
    rc = run_chunks(run, &r, 5, 3, 3, INT32_MAX);
    CHECK(rc == 0 && distinct_threads(&r) == 3, "3 iterations: 3 chunks on 3 threads (%d, rc %d)", distinct_threads(&r), rc);
    rc = run_chunks(run, &r, 0, 0, 0, INT32_MAX);
    CHECK(rc == 0, "an empty range returns 0, not %d", rc);
    /* chunks [0,25) [25,50) [50,75) [75,100): those from 50 fail; the first in chunk
       order (50, code 1050) wins whatever thread finishes first */
    rc = run_chunks(run, &r, 0, 100, 4, 50);
    CHECK(rc == 1050, "the first failing chunk's result, 1050, not %d", rc);
    rc = run_chunks(run, &r, 0, 100, 4, 0);
    CHECK(rc == 1000, "every chunk fails: chunk 0's result, 1000, not %d", rc);
    setenv("TINE_NUM_THREADS", "1", 1);
    rc = run_chunks(run, &r, 0, 100, 1, 0);
    CHECK(rc == 1000, "one thread: the whole range on the caller, its result (%d)", rc);
    setenv("TINE_NUM_THREADS", "1000", 1); /* capped at 64 */
    rc = run_chunks(run, &r, 0, 200, 64, INT32_MAX);
    CHECK(rc == 0, "64 chunks: rc %d", rc);
    setenv("TINE_NUM_THREADS", "zero", 1); /* not a number: the processors online */
    run_chunks(run, &r, 0, 1, 1, INT32_MAX);
    unsetenv("TINE_NUM_THREADS");
    LLVMOrcDisposeLLJIT(jit);
}

/* ---- kernels ---------------------------------------------------------------------------- */

static const struct {
    const char *name, *text;
    int dims;
    int64_t extent[3];
} KERNELS[] = {
    {"rows of a stencil",
     "input in: u8[2]\nfunc b = edge(in)\n"
     "output out(x, y): u16 = u16(b(x - 1, y - 1)) + 2 * u16(b(x, y)) + u16(b(x + 1, y + 2))\n"
     "schedule\nparallel out.y\n",
     2, {67, 203, 0}},
    {"a materialized stage's rows and the output's, a reduction",
     "input in: u8[2]\nparam K: i32\nfunc b = constant(in, 3)\n"
     "func m(x, y) = sum(k in 0..K) u16(b(x + k, y - 1))\n"
     "output out(x, y): u16 = m(x, y) + m(x - 1, y + 1)\n"
     "schedule\nmaterialize m\nparallel m.y\nparallel out.y\n",
     2, {45, 130, 0}},
    {"unrolled rows",
     "input in: u8[2]\nfunc b = edge(in)\noutput out(x, y): u8 = b(x, y - 1) / 2 + b(x + 3, y + 1) / 2\n"
     "schedule\nunroll out.y 3\nparallel out.y\n",
     2, {40, 101, 0}},
    {"tiles",
     "input in: u8[2]\nfunc b = edge(in)\noutput out(x, y): u8 = max(b(x, y - 1), b(x + 1, y + 1))\n"
     "schedule\ntile out x y 32 8\nparallel out.y\n",
     2, {100, 77, 0}},
    {"a 1-D output in blocks",
     "input in: u8[1]\nfunc b = edge(in)\noutput out(x): u8 = b(x - 2) / 2 + b(x + 5) / 2\n"
     "schedule\nparallel out.x\n",
     1, {20011, 0, 0}},
    {"a 3-D output",
     "input in: i16[3]\nfunc b = edge(in)\noutput out(x, y, z): i16 = b(x, y, z - 1) - b(x + 1, y, z + 1)\n"
     "schedule\nunroll out.y 2\nparallel out.z\n",
     3, {19, 5, 33}},
};

static int esize(tine_type_t t) { return t.bits / 8; }

static void fill(tine_buffer_t *b, tine_type_t t, int dims, const int64_t *extent, uint32_t seed) {
    memset(b, 0, sizeof *b);
    b->dims = dims;
    int64_t n = 1;
    for (int d = 0; d < dims; d++) {
        b->extent[d] = extent[d];
        b->min[d] = d == 0 ? -3 : 2;
        b->stride[d] = d == 0 ? 1 : n;
        n *= extent[d];
    }
    b->data = malloc((size_t)(n * esize(t)));
    TINE_ASSERT(b->data != NULL);
    for (int64_t i = 0; i < n * esize(t); i++) {
        seed = seed * 1664525u + 1013904223u;
        ((uint8_t *)b->data)[i] = (uint8_t)(seed >> 24);
    }
}

static void test_kernels(tine_ctx_t *ctx) {
    for (size_t i = 0; i < sizeof KERNELS / sizeof *KERNELS; i++) {
        const char *name = KERNELS[i].name;
        tine_kernel_t *k = tine_kernel_parse(ctx, KERNELS[i].text, "<parallel>");
        if (!k) {
            fail("%s: %s", name, tine_error(ctx));
            continue;
        }
        size_t n;
        char *ir = tine_kernel_emit(k, "host", TINE_SELECT_TINE, "kern", "llvm", &n);
        CHECK(ir && strstr(ir, "@pthread_create(") && strstr(ir, "tine.parallel_for"),
              "%s: the emitted LLVM calls the parallel runtime and pthread_create", name);
        free(ir);
        /* the input covers what every output element reads (a halo of 8, offsets below) */
        tine_type_t it;
        int idims;
        tine_kernel_input(k, 0, &it, &idims);
        int64_t iext[3];
        for (int d = 0; d < idims; d++) iext[d] = KERNELS[i].extent[d] + 16;
        tine_buffer_t in, want, got;
        fill(&in, it, idims, iext, 7u + (uint32_t)i);
        for (int d = 0; d < idims; d++) in.min[d] -= 8;
        tine_type_t ot = tine_kernel_output_type(k);
        fill(&want, ot, KERNELS[i].dims, KERNELS[i].extent, 1);
        fill(&got, ot, KERNELS[i].dims, KERNELS[i].extent, 2);
        size_t bytes = (size_t)esize(ot);
        for (int d = 0; d < KERNELS[i].dims; d++) bytes *= (size_t)KERNELS[i].extent[d];
        int32_t K = 5;
        const void *params[1] = {&K};
        tine_buffer_t *inputs[1] = {&in};
        if (tine_kernel_interpret(k, inputs, params, &want)) fail("%s: interpret: %s", name, tine_error(ctx));
        for (int sel = 0; sel < 2; sel++) {
            tine_compiled_t *c = tine_kernel_compile(k, "host", sel ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
            if (!c) {
                fail("%s: compile: %s", name, tine_error(ctx));
                continue;
            }
            static const char *const threads[] = {"4", "3", "1"};
            for (int t = 0; t < 3; t++) {
                setenv("TINE_NUM_THREADS", threads[t], 1);
                memset(got.data, 0xA5, bytes);
                int rc = tine_compiled_run(c, inputs, params, &got);
                CHECK(rc == 0 && !memcmp(got.data, want.data, bytes), "%s (%s, %s threads): rc %d, %s", name,
                      sel ? "tine" : "llvm", threads[t], rc, rc ? tine_error(ctx) : "output differs from the interpreter's");
            }
            unsetenv("TINE_NUM_THREADS");
            tine_compiled_free(c);
        }
        free(in.data);
        free(want.data);
        free(got.data);
        tine_kernel_free(k);
    }
    /* no `parallel`: no threads */
    tine_kernel_t *k = tine_kernel_parse(ctx, "input in: u8[2]\noutput out(x, y): u8 = in(x, y) / 2\n", "<serial>");
    size_t n;
    char *ir = k ? tine_kernel_emit(k, "host", TINE_SELECT_TINE, "kern", "llvm", &n) : NULL;
    CHECK(ir && !strstr(ir, "pthread_create"), "a kernel without parallel loops has no threads");
    free(ir);
    tine_kernel_free(k);
}

int main(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    double t0 = now();
    test_runtime(ctx);
    test_kernels(ctx);
    tine_ctx_free(ctx);
    printf("test_parallel: %lld passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    return g_fail ? 1 : 0;
}
