#define _POSIX_C_SOURCE 200809L
/* cross.c — AArch64 code under qemu-aarch64 for `tine run -e` (cross.h).
 *
 * The driver is fixed C, built per run with the expression's object: its command line
 * gives the output's bytes and each argument's bytes; it reads one record per input
 * vector (a byte saying whether to call, then every argument's bytes), calls
 * `tine_expr(args, out)` and writes the output bytes of each record. One qemu start per
 * run, not per vector: qemu's start-up is most of the cost. */
#include "cross.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static const char DRIVER[] =
    "#include <stdint.h>\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "void tine_expr(const void *const *args, void *out);\n"
    "static void die(const char *why) { fprintf(stderr, \"driver: %s\\n\", why); exit(1); }\n"
    "int main(int argc, char **argv) {\n"
    "    if (argc < 4) die(\"usage: driver IN OUT OUT_BYTES [ARG_BYTES]...\");\n"
    "    FILE *in = fopen(argv[1], \"rb\"), *out = fopen(argv[2], \"wb\");\n"
    "    int n = argc - 4;\n"
    "    size_t ob = strtoul(argv[3], NULL, 10), *size = calloc(n + 1, sizeof *size);\n"
    "    void **arg = calloc(n + 1, sizeof *arg);\n"
    "    unsigned char *o = malloc(ob + 1);\n"
    "    if (!in || !out) die(\"cannot open the input or the output\");\n"
    "    if (!size || !arg || !o) die(\"out of memory\");\n"
    "    for (int i = 0; i < n; i++)\n"
    "        if (size[i] = strtoul(argv[4 + i], NULL, 10), !(arg[i] = malloc(size[i] + 1))) die(\"out of memory\");\n"
    "    for (int call; (call = fgetc(in)) != EOF;) {\n"
    "        for (int i = 0; i < n; i++)\n"
    "            if (fread(arg[i], 1, size[i], in) != size[i]) die(\"short record\");\n"
    "        memset(o, 0, ob);\n"
    "        if (call) tine_expr((const void *const *)arg, o);\n"
    "        if (fwrite(o, 1, ob, out) != ob) die(\"cannot write the output\");\n"
    "    }\n"
    "    if (fclose(out)) die(\"cannot write the output\");\n"
    "    return 0;\n"
    "}\n";

struct cross_run {
    char dir[4096];
    const char *target;
    const tine_expr_t **args;
    int nargs;
    size_t *size;   /* each argument's bytes, fixed by the first vector */
    FILE *in;       /* in.bin, open while vectors are added */
    int vectors;
};

static void path_of(const cross_run *c, const char *file, char *buf, size_t n) {
    snprintf(buf, n, "%s/%s", c->dir, file);
}

/* 1 when an executable called name is in a directory of PATH. */
static int on_path(const char *name) {
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t n = strcspn(path, ":");
        char full[4096];
        snprintf(full, sizeof full, "%.*s/%s", (int)(n ? n : 1), n ? path : ".", name);
        if (access(full, X_OK) == 0) return 1;
        path += n + (path[n] == ':');
    }
    return 0;
}

int cross_wanted(tine_ctx_t *ctx, const char *target) {
    if (!target || !strcmp(target, "host")) return 0;
    const char *isa = tine_target_isa(target);
    if (!isa || strcmp(isa, "arm")) return 0;
    int here = tine_target_runs_here(ctx, target);
    if (here < 0) tine_clear_error(ctx);
    return here == 0;
}

const char *cross_missing_tool(const char *target, char *buf, size_t n) {
    struct stat st;
    if (!on_path(CROSS_CC))
        snprintf(buf, n, "running %s code needs " CROSS_CC " (to link it for AArch64), which is not on PATH", target);
    else if (stat(CROSS_SYSROOT, &st) || !S_ISDIR(st.st_mode))
        snprintf(buf, n,
                 "running %s code needs the AArch64 C library in " CROSS_SYSROOT
                 " (Debian and Ubuntu: libc6-dev-arm64-cross)",
                 target);
    else if (!on_path(CROSS_QEMU))
        snprintf(buf, n, "running %s code needs " CROSS_QEMU " (Debian and Ubuntu: qemu-user), which is not on PATH",
                 target);
    else return NULL;
    return buf;
}

int cross_mkdtemp(char *dir, size_t n, const char *what) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, n, "%s/tine-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", what);
    if (mkdtemp(dir)) return 0;
    fprintf(stderr, "tine: cannot make a temporary directory %s: %s\n", dir, strerror(errno));
    return -1;
}

void cross_rmtree(const char *dir) {
    DIR *d = dir && *dir ? opendir(dir) : NULL;
    if (!d) return;
    char path[4200];
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

int cross_write_file(const char *path, const void *data, size_t n) {
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(data, 1, n, f) == n;
    if (f && fclose(f)) ok = 0;
    if (!ok) fprintf(stderr, "tine: cannot write %s: %s\n", path, strerror(errno));
    return ok ? 0 : -1;
}

int cross_spawn(const char *log, char *const *argv, int *sig) {
    *sig = 0;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFSIGNALED(status)) *sig = WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void cross_show_log(const char *log) {
    char line[512];
    FILE *f = fopen(log, "r");
    for (int i = 0; f && i < 20 && fgets(line, sizeof line, f); i++) fprintf(stderr, "  %s", line);
    if (f) fclose(f);
}

int cross_link(const char *log, const char *const *inputs, const char *const *extra, const char *exe,
               const char *what) {
    const char *fixed[] = {CROSS_CC, "--target=aarch64-linux-gnu", "-O1", "-static", "-w", "-o", exe};
    enum { NFIXED = sizeof fixed / sizeof *fixed };
    int n = 0, m = 0;
    while (inputs[n]) n++;
    while (extra && extra[m]) m++;
    const char **argv = calloc((size_t)(NFIXED + n + m + 1), sizeof *argv);
    if (!argv) {
        fprintf(stderr, "tine: out of memory\n");
        return -1;
    }
    memcpy(argv, fixed, sizeof fixed);
    memcpy(argv + NFIXED, inputs, (size_t)n * sizeof *argv);
    if (m) memcpy(argv + NFIXED + n, extra, (size_t)m * sizeof *argv);
    int sig, rc = cross_spawn(log, (char *const *)argv, &sig);
    free(argv);
    if (rc == 0) return 0;
    fprintf(stderr, "tine: " CROSS_CC " could not link the %s code with its driver:\n", what);
    cross_show_log(log);
    return -1;
}

cross_run *cross_open(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel,
                      const tine_expr_t *const **args, int *nargs) {
    char why[512];
    if (cross_missing_tool(target, why, sizeof why)) {
        fprintf(stderr, "tine: %s\n", why);
        return NULL;
    }
    cross_run *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "tine: out of memory\n");
        return NULL;
    }
    c->target = target;
    if (cross_mkdtemp(c->dir, sizeof c->dir, "cross")) {
        free(c);
        return NULL;
    }
    size_t size = 0;
    char *obj = tine_emit_expr_as(ctx, e, target, sel, TINE_EMIT_OBJ, "tine_expr", &size, &c->args, &c->nargs);
    char path[4200];
    path_of(c, "expr.o", path, sizeof path);
    int rc = obj ? cross_write_file(path, obj, size) : -1;
    if (!obj) cli_report(ctx, "tine: ");
    free(obj);
    path_of(c, "driver.c", path, sizeof path);
    if (rc == 0) rc = cross_write_file(path, DRIVER, sizeof DRIVER - 1);
    path_of(c, "in.bin", path, sizeof path);
    if (rc == 0 && !(c->in = fopen(path, "wb"))) {
        fprintf(stderr, "tine: cannot write %s: %s\n", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && !(c->size = calloc((size_t)c->nargs + 1, sizeof *c->size))) {
        fprintf(stderr, "tine: out of memory\n");
        rc = -1;
    }
    if (rc) {
        cross_close(c);
        return NULL;
    }
    *args = c->args;
    *nargs = c->nargs;
    return c;
}

int cross_add(cross_run *c, const void *const *arg, const size_t *size, bool call) {
    int ok = 1;
    if (c->vectors++ == 0) memcpy(c->size, size, sizeof *size * (size_t)c->nargs);
    for (int i = 0; i < c->nargs; i++) ok &= size[i] == c->size[i];
    if (!ok) {
        fprintf(stderr, "tine: internal error: an input vector changed its arguments' sizes\n");
        return -1;
    }
    ok = fputc(call ? 1 : 0, c->in) != EOF;
    for (int i = 0; i < c->nargs && ok; i++) ok = fwrite(arg[i], 1, size[i], c->in) == size[i];
    if (!ok) fprintf(stderr, "tine: cannot write the inputs in %s: %s\n", c->dir, strerror(errno));
    return ok ? 0 : -1;
}

int cross_finish(cross_run *c, size_t out_bytes, void *out, int nvectors) {
    char in[4200], res[4200], drv[4200], src[4200], obj[4200], log[4200];
    path_of(c, "log.txt", log, sizeof log);
    path_of(c, "in.bin", in, sizeof in);
    path_of(c, "out.bin", res, sizeof res);
    path_of(c, "driver", drv, sizeof drv);
    path_of(c, "driver.c", src, sizeof src);
    path_of(c, "expr.o", obj, sizeof obj);
    int closed = fclose(c->in);
    c->in = NULL;
    if (closed || nvectors != c->vectors) {
        fprintf(stderr, "tine: cannot write the inputs in %s\n", c->dir);
        return -1;
    }
    int sig;
    const char *inputs[] = {src, obj, NULL};
    if (cross_link(log, inputs, NULL, drv, c->target)) return -1;
    /* the command line: qemu, its CPU (every extension tine's AArch64 targets name), the
       driver, its files and sizes */
    enum { FIXED = 6 };
    char **argv = calloc((size_t)c->nargs + FIXED + 2, sizeof *argv);
    char(*num)[24] = calloc((size_t)c->nargs + 1, sizeof *num);
    int rc = -1;
    if (argv && num) {
        snprintf(num[c->nargs], sizeof num[0], "%zu", out_bytes);
        char *fixed[FIXED] = {CROSS_QEMU, "-cpu", "max", drv, in, res};
        memcpy(argv, fixed, sizeof fixed);
        argv[FIXED] = num[c->nargs];
        for (int i = 0; i < c->nargs; i++) {
            snprintf(num[i], sizeof num[0], "%zu", c->size[i]);
            argv[FIXED + 1 + i] = num[i];
        }
        argv[FIXED + 1 + c->nargs] = NULL;
        rc = cross_spawn(log, argv, &sig);
    } else fprintf(stderr, "tine: out of memory\n");
    free(argv);
    free(num);
    if (rc != 0) {
        if (sig) fprintf(stderr, "tine: the %s code was killed by signal %d under " CROSS_QEMU "\n", c->target, sig);
        else fprintf(stderr, "tine: the %s code failed under " CROSS_QEMU " (exit %d):\n", c->target, rc);
        cross_show_log(log);
        return -1;
    }
    FILE *f = fopen(res, "rb");
    size_t want = out_bytes * (size_t)nvectors;
    size_t got = f ? fread(out, 1, want, f) : 0;
    if (f) fclose(f);
    if (got != want) {
        fprintf(stderr, "tine: the %s code under " CROSS_QEMU " gave %zu bytes of output, not %zu\n", c->target, got,
                want);
        return -1;
    }
    return 0;
}

void cross_close(cross_run *c) {
    if (!c) return;
    if (c->in) fclose(c->in);
    cross_rmtree(c->dir);
    free(c->args);
    free(c->size);
    free(c);
}
