/* test_ctx.c — the context's error model and its use from several threads.
 *
 * 1. Error kinds: input errors (parse, kernel, unknown target) are TINE_ERROR_INPUT with a
 *    message; documented limits are TINE_ERROR_LIMIT; an internal error is never
 *    reported as input; a failed call always leaves a message, even after the error was
 *    cleared; clearing gives TINE_ERROR_NONE. Running out of memory (an address-space
 *    limit, in a child process) is a limit error, and the context can then be freed.
 * 2. Threads: two threads, each with its own context, parse, lift, JIT-compile and run
 *    expressions and compile and run a kernel at the same time, and check every result
 *    against the interpreter (LLVM's one-time initialisation is raced on purpose: neither
 *    thread has compiled anything before they start together).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"

static const char *kind_name(tine_error_kind_t k) {
    switch (k) {
    case TINE_ERROR_NONE: return "none";
    case TINE_ERROR_INPUT: return "input";
    case TINE_ERROR_LIMIT: return "limit";
    case TINE_ERROR_INTERNAL: return "internal";
    }
    return "?";
}

#define EXPECT_KIND(ctx, want, what)                                                                   \
    CHECK(tine_error_kind(ctx) == (want) && tine_error(ctx) != NULL, "%s: kind %s (want %s), message %s", \
          what, kind_name(tine_error_kind(ctx)), kind_name(want), tine_error(ctx) ? tine_error(ctx) : "(null)")

/* ---- 1. error kinds ------------------------------------------------------------------------ */

static void test_kinds(void) {
    tine_ctx_t *ctx = tine_ctx_new();
    CHECK(tine_error_kind(ctx) == TINE_ERROR_NONE && !tine_error(ctx), "a new context holds no error");

    CHECK(!tine_parse(ctx, "a_u8 +", "x"), "a broken expression does not parse");
    EXPECT_KIND(ctx, TINE_ERROR_INPUT, "parse error");
    CHECK(tine_error(ctx) && strncmp(tine_error(ctx), "x:1:", 4) == 0, "parse errors are located: %s",
          tine_error(ctx) ? tine_error(ctx) : "(null)");

    /* the nesting limit is a limit; one level less parses */
    for (int depth = 250; depth <= 260; depth++) {
        tine_buf b = {0};
        for (int i = 0; i < depth; i++) tine_buf_puts(&b, "(");
        tine_buf_puts(&b, "a_u8");
        for (int i = 0; i < depth; i++) tine_buf_puts(&b, ")");
        tine_clear_error(ctx);
        tine_expr_t *e = tine_parse(ctx, b.p, "deep");
        if (depth < 250 + 3) CHECK(e != NULL, "%d parentheses parse: %s", depth, tine_error(ctx) ? tine_error(ctx) : "");
        if (!e) {
            EXPECT_KIND(ctx, TINE_ERROR_LIMIT, "nesting too deep");
            CHECK(strstr(tine_error(ctx), "nested more than 256 deep") != NULL, "the nesting message: %s", tine_error(ctx));
        }
        free(b.p);
        if (!e) break;
    }
    CHECK(tine_error_kind(ctx) == TINE_ERROR_LIMIT, "260 parentheses are refused");

    /* internal errors keep their kind until the next error or a clear */
    tine_set_internal_error(ctx, "invariant %d broken", 7);
    EXPECT_KIND(ctx, TINE_ERROR_INTERNAL, "tine_set_internal_error");
    tine_set_limit_error(ctx, "too many");
    EXPECT_KIND(ctx, TINE_ERROR_LIMIT, "tine_set_limit_error");
    tine_set_error(ctx, "plain");
    EXPECT_KIND(ctx, TINE_ERROR_INPUT, "tine_set_error after a limit error");
    tine_set_internal_error(ctx, "bug");
    tine_error_set_kind(ctx, TINE_ERROR_LIMIT);
    EXPECT_KIND(ctx, TINE_ERROR_LIMIT, "tine_error_set_kind");
    tine_clear_error(ctx);
    CHECK(tine_error_kind(ctx) == TINE_ERROR_NONE && !tine_error(ctx), "clearing leaves no error and kind none");
    tine_error_set_kind(ctx, TINE_ERROR_INTERNAL);
    CHECK(tine_error_kind(ctx) == TINE_ERROR_NONE, "re-kinding no error keeps none");

    /* a failure after a clear still has its own message (compile failures used to read a
       NULL error) */
    const char *kt = "input in: u8[1]\noutput out(x): u8 = in(x) + 1\n";
    tine_kernel_t *k = tine_kernel_parse(ctx, kt, "k.tine");
    CHECK(k != NULL, "a small kernel parses: %s", tine_error(ctx) ? tine_error(ctx) : "");
    tine_clear_error(ctx);
    tine_compiled_t *c = tine_kernel_compile(k, "no-such-target", TINE_SELECT_LLVM);
    CHECK(c == NULL, "an unknown target is refused");
    EXPECT_KIND(ctx, TINE_ERROR_INPUT, "unknown target");
    tine_compiled_free(c);
    tine_kernel_free(k);

    tine_clear_error(ctx);
    CHECK(!tine_kernel_parse(ctx, "input in: u8[1]\noutput out(x): u8 = nope(x)\n", "bad.tine"),
          "a kernel calling an unknown function is refused");
    EXPECT_KIND(ctx, TINE_ERROR_INPUT, "kernel error");

    /* materialized functions beyond the documented limit are a limit, not bad input; each
       kernel either compiles or is refused as a limit */
    bool limited = false;
    for (int n = 1; n <= 40 && !limited; n++) {
        tine_buf b = {0};
        tine_buf_puts(&b, "input in: u8[1]\nfunc f0(x) = in(x)\n");
        for (int i = 1; i <= n; i++) tine_buf_printf(&b, "func f%d(x) = f%d(x) + 1\n", i, i - 1);
        tine_buf_printf(&b, "output out(x): u8 = f%d(x)\nschedule\n", n);
        for (int i = 0; i < n; i++) tine_buf_printf(&b, "materialize f%d\n", i);
        tine_clear_error(ctx);
        tine_kernel_t *kk = tine_kernel_parse(ctx, b.p, "many.tine");
        if (!kk) {
            limited = true;
            EXPECT_KIND(ctx, TINE_ERROR_LIMIT, "too many materialized functions");
        }
        tine_kernel_free(kk);
        free(b.p);
    }
    printf("materialized functions: %s\n", limited ? "the limit was reached and reported as a limit" : "no limit up to 40");
    tine_ctx_free(ctx);
}

/* ---- out of memory: a limit error, and the context can still be freed ----------------------- */

/* In a child process limited to the address space it has plus 1 MiB, a schedule whose
 * statement needs some 4 MiB more (512 copies of the body, within the limit on what a
 * schedule copies): tine_kernel_print_stmt fails with a limit error
 * instead of aborting, and tine_ctx_free releases what the failed call left. Not under
 * the sanitizers, whose allocators reserve their own address space. */
static void test_out_of_memory(void) {
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifdef SANITIZED
    printf("out of memory: not checked under the sanitizers\n");
    return;
#endif
    static const char *const BIG =
        "input in: u8[2]\n"
        "output out(x, y): u16 = u16(in(x, y)) + u16(in(x + 1, y)) * 3 + u16(in(x + 2, y)) * 5 + u16(in(x, y + 1)) * 7"
        " + u16(in(x + 1, y + 2))\n"
        "schedule\nsplit out.x xo xi 32\nsplit out.y yo yi 16\nunroll out.xi 32\nunroll out.yi 16\n";
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        tine_ctx_t *ctx = tine_ctx_new();
        tine_kernel_t *k = tine_kernel_parse(ctx, BIG, "big.tine");
        if (!k) _exit(2);
        long vm_kb = 0;
        FILE *f = fopen("/proc/self/status", "r");
        char line[256];
        while (f && fgets(line, sizeof line, f))
            if (!strncmp(line, "VmSize:", 7)) vm_kb = atol(line + 7);
        if (f) fclose(f);
        struct rlimit r = {.rlim_cur = (rlim_t)(vm_kb + 1024) * 1024, .rlim_max = (rlim_t)(vm_kb + 1024) * 1024};
        if (!vm_kb || setrlimit(RLIMIT_AS, &r)) _exit(3);
        char *text = tine_kernel_print_stmt(k, TINE_SELECT_TINE, "x86-64-avx2");
        if (text) _exit(4);
        if (tine_error_kind(ctx) != TINE_ERROR_LIMIT || !strstr(tine_error(ctx), "out of memory: an allocation"))
            _exit(5);
        tine_kernel_free(k);
        tine_ctx_free(ctx);
        _exit(0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid, "fork and wait for the out-of-memory child");
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "out of memory in tine_kernel_print_stmt is a limit error, and the context is freed (child: %s %d; "
          "2 parse failed, 3 no limit set, 4 it printed, 5 another error)",
          WIFEXITED(status) ? "exit" : "signal", WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    printf("out of memory: checked in a child process under an address-space limit\n");
}

/* ---- 2. two contexts on two threads ------------------------------------------------------ */

static const char *const EXPRS[] = {
    "u8((u16(a_u8) + u16(b_u8) + 1) >> 1)",
    "i16(min(max(i32(a_i16) * i32(b_i16) >> 15, -32768), 32767))",
    "absd(a_u8, b_u8)",
    "u8(min(u16(a_u8) * 3 + u16(b_u8), 255))",
    "select(a_i32 < b_i32, a_i32 - b_i32, b_i32 * 2)",
    "u16(a_u8) * u16(b_u8) + u16(c_u8)",
};

typedef struct {
    int id;
    long long checked, failed;
    char why[256];
} job;

static uint64_t rng(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void job_fail(job *j, const char *what, tine_ctx_t *ctx) {
    if (!j->failed++)
        snprintf(j->why, sizeof j->why, "thread %d: %s: %s", j->id, what, tine_error(ctx) ? tine_error(ctx) : "");
}

/* Every expression JIT-compiled (both selections) and run on random lanes against the
 * interpreter. */
static void job_exprs(job *j, tine_ctx_t *ctx) {
    uint64_t seed = 0x9e3779b97f4a7c15ull * (uint64_t)(j->id + 1);
    for (size_t x = 0; x < sizeof EXPRS / sizeof *EXPRS; x++) {
        tine_expr_t *e = tine_parse(ctx, EXPRS[x], "<thread>");
        if (!e) {
            job_fail(j, "parse", ctx);
            continue;
        }
        for (int sel = 0; sel < 2; sel++) {
            tine_expr_t *c = sel ? tine_lift(ctx, e) : e;
            tine_jit_t *jit = c ? tine_jit_expr(ctx, c, "host", sel ? TINE_SELECT_TINE : TINE_SELECT_LLVM) : NULL;
            if (!jit) {
                job_fail(j, "compile", ctx);
                continue;
            }
            int n = tine_jit_nargs(jit), lanes = tine_expr_type(e).lanes;
            for (int trial = 0; trial < 8; trial++) {
                tine_env_t *env = tine_env_new(ctx);
                uint64_t vals[8][TINE_MAX_LANES];
                unsigned char raw[8][TINE_MAX_LANES * 8];
                const void *args[8];
                for (int a = 0; a < n && a < 8; a++) {
                    const tine_expr_t *v = tine_jit_arg(jit, a);
                    tine_type_t t = tine_expr_type(v);
                    for (int l = 0; l < t.lanes; l++) {
                        uint64_t r = rng(&seed);
                        uint64_t m = t.bits == 64 ? ~0ull : (1ull << t.bits) - 1;
                        r &= m;
                        if (t.kind == TINE_INT && t.bits < 64 && (r >> (t.bits - 1) & 1)) r |= ~m; /* sign-extend */
                        vals[a][l] = r;
                        memcpy(raw[a] + (size_t)l * (t.bits / 8), &r, t.bits / 8); /* little-endian */
                    }
                    tine_env_bind(env, v, vals[a]);
                    args[a] = raw[a];
                }
                uint64_t want[TINE_MAX_LANES];
                unsigned char got[TINE_MAX_LANES * 8];
                int bytes = tine_expr_type(e).bits / 8;
                if (tine_eval(ctx, e, env, want)) {
                    job_fail(j, "interpreter", ctx);
                } else {
                    tine_jit_call(jit, args, got);
                    for (int l = 0; l < lanes; l++) {
                        uint64_t g = 0;
                        memcpy(&g, got + (size_t)l * bytes, bytes);
                        uint64_t m = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
                        j->checked++;
                        if ((g & m) != (want[l] & m)) {
                            if (!j->failed++)
                                snprintf(j->why, sizeof j->why, "thread %d: %s lane %d: compiled %llu, interpreter %llu",
                                         j->id, EXPRS[x], l, (unsigned long long)(g & m),
                                         (unsigned long long)(want[l] & m));
                        }
                    }
                }
                tine_env_free(env);
            }
            tine_jit_free(jit);
        }
    }
}

/* The blur kernel compiled and run on a small image against the interpreter. */
static void job_kernel(job *j, tine_ctx_t *ctx) {
    char *text = read_file("../bench/kernels/blur3x3.tine");
    tine_kernel_t *k = text ? tine_kernel_parse(ctx, text, "blur3x3.tine") : NULL;
    free(text);
    if (!k) {
        job_fail(j, "kernel parse", ctx);
        return;
    }
    enum { W = 37, H = 9 };
    static const int64_t zero[4] = {0};
    uint16_t in[(W + 2) * (H + 2)], ref[W * H], got[W * H];
    uint64_t seed = 12345 + (uint64_t)j->id;
    for (size_t i = 0; i < sizeof in / sizeof *in; i++) in[i] = (uint16_t)rng(&seed);
    tine_buffer_t bi = {.data = in, .dims = 2, .extent = {W + 2, H + 2, 1, 1}, .stride = {1, W + 2, 0, 0}};
    tine_buffer_t bo = {.data = ref, .dims = 2, .extent = {W, H, 1, 1}, .stride = {1, W, 0, 0}};
    memcpy(bi.min, zero, sizeof zero);
    memcpy(bo.min, zero, sizeof zero);
    tine_buffer_t *inputs[1] = {&bi};
    if (tine_kernel_interpret(k, inputs, NULL, &bo)) {
        job_fail(j, "kernel interpret", ctx);
        tine_kernel_free(k);
        return;
    }
    for (int sel = 0; sel < 2; sel++) {
        tine_compiled_t *c = tine_kernel_compile(k, "host", sel ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
        bo.data = got;
        memset(got, 0, sizeof got);
        if (!c || tine_compiled_run(c, inputs, NULL, &bo)) job_fail(j, "kernel compile/run", ctx);
        else {
            j->checked++;
            if (memcmp(got, ref, sizeof got)) job_fail(j, "compiled blur differs from the interpreter", ctx);
        }
        bo.data = ref;
        tine_compiled_free(c);
    }
    tine_kernel_free(k);
}

static int run_job(void *arg) {
    job *j = arg;
    tine_ctx_t *ctx = tine_ctx_new();
    tine_set_lanes(ctx, j->id ? 8 : 16); /* different lanes: different code in each thread */
    job_exprs(j, ctx);
    job_kernel(j, ctx);
    tine_ctx_free(ctx);
    return 0;
}

static void test_threads(void) {
    job jobs[2] = {{.id = 0}, {.id = 1}};
    thrd_t th;
    bool started = thrd_create(&th, run_job, &jobs[1]) == thrd_success;
    CHECK(started, "a second thread starts");
    run_job(&jobs[0]);
    if (started) thrd_join(th, NULL);
    else run_job(&jobs[1]);
    for (int i = 0; i < 2; i++) {
        CHECK(jobs[i].failed == 0, "%s (%lld failures)", jobs[i].why, jobs[i].failed);
        CHECK(jobs[i].checked > 100, "thread %d checked only %lld results", i, jobs[i].checked);
    }
}

int main(void) {
    test_kinds();
    test_out_of_memory();
    test_threads();
    printf("test_ctx: %lld passed, %lld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
