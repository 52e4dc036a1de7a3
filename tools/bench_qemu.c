/* bench_qemu.c — the qemu columns of `tine bench --target arm-64`: each kernel's wall time
 * under qemu-aarch64, LLVM alone beside tine, as a sanity check of the llvm-mca estimate
 * (bench_mca.c). qemu translates and executes the instructions; it models no CPU, so the
 * times say that the code runs and roughly how much work it does, not how fast a core is.
 *
 * One AArch64 program per bench run: every kernel, both selections, emitted by the library
 * as objects and headers (tine_kernel_emit "obj" and "h", named qb_llvm_K and qb_tine_K),
 * and a driver generated from the kernels' signatures, linked by clang-19 (cross.c). The
 * host makes each kernel's case at the bench size (bench/ref, random fill), computes the
 * C reference here and writes the case to K.in (inputs, parameters, the output's shape).
 * Two qemu starts: the first calls every kernel once per selection and writes the
 * outputs, which must equal the reference bit for bit (the output's elements only); the
 * second times those that did: a warm-up call (qemu translates the code on its first
 * run), then the runs, the two selections interleaved, each timed in the driver with
 * CLOCK_MONOTONIC, so qemu's start-up is not counted. A mismatch is reported, not timed. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench/harness.h"
#include "bench.h"
#include "cli.h"
#include "cross.h"

/* A buffer's shape in K.in: every field 64 bits, so that both sides read the same bytes
 * (the host and AArch64 Linux are both little-endian LP64). */
#define BLOB_HDR "typedef struct { int64_t dims, min[4], extent[4], stride[4], bytes; } blob_hdr;\n"
typedef struct {
    int64_t dims, min[4], extent[4], stride[4], bytes;
} blob_hdr;

static const char *const SEL_NAME[2] = {"llvm", "tine"};

/* The driver's fixed part (after the generated includes, wrappers and KERNELS table):
 *   driver DIR 0              calls each kernel once per selection, writes DIR/K.S.out
 *                             (the call's status as int64, then the output's bytes)
 *   driver DIR RUNS MASK...   for kernel i, MASK[i][s] == '1': times RUNS calls of s after
 *                             a warm-up, printing "time K S ms ms ..." */
static const char DRIVER_MAIN[] =
    "static void die(const char *what, const char *file) {\n"
    "    fprintf(stderr, \"driver: %s %s\\n\", what, file);\n"
    "    exit(1);\n"
    "}\n"
    "static void load(FILE *f, tine_buffer_t *b, int with_data, const char *file) {\n"
    "    blob_hdr h;\n"
    "    if (fread(&h, sizeof h, 1, f) != 1) die(\"short file\", file);\n"
    "    b->dims = (int)h.dims;\n"
    "    for (int d = 0; d < 4; d++) b->min[d] = h.min[d], b->extent[d] = h.extent[d], b->stride[d] = h.stride[d];\n"
    "    if (!(b->data = malloc((size_t)h.bytes + 1))) die(\"out of memory for\", file);\n"
    "    if (with_data && fread(b->data, 1, (size_t)h.bytes, f) != (size_t)h.bytes) die(\"short file\", file);\n"
    "}\n"
    "static double now_ms(void) {\n"
    "    struct timespec t;\n"
    "    clock_gettime(CLOCK_MONOTONIC, &t);\n"
    "    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "    int runs = argc > 2 ? atoi(argv[2]) : -1;\n"
    "    if (runs < 0 || runs > 1000 || (runs > 0 && argc != 3 + NKERNELS)) die(\"usage: driver DIR 0 | driver DIR RUNS MASK...\", \"\");\n"
    "    for (int k = 0; k < NKERNELS; k++) {\n"
    "        const char *mask = runs ? argv[3 + k] : \"11\";\n"
    "        if (mask[0] != '1' && mask[1] != '1') continue;\n"
    "        char file[4200];\n"
    "        snprintf(file, sizeof file, \"%s/%s.in\", argv[1], KERNELS[k].name);\n"
    "        FILE *f = fopen(file, \"rb\");\n"
    "        int64_t n[2], p[16];\n"
    "        blob_hdr oh;\n"
    "        tine_buffer_t in[8], out;\n"
    "        if (!f || fread(n, sizeof n, 1, f) != 1 || n[0] > 8 || n[1] > 16) die(\"cannot read\", file);\n"
    "        for (int i = 0; i < n[0]; i++) load(f, &in[i], 1, file);\n"
    "        if (n[1] && fread(p, sizeof *p, (size_t)n[1], f) != (size_t)n[1]) die(\"short file\", file);\n"
    "        long pos = ftell(f);\n"
    "        if (fread(&oh, sizeof oh, 1, f) != 1 || fseek(f, pos, SEEK_SET)) die(\"short file\", file);\n"
    "        load(f, &out, 0, file);\n"
    "        fclose(f);\n"
    "        for (int s = 0; s < 2 && !runs; s++) {\n"
    "            int64_t rc = KERNELS[k].call[s](in, p, &out);\n"
    "            snprintf(file, sizeof file, \"%s/%s.%d.out\", argv[1], KERNELS[k].name, s);\n"
    "            f = fopen(file, \"wb\");\n"
    "            if (!f || fwrite(&rc, sizeof rc, 1, f) != 1 || fwrite(out.data, 1, (size_t)oh.bytes, f) != (size_t)oh.bytes)\n"
    "                die(\"cannot write\", file);\n"
    "            if (fclose(f)) die(\"cannot write\", file);\n"
    "        }\n"
    "        double ms[2][1000];\n"
    "        for (int s = 0; s < 2 && runs; s++) /* the warm-up: qemu translates the code */\n"
    "            if (mask[s] == '1') KERNELS[k].call[s](in, p, &out);\n"
    "        for (int r = 0; r < runs; r++) /* the selections interleaved */\n"
    "            for (int s = 0; s < 2; s++) {\n"
    "                if (mask[s] != '1') continue;\n"
    "                double t0 = now_ms();\n"
    "                KERNELS[k].call[s](in, p, &out);\n"
    "                ms[s][r] = now_ms() - t0;\n"
    "            }\n"
    "        for (int s = 0; s < 2 && runs; s++) {\n"
    "            if (mask[s] != '1') continue;\n"
    "            printf(\"time %s %d\", KERNELS[k].name, s);\n"
    "            for (int r = 0; r < runs; r++) printf(\" %.4f\", ms[s][r]);\n"
    "            printf(\"\\n\");\n"
    "        }\n"
    "        for (int i = 0; i < n[0]; i++) free(in[i].data);\n"
    "        free(out.data);\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

/* One buffer's shape, and its bytes when data. */
static bool blob_write(FILE *f, const ref_buffer *b, int bits, bool data) {
    blob_hdr h = {.dims = b->dims, .bytes = (int64_t)case_bytes(b, bits)};
    memcpy(h.min, b->min, sizeof h.min);
    memcpy(h.extent, b->extent, sizeof h.extent);
    memcpy(h.stride, b->stride, sizeof h.stride);
    return fwrite(&h, sizeof h, 1, f) == 1 && (!data || fwrite(b->data, 1, (size_t)h.bytes, f) == (size_t)h.bytes);
}

/* K.in: the numbers of inputs and parameters, each input, the parameters, the output's shape. */
static int write_case(const char *path, const bench_case *c) {
    FILE *f = fopen(path, "wb");
    int64_t n[2] = {c->ninputs, c->nparams};
    bool ok = f && fwrite(n, sizeof n, 1, f) == 1;
    for (int i = 0; i < c->ninputs && ok; i++) ok = blob_write(f, &c->in[i], c->in_bits[i], true);
    ok = ok && (!c->nparams || fwrite(c->params, sizeof *c->params, (size_t)c->nparams, f) == (size_t)c->nparams);
    ok = ok && blob_write(f, &c->out, c->out_bits, false);
    if (f && fclose(f)) ok = false;
    if (!ok) fprintf(stderr, "tine: bench: cannot write %s\n", path);
    return ok ? 0 : -1;
}

/* driver.c: the kernels' headers, a wrapper per kernel and selection that takes the
 * inputs, the parameters as int64_t (the prototype converts each to its type: the low
 * bits, as the harness binds them) and the output, the table, then DRIVER_MAIN. */
static int write_driver(const char *path, const char *const *names, const bench_case *cases, const bool *use, int n) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tine: bench: cannot write %s\n", path);
        return -1;
    }
    fprintf(f, "#define _POSIX_C_SOURCE 200809L\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
               "#include <string.h>\n#include <time.h>\n");
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 2 && use[i]; s++) fprintf(f, "#include \"qb_%s_%s.h\"\n", SEL_NAME[s], names[i]);
    fprintf(f, BLOB_HDR "typedef int (*call_fn)(tine_buffer_t *in, const int64_t *p, tine_buffer_t *out);\n");
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 2 && use[i]; s++) {
            fprintf(f, "static int call_%s_%d(tine_buffer_t *in, const int64_t *p, tine_buffer_t *out) {\n"
                       "    (void)in, (void)p;\n    return qb_%s_%s(", names[i], s, SEL_NAME[s], names[i]);
            for (int j = 0; j < cases[i].ninputs; j++) fprintf(f, "&in[%d], ", j);
            for (int j = 0; j < cases[i].nparams; j++) fprintf(f, "p[%d], ", j);
            fprintf(f, "out);\n}\n");
        }
    fprintf(f, "static const struct { const char *name; call_fn call[2]; } KERNELS[] = {\n");
    int used = 0;
    for (int i = 0; i < n; i++)
        if (use[i]) fprintf(f, "    {\"%s\", {call_%s_0, call_%s_1}},\n", names[i], names[i], names[i]), used++;
    fprintf(f, "};\nenum { NKERNELS = %d };\n", used);
    bool ok = fputs(DRIVER_MAIN, f) >= 0;
    if (fclose(f)) ok = false;
    if (!ok) fprintf(stderr, "tine: bench: cannot write %s\n", path);
    return ok ? 0 : -1;
}

/* Emits kernel i's objects and headers into dir and makes its case; false after a message. */
static bool prepare(const char *dir, const char *target, const char *name, bench_case *c, void **want) {
    const bench_entry *e = bench_entry_find(name);
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = cli_bench_kernel(ctx, name, false);
    uint64_t seed = 11;
    bool ok = e && k && !e->make(c, CASE_FULL, PAT_RANDOM, &seed);
    char err[256] = "", path[4400];
    case_binding b;
    if (ok && case_bind(c, k, NULL, &b, err, sizeof err)) ok = false;
    for (int s = 0; s < 2 && ok; s++)
        for (int w = 0; w < 2 && ok; w++) {
            char sym[128];
            snprintf(sym, sizeof sym, "qb_%s_%s", SEL_NAME[s], name);
            size_t size = 0;
            void *bytes = tine_kernel_emit(k, target, s ? TINE_SELECT_TINE : TINE_SELECT_LLVM, sym, w ? "h" : "obj", &size);
            snprintf(path, sizeof path, "%s/%s.%s", dir, sym, w ? "h" : "o");
            ok = bytes && cross_write_file(path, bytes, size) == 0;
            free(bytes);
        }
    snprintf(path, sizeof path, "%s/%s.in", dir, name);
    if (ok) ok = write_case(path, c) == 0;
    if (!ok) bench_case_free(c);
    if (ok) {
        if (!(*want = malloc(case_bytes(&c->out, c->out_bits) + 1))) abort();
        e->ref(c, *want);
    }
    if (!ok) {
        const char *why = err[0] ? err : !e ? "no harness entry" : k ? tine_error(ctx) : "";
        if (why[0]) fprintf(stderr, "\ntine: bench: qemu: %s: %s\n", name, why);
    }
    tine_kernel_free(k);
    tine_ctx_free(ctx);
    return ok;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs the driver under qemu (log: the file for its output); 0, or -1 after a message. */
static int run_driver(const char *exe, const char *log, char **args, int nargs) {
    char **argv = calloc((size_t)nargs + 5, sizeof *argv);
    if (!argv) abort();
    argv[0] = CROSS_QEMU, argv[1] = "-cpu", argv[2] = "max", argv[3] = (char *)exe;
    memcpy(argv + 4, args, (size_t)nargs * sizeof *argv);
    int sig, rc = cross_spawn(log, argv, &sig);
    free(argv);
    if (rc == 0) return 0;
    if (sig) fprintf(stderr, "tine: bench: the driver was killed by signal %d under " CROSS_QEMU ":\n", sig);
    else fprintf(stderr, "tine: bench: the driver failed under " CROSS_QEMU " (exit %d):\n", rc);
    cross_show_log(log);
    return -1;
}

/* Reads K.S.out and compares it with want: the column's state (a difference said on stderr). */
static meas_state check_output(const char *dir, const char *name, int s, const bench_case *c, const void *want) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.%d.out", dir, name, s);
    size_t nb = case_bytes(&c->out, c->out_bits);
    unsigned char *got = malloc(nb + 1);
    if (!got) abort();
    int64_t rc = -1;
    FILE *f = fopen(path, "rb");
    bool read = f && fread(&rc, sizeof rc, 1, f) == 1 && fread(got, 1, nb, f) == nb;
    if (f) fclose(f);
    int64_t at[4] = {0};
    meas_state st = MEAS_TIMED;
    if (!read || rc) {
        fprintf(stderr, "tine: bench: qemu: %s (%s): %s\n", name, SEL_NAME[s], read ? "the call failed" : "no output");
        st = MEAS_FAILED;
    } else if (case_first_difference(c, got, want, at)) {
        fprintf(stderr, "tine: bench: qemu: %s (%s) differs from the C reference at out(%lld, %lld, %lld, %lld)\n",
                name, SEL_NAME[s], (long long)at[0], (long long)at[1], (long long)at[2], (long long)at[3]);
        st = MEAS_INEXACT;
    }
    free(got);
    return st;
}

/* Reads the "time K S ms..." lines of the timing run's log into res. */
static void read_times(const char *log, const char *const *names, int n, int runs, bench_qemu_result *res) {
    FILE *f = fopen(log, "r");
    char line[16384];
    double *t = malloc(sizeof *t * (size_t)runs);
    if (!t) abort();
    while (f && fgets(line, sizeof line, f)) {
        char name[128];
        int s, off = 0;
        if (sscanf(line, "time %127s %d%n", name, &s, &off) != 2 || s < 0 || s > 1) continue;
        int m = 0;
        for (char *p = line + off, *end; m < runs; p = end) {
            t[m] = strtod(p, &end);
            if (end == p) break;
            m++;
        }
        for (int i = 0; i < n && m == runs; i++) {
            if (strcmp(names[i], name) || res[i].state[s] != MEAS_ABSENT) continue;
            qsort(t, (size_t)m, sizeof *t, cmp_double);
            res[i].ms[s] = m % 2 ? t[m / 2] : (t[m / 2 - 1] + t[m / 2]) / 2;
            res[i].state[s] = MEAS_TIMED;
        }
    }
    if (f) fclose(f);
    free(t);
}

int bench_qemu(const char *target, const char *const *names, int n, int runs, bench_qemu_result *res, char *why,
               size_t nwhy) {
    for (int i = 0; i < n; i++) res[i] = (bench_qemu_result){{MEAS_ABSENT, MEAS_ABSENT}, {0, 0}};
    if (cross_missing_tool(target, why, nwhy)) return -1;
    char dir[4096];
    if (cross_mkdtemp(dir, sizeof dir, "bench")) {
        snprintf(why, nwhy, "no temporary directory");
        return -1;
    }
    bench_case *cases = calloc((size_t)n + 1, sizeof *cases);
    void **want = calloc((size_t)n + 1, sizeof *want);
    bool *use = calloc((size_t)n + 1, sizeof *use);
    char **args = calloc((size_t)n + 3, sizeof *args), *masks = calloc((size_t)n + 1, 3);
    const char **inputs = calloc((size_t)2 * n + 2, sizeof *inputs);
    char (*objs)[4200] = calloc((size_t)2 * n + 1, sizeof *objs);
    if (!cases || !want || !use || !args || !masks || !inputs || !objs) abort();
    char src[4200], exe[4200], log[4200], inc[4200], nruns[16];
    snprintf(src, sizeof src, "%s/driver.c", dir);
    snprintf(exe, sizeof exe, "%s/driver", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    int nin = 0, nused = 0;
    inputs[nin++] = src;
    for (int i = 0; i < n; i++) {
        fprintf(stderr, "\rbench: qemu: %-16s", names[i]);
        use[i] = prepare(dir, target, names[i], &cases[i], &want[i]);
        for (int s = 0; s < 2; s++) {
            res[i].state[s] = use[i] ? MEAS_ABSENT : MEAS_FAILED;
            if (!use[i]) continue;
            snprintf(objs[nin], sizeof objs[0], "%s/qb_%s_%s.o", dir, SEL_NAME[s], names[i]);
            inputs[nin] = objs[nin];
            nin++;
        }
        nused += use[i];
    }
    fprintf(stderr, "\rbench: qemu: linking %-16s", "");
    snprintf(inc, sizeof inc, "-I%s", dir);
    const char *extra[] = {inc, "-lpthread", "-lm", NULL};
    int rc = nused ? write_driver(src, names, cases, use, n) : -1;
    if (rc == 0) rc = cross_link(log, inputs, extra, exe, target);
    fprintf(stderr, "\rbench: qemu: checking %-16s", "");
    args[0] = dir, args[1] = "0";
    if (rc == 0) rc = run_driver(exe, log, args, 2);
    fprintf(stderr, "\r%40s\r", ""); /* the progress line, before any difference is said */
    int ntimed = 0, k = 0;
    for (int i = 0; i < n; i++) {
        if (!use[i]) continue;
        char *mask = masks + 3 * i;
        for (int s = 0; s < 2; s++) {
            meas_state st = rc ? MEAS_FAILED : check_output(dir, names[i], s, &cases[i], want[i]);
            mask[s] = st == MEAS_TIMED ? '1' : '0';
            if (st != MEAS_TIMED) res[i].state[s] = st;
            ntimed += st == MEAS_TIMED;
        }
        args[2 + k++] = mask;
    }
    fprintf(stderr, "\rbench: qemu: timing %-16s", "");
    snprintf(nruns, sizeof nruns, "%d", runs);
    args[1] = nruns;
    if (rc == 0 && ntimed && run_driver(exe, log, args, 2 + k) == 0) read_times(log, names, n, runs, res);
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 2; s++)
            if (res[i].state[s] == MEAS_ABSENT) res[i].state[s] = MEAS_FAILED; /* timed runs missing */
    fprintf(stderr, "\r%40s\r", "");
    cross_rmtree(dir);
    for (int i = 0; i < n; i++) {
        bench_case_free(&cases[i]);
        free(want[i]);
    }
    free(cases), free(want), free(use), free(args), free(masks), free(inputs), free(objs);
    return 0;
}
