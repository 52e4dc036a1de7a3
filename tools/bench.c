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
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench/harness.h"

#ifndef TINE_SOURCE_DIR
#define TINE_SOURCE_DIR "."
#endif

typedef const bench_entry *(*entries_fn)(void);

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Builds bench/ref as a shared object with `compiler`; its entry table, or NULL if the
 * compiler is not installed. */
static entries_fn load_ref(const char *compiler, const char *tag, void **handle) {
    char so[256], cmd[2048];
    snprintf(so, sizeof so, "/tmp/tine-bench-ref-%s-%ld.so", tag, (long)getpid());
    snprintf(cmd, sizeof cmd, "%s -O3 -march=native -fPIC -shared -o %s", compiler, so);
    static const char *const files[] = {"cases.c", "image.c", "camera.c", "ml.c", "ml_reduce.c"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " %s/bench/ref/%s", TINE_SOURCE_DIR, files[i]);
    snprintf(cmd + strlen(cmd), sizeof cmd - strlen(cmd), " 2>/dev/null");
    if (system(cmd) != 0) return NULL;
    *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    remove(so);
    if (!*handle) return NULL;
    entries_fn f;
    void *sym = dlsym(*handle, "bench_entries");
    memcpy(&f, &sym, sizeof f);
    return f;
}

static const bench_entry *find_in(entries_fn f, const char *name) {
    if (!f) return NULL;
    for (const bench_entry *e = f(); e->name; e++)
        if (!strcmp(e->name, name)) return e;
    return NULL;
}

char *tine_cli_read_file(const char *path); /* cli.c: says why on stderr when it returns NULL */

typedef struct {
    const char *kernel, *target;
    double llvm_ms, tine_ms, clang_ms, gcc_ms, compile_llvm_ms, compile_tine_ms, parse_ms;
    double expand_ms, lift_ms, llvm_cg_ms, tine_cg_ms; /* by phase: selection, then LLVM */
    bool exact;
} result;

enum { WARM = 2, RUNS = 10 };

static double time_compiled(tine_compiled_t *c, case_binding *b) {
    double t[RUNS];
    for (int i = 0; i < WARM; i++) tine_compiled_run(c, b->inputs, b->params, &b->out);
    for (int i = 0; i < RUNS; i++) {
        double t0 = now();
        tine_compiled_run(c, b->inputs, b->params, &b->out);
        t[i] = now() - t0;
    }
    qsort(t, RUNS, sizeof *t, cmpd);
    return t[RUNS / 2] * 1e3;
}

static double time_ref(const bench_entry *e, const bench_case *c, void *out) {
    double t[RUNS];
    for (int i = 0; i < WARM; i++) e->ref(c, out);
    for (int i = 0; i < RUNS; i++) {
        double t0 = now();
        e->ref(c, out);
        t[i] = now() - t0;
    }
    qsort(t, RUNS, sizeof *t, cmpd);
    return t[RUNS / 2] * 1e3;
}

static size_t out_bytes(const bench_case *c) {
    size_t n = 1;
    for (int d = 0; d < c->out.dims; d++) n += (size_t)(c->out.extent[d] - 1) * (size_t)c->out.stride[d];
    return n * (size_t)(c->out_bits / 8);
}

/* 0, or -1 when the file could not be written (errno says why) */
static int write_svg(const char *path, const result *r, int n) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
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
    bool ok = !ferror(f);
    return fclose(f) == 0 && ok ? 0 : -1;
}

int tine_cmd_bench(const char *filter, const char *only_target, int quick) {
    __builtin_cpu_init();
    struct {
        const char *name;
        bool ok;
    } targets[] = {{"x86-64-sse2", true},
                   {"x86-64-sse41", __builtin_cpu_supports("sse4.1")},
                   {"x86-64-avx2", __builtin_cpu_supports("avx2")},
                   {"x86-64-avx512", __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vnni")}};
    /* a target or filter that selects nothing is a mistake, not an empty table */
    int known = 0, runnable = 0, kernels = 0;
    for (size_t ti = 0; ti < sizeof targets / sizeof *targets; ti++)
        if (!only_target || !strcmp(only_target, targets[ti].name)) known++, runnable += targets[ti].ok;
    if (!known) {
        fprintf(stderr, "tine: bench --target takes x86-64-sse2, x86-64-sse41, x86-64-avx2 or x86-64-avx512, not '%s'\n",
                only_target);
        return 2;
    }
    if (!runnable) {
        fprintf(stderr, "tine: this machine cannot run %s code\n", only_target);
        return 1;
    }
    for (const bench_entry *be = bench_entries(); be->name; be++) kernels += !filter || strstr(be->name, filter);
    if (!kernels) {
        fprintf(stderr, "tine: no benchmark kernel matches --filter '%s'\n", filter);
        return 2;
    }
    void *hc = NULL, *hg = NULL;
    entries_fn clang = load_ref("clang-19", "clang", &hc), gcc = load_ref("gcc", "gcc", &hg);
    if (!clang) fprintf(stderr, "bench: clang-19 is not installed: its column is empty (scripts/setup.sh installs it)\n");
    if (!gcc) fprintf(stderr, "bench: gcc is not installed: its column is empty\n");
    result res[128];
    int nres = 0, failures = 0;
    for (const bench_entry *be = bench_entries(); be->name; be++) {
        if (filter && !strstr(be->name, filter)) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/bench/kernels/%s.tine", TINE_SOURCE_DIR, be->name);
        char *text = tine_cli_read_file(path);
        if (!text) return 1; /* it said why */
        fprintf(stderr, "\rbench: %-14s preparing inputs%20s", be->name, "");
        uint64_t seed = 42;
        bench_case bc = {.name = be->name};
        if (be->make(&bc, quick ? CASE_QUICK : CASE_FULL, PAT_RANDOM, &seed) != 0) {
            fprintf(stderr, "\nbench: %s: no case\n", be->name);
            return 1;
        }
        size_t nb = out_bytes(&bc);
        unsigned char *want = calloc(nb, 1), *got = calloc(nb, 1);
        if (!want || !got) return 1;
        const bench_entry *rc_ = find_in(clang, be->name), *rg = find_in(gcc, be->name);
        (rc_ ? rc_ : rg ? rg : be)->ref(&bc, want);
        double clang_ms = rc_ ? time_ref(rc_, &bc, got) : 0;
        double gcc_ms = rg ? time_ref(rg, &bc, got) : 0;
        for (size_t ti = 0; ti < sizeof targets / sizeof *targets && nres < 128; ti++) {
            if (!targets[ti].ok || (only_target && strcmp(only_target, targets[ti].name))) continue;
            fprintf(stderr, "\rbench: %-14s %-14s%20s", be->name, targets[ti].name, "");
            result *r = &res[nres++];
            memset(r, 0, sizeof *r);
            r->kernel = be->name;
            r->target = targets[ti].name;
            r->clang_ms = clang_ms;
            r->gcc_ms = gcc_ms;
            r->exact = true;
            tine_ctx_t *ctx = tine_ctx_new();
            double t0 = now();
            tine_kernel_t *k = tine_kernel_parse(ctx, text, path);
            r->parse_ms = (now() - t0) * 1e3;
            case_binding b;
            char err[256];
            if (!k || case_bind(&bc, k, got, &b, err, sizeof err)) {
                fprintf(stderr, "\n%s\n", k ? err : tine_error(ctx));
                return 1;
            }
            for (int s = 0; s < 2; s++) {
                double c0 = now();
                tine_compiled_t *c = tine_kernel_compile(k, targets[ti].name, s ? TINE_SELECT_TINE : TINE_SELECT_LLVM);
                double cms = (now() - c0) * 1e3;
                if (!c) {
                    fprintf(stderr, "\n%s: %s\n", be->name, tine_error(ctx));
                    return 1;
                }
                memset(got, 0, nb);
                if (tine_compiled_run(c, b.inputs, b.params, &b.out) != 0 || memcmp(got, want, nb)) {
                    r->exact = false;
                    failures++;
                }
                double ms = time_compiled(c, &b);
                double sel_ms, cg_ms;
                tine_compiled_times(c, &sel_ms, &cg_ms);
                if (s) {
                    r->tine_ms = ms;
                    r->compile_tine_ms = cms;
                    r->lift_ms = sel_ms;
                    r->tine_cg_ms = cg_ms;
                } else {
                    r->llvm_ms = ms;
                    r->compile_llvm_ms = cms;
                    r->expand_ms = sel_ms;
                    r->llvm_cg_ms = cg_ms;
                }
                tine_compiled_free(c);
            }
            tine_kernel_free(k);
            tine_ctx_free(ctx);
        }
        free(text);
        bench_case_free(&bc);
        free(want);
        free(got);
    }
    fprintf(stderr, "\r%60s\r", "");
    printf("tine bench: median of %d runs after %d warm-ups, single thread%s\n\n", RUNS, WARM, quick ? " (quick sizes)" : "");
    printf("%-15s %-14s %9s %9s %9s %9s %8s %8s %8s %9s %9s %6s\n", "kernel", "target", "LLVM ms", "tine ms", "clang ms",
           "gcc ms", "vs LLVM", "vs clang", "vs gcc", "cc LLVM", "cc tine", "exact");
    double geo = 0;
    for (int i = 0; i < nres; i++) {
        result *r = &res[i];
        geo += __builtin_log(r->llvm_ms / r->tine_ms);
        printf("%-15s %-14s %9.3f %9.3f %9.3f %9.3f %7.2fx %7.2fx %7.2fx %7.1fms %7.1fms %6s\n", r->kernel, r->target,
               r->llvm_ms, r->tine_ms, r->clang_ms, r->gcc_ms, r->llvm_ms / r->tine_ms,
               r->clang_ms > 0 ? r->clang_ms / r->tine_ms : 0, r->gcc_ms > 0 ? r->gcc_ms / r->tine_ms : 0,
               r->compile_llvm_ms + r->parse_ms, r->compile_tine_ms + r->parse_ms, r->exact ? "yes" : "NO");
    }
    if (nres) printf("\ngeomean speedup of tine over LLVM alone: %.3fx over %d rows\n", __builtin_exp(geo / nres), nres);
    /* per target: the geomean, the kernels tine is slower on, and total compile times */
    for (int ti = 0; ti < (int)(sizeof targets / sizeof targets[0]); ti++) {
        double g = 0, cl = 0, ct = 0;
        int n = 0;
        char slower[512] = "";
        for (int i = 0; i < nres; i++) {
            result *r = &res[i];
            if (strcmp(r->target, targets[ti].name)) continue;
            g += __builtin_log(r->llvm_ms / r->tine_ms);
            cl += r->compile_llvm_ms + r->parse_ms;
            ct += r->compile_tine_ms + r->parse_ms;
            n++;
            if (r->tine_ms > r->llvm_ms * 1.02 && strlen(slower) < sizeof slower - 40)
                snprintf(slower + strlen(slower), sizeof slower - strlen(slower), " %s (%.2fx)", r->kernel,
                         r->llvm_ms / r->tine_ms);
        }
        if (!n) continue;
        printf("  %-14s geomean %.3fx over %d kernels; compile time tine %.0f ms, LLVM alone %.0f ms; slower than LLVM "
               "alone by more than 2%%:%s\n",
               targets[ti].name, __builtin_exp(g / n), n, ct, cl, slower[0] ? slower : " none");
    }
    /* compile time by phase (cc columns above = parse + selection + LLVM) */
    printf("\ncompile time by phase, ms (parse = parsing and lowering to stages; select = lifting or expansion;\n"
           "LLVM = IR emission, O3 and machine code), medians over the targets:\n");
    printf("%-15s %8s %11s %11s %11s %11s\n", "kernel", "parse", "alone:exp", "alone:LLVM", "tine:lift", "tine:LLVM");
    for (int i = 0; i < nres;) {
        int j = i;
        double v[5][8];
        while (j < nres && !strcmp(res[j].kernel, res[i].kernel) && j - i < 8) {
            v[0][j - i] = res[j].parse_ms;
            v[1][j - i] = res[j].expand_ms;
            v[2][j - i] = res[j].llvm_cg_ms;
            v[3][j - i] = res[j].lift_ms;
            v[4][j - i] = res[j].tine_cg_ms;
            j++;
        }
        for (int c = 0; c < 5; c++) qsort(v[c], (size_t)(j - i), sizeof(double), cmpd);
        int m = (j - i) / 2;
        printf("%-15s %8.1f %11.1f %11.1f %11.1f %11.1f\n", res[i].kernel, v[0][m], v[1][m], v[2][m], v[3][m], v[4][m]);
        i = j;
    }
    FILE *csv = fopen("tine-bench.csv", "w");
    if (csv) {
        fprintf(csv, "kernel,target,llvm_ms,tine_ms,clang_ms,gcc_ms,parse_ms,compile_llvm_ms,compile_tine_ms,"
                     "expand_ms,llvm_codegen_ms,lift_ms,tine_codegen_ms,exact\n");
        for (int i = 0; i < nres; i++)
            fprintf(csv, "%s,%s,%.4f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%d\n", res[i].kernel, res[i].target,
                    res[i].llvm_ms, res[i].tine_ms, res[i].clang_ms, res[i].gcc_ms, res[i].parse_ms,
                    res[i].compile_llvm_ms, res[i].compile_tine_ms, res[i].expand_ms, res[i].llvm_cg_ms, res[i].lift_ms,
                    res[i].tine_cg_ms, res[i].exact);
    }
    /* the CSV and the chart are results too: a write that fails is reported */
    bool csv_ok = csv && !ferror(csv);
    if (csv && fclose(csv) != 0) csv_ok = false;
    if (!csv_ok) {
        fprintf(stderr, "tine: cannot write tine-bench.csv: %s\n", strerror(errno));
        return 1;
    }
    if (write_svg("tine-bench.svg", res, nres)) {
        fprintf(stderr, "tine: cannot write tine-bench.svg: %s\n", strerror(errno));
        return 1;
    }
    bool png = system("command -v rsvg-convert >/dev/null 2>&1") == 0 &&
               system("rsvg-convert tine-bench.svg -o tine-bench.png") == 0;
    printf("wrote tine-bench.csv, tine-bench.svg%s\n", png ? ", tine-bench.png" : " (no PNG: rsvg-convert is not installed)");
    if (failures) printf("%d compiled kernels were NOT bit-exact with the reference\n", failures);
    if (hc) dlclose(hc);
    if (hg) dlclose(hg);
    return failures ? 1 : 0;
}
