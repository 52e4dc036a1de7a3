/* bench.c — `tine bench`: the benchmark kernels, side by side in one run.
 *
 * For each kernel and each x86 level this machine runs: the kernel compiled by LLVM
 * alone and by tine, and the scalar C reference (bench/ref) compiled by clang-19 and by
 * gcc at -O3 -march=native (built here as shared objects and loaded). Every output is
 * first checked bit for bit against the clang-built reference; then each is timed, the
 * median of ten runs after two warm-ups, single thread. Reports a table, a CSV and an SVG
 * bar chart (and a PNG when rsvg-convert is installed).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tine.h"

#ifndef TINE_SOURCE_DIR
#define TINE_SOURCE_DIR "."
#endif

typedef int (*ref_fn)(const char *, const void *, ptrdiff_t, const int8_t *, void *, ptrdiff_t, int, int);

typedef struct {
    const char *name;
    int margin, bits, mask;
    int w, h; /* default size */
} bench_kernel;

/* The kernels written so far (BENCHMARKS.md 1-9). margin: the border an input needs
 * around the output (0: the kernel uses edge()). */
static const bench_kernel KERNELS[] = {
    {"gaussian3x3", 1, 8, 0, 1920, 1080}, {"gaussian5x5", 0, 8, 0, 1920, 1080}, {"gaussian7x7", 3, 8, 0, 1920, 1080},
    {"conv3x3a16", 0, 8, 1, 1920, 1080},  {"conv3x3a32", 0, 8, 0, 1920, 1080},  {"dilate3x3", 0, 8, 0, 1920, 1080},
    {"median3x3", 0, 8, 0, 1920, 1080},   {"sobel3x3", 0, 8, 0, 1920, 1080},    {"blur3x3", 2, 16, 0, 960, 1080},
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static uint64_t rnd(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Builds bench/ref as a shared object with `compiler`; NULL if it is not installed. */
static ref_fn load_ref(const char *compiler, const char *tag, void **handle) {
    char so[256], cmd[1024];
    snprintf(so, sizeof so, "/tmp/tine-bench-ref-%s-%ld.so", tag, (long)getpid());
    snprintf(cmd, sizeof cmd, "%s -O3 -march=native -fPIC -shared -o %s %s/bench/ref/image.c 2>/dev/null", compiler, so,
             TINE_SOURCE_DIR);
    if (system(cmd) != 0) return NULL;
    *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    remove(so);
    if (!*handle) return NULL;
    ref_fn f;
    void *sym = dlsym(*handle, "tine_ref_run");
    memcpy(&f, &sym, sizeof f);
    return f;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (p) p[n] = 0;
    fclose(f);
    return p;
}

typedef struct {
    const char *kernel, *target;
    double llvm_ms, tine_ms, clang_ms, gcc_ms, compile_llvm_ms, compile_tine_ms, parse_ms;
    bool exact;
} result;

enum { WARM = 2, RUNS = 10 };

static double time_compiled(tine_compiled_t *c, tine_buffer_t **in, tine_buffer_t *out) {
    double t[RUNS];
    for (int i = 0; i < WARM; i++) tine_compiled_run(c, in, NULL, out);
    for (int i = 0; i < RUNS; i++) {
        double t0 = now();
        tine_compiled_run(c, in, NULL, out);
        t[i] = now() - t0;
    }
    qsort(t, RUNS, sizeof *t, cmpd);
    return t[RUNS / 2] * 1e3;
}

static double time_ref(ref_fn f, const char *name, const void *in, ptrdiff_t is, const int8_t *mask, void *out,
                       int w, int h) {
    double t[RUNS];
    for (int i = 0; i < WARM; i++) f(name, in, is, mask, out, w, w, h);
    for (int i = 0; i < RUNS; i++) {
        double t0 = now();
        f(name, in, is, mask, out, w, w, h);
        t[i] = now() - t0;
    }
    qsort(t, RUNS, sizeof *t, cmpd);
    return t[RUNS / 2] * 1e3;
}

static void write_svg(const char *path, const result *r, int n) {
    FILE *f = fopen(path, "w");
    if (!f) return;
    int bw = 18, gap = 14, left = 60, top = 40, height = 260, width = left + n * (2 * bw + gap) + 40;
    double maxv = 1.0;
    for (int i = 0; i < n; i++) {
        double a = r[i].llvm_ms / r[i].tine_ms, b = r[i].clang_ms > 0 ? r[i].clang_ms / r[i].tine_ms : 0;
        if (a > maxv) maxv = a;
        if (b > maxv) maxv = b;
    }
    maxv *= 1.1;
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' font-family='sans-serif' font-size='11'>\n",
            width, top + height + 120);
    fprintf(f, "<rect width='100%%' height='100%%' fill='white'/>\n");
    fprintf(f, "<text x='%d' y='20' font-size='14'>tine speedup over LLVM alone (blue) and over clang-19 -O3 scalar C (orange)</text>\n", left);
    for (int g = 0; g <= 4; g++) {
        double v = maxv * g / 4;
        int y = top + height - (int)(height * v / maxv);
        fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='#ddd'/><text x='%d' y='%d' text-anchor='end'>%.1fx</text>\n",
                left, width - 20, y, y, left - 6, y + 4, v);
    }
    int y1 = top + height - (int)(height * 1.0 / maxv);
    fprintf(f, "<line x1='%d' x2='%d' y1='%d' y2='%d' stroke='black' stroke-dasharray='4 3'/>\n", left, width - 20, y1, y1);
    for (int i = 0; i < n; i++) {
        int x = left + 10 + i * (2 * bw + gap);
        double a = r[i].llvm_ms / r[i].tine_ms, b = r[i].clang_ms > 0 ? r[i].clang_ms / r[i].tine_ms : 0;
        int ha = (int)(height * a / maxv), hb = (int)(height * b / maxv);
        fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='#3b6fb6'/>\n", x, top + height - ha, bw, ha);
        fprintf(f, "<rect x='%d' y='%d' width='%d' height='%d' fill='#e08a2c'/>\n", x + bw, top + height - hb, bw, hb);
        fprintf(f, "<text transform='translate(%d,%d) rotate(60)'>%s %s</text>\n", x + 4, top + height + 8, r[i].kernel,
                r[i].target + (strncmp(r[i].target, "x86-64-", 7) ? 0 : 7));
    }
    fprintf(f, "</svg>\n");
    fclose(f);
}

int tine_cmd_bench(const char *filter, const char *only_target, int quick) {
    void *hc = NULL, *hg = NULL;
    ref_fn clang = load_ref("clang-19", "clang", &hc), gcc = load_ref("gcc", "gcc", &hg);
    if (!clang) fprintf(stderr, "bench: clang-19 is not installed: its column is empty (scripts/setup.sh installs it)\n");
    if (!gcc) fprintf(stderr, "bench: gcc is not installed: its column is empty\n");
    __builtin_cpu_init();
    struct {
        const char *name;
        bool ok;
    } targets[] = {{"x86-64-sse2", true},
                   {"x86-64-sse41", __builtin_cpu_supports("sse4.1")},
                   {"x86-64-avx2", __builtin_cpu_supports("avx2")},
                   {"x86-64-avx512", __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni")}};
    result res[64];
    int nres = 0, failures = 0;
    size_t nk = sizeof KERNELS / sizeof *KERNELS;
    for (size_t ki = 0; ki < nk; ki++) {
        const bench_kernel *bk = &KERNELS[ki];
        if (filter && !strstr(bk->name, filter)) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/bench/kernels/%s.tine", TINE_SOURCE_DIR, bk->name);
        char *text = slurp(path);
        if (!text) {
            fprintf(stderr, "bench: cannot read %s\n", path);
            return 1;
        }
        int w = quick ? 256 : bk->w, h = quick ? 64 : bk->h, m = bk->margin, bytes = bk->bits / 8;
        int iw = w + 2 * m, ih = h + 2 * m;
        unsigned char *in = malloc((size_t)iw * (size_t)ih * (size_t)bytes);
        unsigned char *want = malloc((size_t)w * (size_t)h * (size_t)bytes), *got = malloc((size_t)w * (size_t)h * (size_t)bytes);
        if (!in || !want || !got) return 1;
        uint64_t seed = 42;
        for (size_t i = 0; i < (size_t)iw * (size_t)ih * (size_t)bytes; i++) in[i] = (unsigned char)rnd(&seed);
        int8_t mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
        const void *in00 = in + ((size_t)m * (size_t)iw + (size_t)m) * (size_t)bytes;
        if (clang) clang(bk->name, in00, iw, mask, want, w, w, h);
        else if (gcc) gcc(bk->name, in00, iw, mask, want, w, w, h);
        double clang_ms = clang ? time_ref(clang, bk->name, in00, iw, mask, got, w, h) : 0;
        double gcc_ms = gcc ? time_ref(gcc, bk->name, in00, iw, mask, got, w, h) : 0;
        tine_buffer_t bin = {.data = in, .dims = 2, .min = {-m, -m}, .extent = {iw, ih}, .stride = {1, iw}};
        tine_buffer_t bmask = {.data = mask, .dims = 2, .min = {0, 0}, .extent = {3, 3}, .stride = {1, 3}};
        tine_buffer_t bout = {.data = got, .dims = 2, .min = {0, 0}, .extent = {w, h}, .stride = {1, w}};
        tine_buffer_t *inputs[2] = {&bin, &bmask};
        for (size_t ti = 0; ti < sizeof targets / sizeof *targets && nres < 64; ti++) {
            if (!targets[ti].ok || (only_target && strcmp(only_target, targets[ti].name))) continue;
            fprintf(stderr, "\rbench: %-12s %-14s", bk->name, targets[ti].name);
            result *r = &res[nres++];
            memset(r, 0, sizeof *r);
            r->kernel = bk->name;
            r->target = targets[ti].name;
            r->clang_ms = clang_ms;
            r->gcc_ms = gcc_ms;
            r->exact = true;
            tine_ctx_t *ctx = tine_ctx_new();
            double t0 = now();
            tine_kernel_t *k = tine_kernel_parse(ctx, text, path);
            r->parse_ms = (now() - t0) * 1e3;
            if (!k) {
                fprintf(stderr, "\n%s\n", tine_error(ctx));
                return 1;
            }
            for (int s = 0; s < 2; s++) {
                double c0 = now();
                tine_compiled_t *c = tine_kernel_compile(k, targets[ti].name, s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
                double cms = (now() - c0) * 1e3;
                if (!c) {
                    fprintf(stderr, "\n%s: %s\n", bk->name, tine_error(ctx));
                    return 1;
                }
                memset(got, 0, (size_t)w * (size_t)h * (size_t)bytes);
                if (tine_compiled_run(c, inputs, NULL, &bout) != 0 ||
                    ((clang || gcc) && memcmp(got, want, (size_t)w * (size_t)h * (size_t)bytes))) {
                    r->exact = false;
                    failures++;
                }
                double ms = time_compiled(c, inputs, &bout);
                if (s) {
                    r->tine_ms = ms;
                    r->compile_tine_ms = cms;
                } else {
                    r->llvm_ms = ms;
                    r->compile_llvm_ms = cms;
                }
                tine_compiled_free(c);
            }
            tine_kernel_free(k);
            tine_ctx_free(ctx);
        }
        free(text);
        free(in);
        free(want);
        free(got);
    }
    fprintf(stderr, "\r%60s\r", "");
    printf("tine bench: median of %d runs after %d warm-ups, single thread%s\n\n", RUNS, WARM, quick ? " (quick sizes)" : "");
    printf("%-12s %-14s %9s %9s %9s %9s %8s %8s %8s %9s %9s %6s\n", "kernel", "target", "LLVM ms", "tine ms", "clang ms",
           "gcc ms", "vs LLVM", "vs clang", "vs gcc", "cc LLVM", "cc tine", "exact");
    double geo = 0;
    for (int i = 0; i < nres; i++) {
        result *r = &res[i];
        geo += __builtin_log(r->llvm_ms / r->tine_ms);
        printf("%-12s %-14s %9.3f %9.3f %9.3f %9.3f %7.2fx %7.2fx %7.2fx %7.1fms %7.1fms %6s\n", r->kernel, r->target,
               r->llvm_ms, r->tine_ms, r->clang_ms, r->gcc_ms, r->llvm_ms / r->tine_ms,
               r->clang_ms > 0 ? r->clang_ms / r->tine_ms : 0, r->gcc_ms > 0 ? r->gcc_ms / r->tine_ms : 0,
               r->compile_llvm_ms + r->parse_ms, r->compile_tine_ms + r->parse_ms, r->exact ? "yes" : "NO");
    }
    if (nres) printf("\ngeomean speedup of tine over LLVM alone: %.3fx over %d rows\n", __builtin_exp(geo / nres), nres);
    FILE *csv = fopen("tine-bench.csv", "w");
    if (csv) {
        fprintf(csv, "kernel,target,llvm_ms,tine_ms,clang_ms,gcc_ms,parse_ms,compile_llvm_ms,compile_tine_ms,exact\n");
        for (int i = 0; i < nres; i++)
            fprintf(csv, "%s,%s,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%d\n", res[i].kernel, res[i].target, res[i].llvm_ms,
                    res[i].tine_ms, res[i].clang_ms, res[i].gcc_ms, res[i].parse_ms, res[i].compile_llvm_ms,
                    res[i].compile_tine_ms, res[i].exact);
        fclose(csv);
    }
    write_svg("tine-bench.svg", res, nres);
    bool png = system("command -v rsvg-convert >/dev/null 2>&1") == 0 &&
               system("rsvg-convert tine-bench.svg -o tine-bench.png") == 0;
    printf("wrote tine-bench.csv, tine-bench.svg%s\n", png ? ", tine-bench.png" : " (no PNG: rsvg-convert is not installed)");
    if (failures) printf("%d compiled kernels were NOT bit-exact with the reference\n", failures);
    if (hc) dlclose(hc);
    if (hg) dlclose(hg);
    return failures ? 1 : 0;
}
