#define _POSIX_C_SOURCE 200809L /* strndup, strtok_r */
/* retarget_check.c — `tine retarget --check`: the source and its rewrite, each compiled for
 * its own target (x86 natively, AArch64 under qemu-aarch64), run on the same inputs.
 *
 * A generated driver calls every function whose signature it can drive (integers and
 * pointers to integers: tine_retarget_functions) on buffers of random bytes and edge
 * patterns, from one seeded generator, so both programs see the same inputs; after each
 * call it prints a hash of every buffer and the result. The two transcripts must be equal;
 * the first line that differs names the function, the call and its arguments. Integer
 * parameters get values by their names, as intrinsic code uses them: n, len, count, w ...
 * from lengths around the vector widths; h, rows small; strides 64; others 0..7.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cross.h"
#include "retarget_check.h"

typedef struct {
    char kind; /* i, o, s */
    int bytes;
    char name[64], type[96];
} param;

typedef struct {
    char name[128], ret[64];
    param p[12];
    int np;
} func;

static int parse_funcs(const char *text, func **out) {
    int n = 0, cap = 0;
    func *f = NULL;
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *l = strndup(line, len);
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            f = realloc(f, sizeof *f * (size_t)cap);
        }
        func *fn = &f[n];
        memset(fn, 0, sizeof *fn);
        char *save = NULL, *tok = strtok_r(l, "\t", &save);
        if (tok) snprintf(fn->name, sizeof fn->name, "%s", tok);
        if ((tok = strtok_r(NULL, "\t", &save))) snprintf(fn->ret, sizeof fn->ret, "%s", tok);
        while ((tok = strtok_r(NULL, "\t", &save)) && fn->np < 12) {
            param *p = &fn->p[fn->np++];
            int used = 0;
            if (sscanf(tok, "%c %d %63s %n", &p->kind, &p->bytes, p->name, &used) < 3) fn->np--;
            else snprintf(p->type, sizeof p->type, "%s", tok + used);
        }
        n++;
        free(l);
        line += len + (nl != NULL);
    }
    *out = f;
    return n;
}

static bool name_has(const char *name, const char *const *words) {
    for (; *words; words++)
        if (strstr(name, *words)) return true;
    return false;
}

/* The driver: the functions' prototypes, one generator, every function called `iters`
 * times with fresh inputs, a line per call. */
static char *driver(const func *f, int n, int iters) {
    static const char *const LEN[] = {"n", "len", "count", "size", "w", "width", "cols", "num", NULL};
    static const char *const ROWS[] = {"h", "height", "rows", NULL};
    size_t cap = 1 << 16, used = 0;
    char *s = malloc(cap);
#define OUT(...)                                                                                \
    do {                                                                                        \
        int k_ = snprintf(s + used, cap - used, __VA_ARGS__);                                   \
        if ((size_t)k_ >= cap - used) {                                                         \
            cap = 2 * cap + (size_t)k_;                                                         \
            s = realloc(s, cap);                                                                \
            snprintf(s + used, cap - used, __VA_ARGS__);                                        \
        }                                                                                       \
        used += (size_t)k_;                                                                     \
    } while (0)
    OUT("#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n");
    for (int k = 0; k < n; k++) {
        OUT("%s %s(", f[k].ret, f[k].name);
        for (int j = 0; j < f[k].np; j++) OUT("%s%s", j ? ", " : "", f[k].p[j].type);
        OUT("%s);\n", f[k].np ? "" : "void");
    }
    OUT("%s", "static uint64_t s = 0x9e3779b97f4a7c15ull;\n"
        "static uint64_t rnd(void) { uint64_t z = (s += 0x9E3779B97F4A7C15ull); z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;"
        " z = (z ^ (z >> 27)) * 0x94D049BB133111EBull; return z ^ (z >> 31); }\n"
        "#define BUF 65536\nstatic unsigned char buf[12][BUF + 64] __attribute__((aligned(64)));\n"
        "static uint64_t hash(const unsigned char *p, size_t n) { uint64_t h = 1469598103934665603ull;"
        " for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull; return h; }\n"
        "static void fill(unsigned char *p, int it) { for (size_t i = 0; i < BUF + 64; i++) {"
        " uint64_t r = rnd(); p[i] = it % 4 == 1 ? 0xff : it % 4 == 2 ? (unsigned char)((r & 1) ? 0x80 : 0x7f) :"
        " it % 4 == 3 ? (unsigned char)(r & 3) : (unsigned char)r; } }\n"
        "static const long lens[] = {0, 1, 7, 15, 16, 17, 31, 32, 33, 64, 100, 257};\n"
        "int main(void) {\n");
    for (int k = 0; k < n; k++) {
        const func *fn = &f[k];
        OUT("  for (int it = 0; it < %d; it++) {\n", iters);
        for (int j = 0; j < fn->np; j++) {
            const param *p = &fn->p[j];
            if (p->kind != 's') {
                OUT("    fill(buf[%d], it);\n", j);
                continue;
            }
            if (strstr(p->name, "stride")) OUT("    long a%d = 64 + (long)(rnd() %% 16);\n", j);
            else if (name_has(p->name, ROWS) && strlen(p->name) <= 6) OUT("    long a%d = (long)(rnd() %% 6);\n", j);
            else if (name_has(p->name, LEN)) OUT("    long a%d = lens[rnd() %% 12];\n", j);
            else OUT("    long a%d = (long)(rnd() %% 8);\n", j);
        }
        OUT("    ");
        bool ret = strcmp(fn->ret, "void") != 0;
        if (ret) OUT("long long r = (long long)");
        OUT("%s(", fn->name);
        for (int j = 0; j < fn->np; j++) {
            const param *p = &fn->p[j];
            if (p->kind == 's') OUT("%s(%s)a%d", j ? ", " : "", p->type, j);
            else OUT("%s(%s)(void *)(buf[%d] + 32)", j ? ", " : "", p->type, j);
        }
        OUT(");\n    printf(\"%s %%d", fn->name);
        for (int j = 0; j < fn->np; j++)
            if (fn->p[j].kind == 's') OUT(" %s=%%ld", fn->p[j].name);
        OUT(" ->");
        for (int j = 0; j < fn->np; j++)
            if (fn->p[j].kind == 'o') OUT(" %s:%%016llx", fn->p[j].name);
        if (ret) OUT(" return:%%lld");
        OUT("\\n\", it");
        for (int j = 0; j < fn->np; j++)
            if (fn->p[j].kind == 's') OUT(", a%d", j);
        for (int j = 0; j < fn->np; j++)
            if (fn->p[j].kind == 'o') OUT(", (unsigned long long)hash(buf[%d], BUF + 64)", j);
        if (ret) OUT(", r");
        OUT(");\n  }\n");
    }
    OUT("  return 0;\n}\n");
#undef OUT
    return s;
}

/* Builds src with the driver for target (natively, or a static AArch64 program) and runs
 * it, its transcript into log. 0, or -1 after a message. */
static int build_run(const char *dir, const char *tag, const char *src, const char *drv, const char *target,
                     const options *o, const char *log) {
    char exe[512], blog[512];
    snprintf(exe, sizeof exe, "%s/%s", dir, tag);
    snprintf(blog, sizeof blog, "%s/%s.build", dir, tag);
    bool arm = !strcmp(tine_target_isa(target), "arm");
    const char *argv[96];
    int a = 0;
    char flags[256] = "";
    const char *fl = tine_target_cflags(target, &(int){0});
    if (fl) snprintf(flags, sizeof flags, "%s", fl);
    argv[a++] = "clang-19";
    if (arm) argv[a++] = "--target=aarch64-linux-gnu", argv[a++] = "-static";
    for (char *w = strtok(flags, " "); w && a < 40; w = strtok(NULL, " "))
        if (!arm || strncmp(w, "--target", 8)) argv[a++] = w;
    argv[a++] = "-O2";
    argv[a++] = "-w";
    for (int i = 0; i < o->ncflags && a < 80; i++) argv[a++] = o->cflags[i];
    argv[a++] = src;
    argv[a++] = drv;
    argv[a++] = "-o";
    argv[a++] = exe;
    argv[a++] = "-lm"; /* the rewrite's lane loops may call libm (fmaf where the target has no FMA) */
    argv[a] = NULL;
    int sig = 0;
    if (cross_spawn(blog, (char *const *)argv, &sig) != 0) {
        fprintf(stderr, "tine retarget --check: the %s program does not build:\n", tag);
        cross_show_log(blog);
        return -1;
    }
    const char *run[8];
    int r = 0;
    if (arm) run[r++] = CROSS_QEMU, run[r++] = "-L", run[r++] = CROSS_SYSROOT;
    run[r++] = exe;
    run[r] = NULL;
    if (cross_spawn(log, (char *const *)run, &sig) != 0) {
        fprintf(stderr, "tine retarget --check: the %s program failed%s\n", tag, sig ? " (a signal)" : "");
        cross_show_log(log);
        return -1;
    }
    return 0;
}

int retarget_check(const options *o, const char *src_text, const char *out_text) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_retarget_opts ro = {.from = o->from, .to = o->to, .cflags = o->cflags, .ncflags = o->ncflags,
                             .no_widen = o->no_widen};
    char *list = tine_retarget_functions(ctx, o->file, src_text, &ro);
    if (!list) {
        fprintf(stderr, "%s\n", tine_error(ctx));
        tine_ctx_free(ctx);
        return 1;
    }
    func *f = NULL;
    int n = parse_funcs(list, &f);
    free(list);
    tine_ctx_free(ctx);
    if (!n) {
        fprintf(stderr, "tine retarget --check: %s has no function it can call (not static, integers and pointers "
                        "to integers only)\n", o->file);
        free(f);
        return 1;
    }
    char buf[64];
    for (int i = 0; i < 2; i++)
        if (cross_missing_tool(i ? o->to : o->from, buf, sizeof buf)) {
            fprintf(stderr, "tine retarget --check: %s is not installed\n", buf);
            free(f);
            return 1;
        }
    char dir[512];
    if (cross_mkdtemp(dir, sizeof dir, "check") != 0) {
        free(f);
        return 1;
    }
    char *drv = driver(f, n, 24);
    char p_src[600], p_out[600], p_drv[600], l_src[600], l_out[600];
    snprintf(p_src, sizeof p_src, "%s/source.c", dir);
    snprintf(p_out, sizeof p_out, "%s/retargeted.c", dir);
    snprintf(p_drv, sizeof p_drv, "%s/driver.c", dir);
    snprintf(l_src, sizeof l_src, "%s/source.log", dir);
    snprintf(l_out, sizeof l_out, "%s/retargeted.log", dir);
    int rc = 1;
    if (!cross_write_file(p_src, src_text, strlen(src_text)) && !cross_write_file(p_out, out_text, strlen(out_text)) &&
        !cross_write_file(p_drv, drv, strlen(drv)) && !build_run(dir, "source", p_src, p_drv, o->from, o, l_src) &&
        !build_run(dir, "retargeted", p_out, p_drv, o->to, o, l_out)) {
        char *a = tine_cli_read_file(l_src), *b = tine_cli_read_file(l_out);
        if (a && b) {
            const char *x = a, *y = b;
            int line = 1;
            while (*x && *x == *y) {
                if (*x == '\n') line++;
                x++, y++;
            }
            if (!*x && !*y) {
                fprintf(stderr, "tine retarget --check: %d functions, 24 calls each: the same results for %s and %s\n", n,
                        o->from, o->to);
                rc = 0;
            } else {
                while (x > a && x[-1] != '\n') x--;
                while (y > b && y[-1] != '\n') y--;
                fprintf(stderr, "tine retarget --check: call %d differs\n  %s: %.*s\n  %s: %.*s\n", line, o->from,
                        (int)strcspn(x, "\n"), x, o->to, (int)strcspn(y, "\n"), y);
            }
        }
        free(a);
        free(b);
    }
    free(drv);
    free(f);
    cross_rmtree(dir);
    return rc;
}
