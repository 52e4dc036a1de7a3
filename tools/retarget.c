#define _POSIX_C_SOURCE 200809L
/* retarget.c — `tine retarget FILE --from T --to T`: intrinsic C rewritten for another
 * instruction set (the library's tine_retarget, src/retarget). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "retarget_check.h"
#include "tine.h"

int cli_cmd_retarget(const options *o) {
    if (!o->from || !o->to) {
        fprintf(stderr, "tine retarget: needs --from T and --to T (arm-64, x86-64-sse2, x86-64-sse41, x86-64-avx2, "
                        "x86-64-avx512)\n");
        return 2;
    }
    if (!tine_target_isa(o->from) || !tine_target_isa(o->to)) {
        fprintf(stderr, "tine retarget: unknown target '%s'\n", tine_target_isa(o->from) ? o->to : o->from);
        return 2;
    }
    if (o->emit_header) {
        if (o->file) {
            fprintf(stderr, "tine retarget --emit-header takes no FILE\n");
            return 2;
        }
        tine_ctx_t *ctx = tine_ctx_new();
        int emitted = 0, skipped = 0;
        char *h = tine_retarget_header(ctx, o->from, o->to, &emitted, &skipped);
        int rc = 1;
        if (!h) fprintf(stderr, "%s\n", tine_error(ctx));
        else {
            rc = cli_write(o->out, h, strlen(h));
            fprintf(stderr, "tine retarget --emit-header: %d intrinsics written, %d not\n", emitted, skipped);
        }
        free(h);
        tine_ctx_free(ctx);
        return rc;
    }
    char *text = tine_cli_read_file(o->file);
    if (!text) return 1;
    tine_ctx_t *ctx = tine_ctx_new();
    tine_retarget_opts ro = {.from = o->from, .to = o->to, .cflags = o->cflags, .ncflags = o->ncflags,
                             .no_widen = o->no_widen};
    char *report = NULL, *kept = NULL;
    ro.kept = &kept;
    char *out = tine_retarget(ctx, o->file, text, &ro, o->show_report ? &report : NULL);
    int rc = 0;
    if (!out) {
        fprintf(stderr, "%s\n", tine_error(ctx));
        rc = 1;
    } else {
        if (kept) fputs(kept, stderr); /* functions kept as written, and why */
        rc = cli_write(o->out, out, strlen(out));
        if (!rc && report) fputs(report, stderr);
        if (!rc && o->check_run) rc = retarget_check(o, text, out);
    }
    free(out);
    free(report);
    free(kept);
    free(text);
    tine_ctx_free(ctx);
    return rc;
}

#ifndef TINE_SOURCE_DIR
#define TINE_SOURCE_DIR "."
#endif

/* The corpus's bench script does the work (building each way with clang and gcc, checking
 * them against the reference, timing them interleaved): this runs it with this binary as
 * the tine it times, and the columns a user of `tine bench` expects (the 128-bit column
 * too, so the table shows what widening gains). */
int cli_bench_retarget(const options *o) {
    bool arm = o->target && !strncmp(o->target, "arm-64", 6); /* x86 code retargeted to Neon: llvm-mca */
    const char *args[8];
    int k = 0;
    if (!arm) args[k++] = "--rt128";
    if (o->quick && !arm) args[k++] = "--quick";
    if (o->target && !strcmp(o->target, "x86-64-sse41")) args[k++] = "--only-sse41";
    else if (o->target && !arm && strcmp(o->target, "x86-64-avx2") && strcmp(o->target, "host")) {
        fprintf(stderr, "tine bench --retarget: times x86-64-avx2 (the default), x86-64-sse41 or arm-64 (x86 code "
                        "retargeted to Neon, by llvm-mca), not '%s'\n", o->target);
        return 2;
    }
    if (o->filter) args[k++] = o->filter;
    args[k] = NULL;
    return cli_run_bench_script("tine bench --retarget", arm ? "tests/retarget/bench_arm.sh" : "tests/retarget/bench.sh",
                                args);
}

/* Runs the source tree's bench script with bash and args, TINE set to this binary (the
 * tine it times). Its exit status, or 1 after a message when the script or this binary
 * cannot be found. */
int cli_run_bench_script(const char *what, const char *script, const char *const *args) {
    char path[4096], self[4096];
    snprintf(path, sizeof path, "%s/%s", TINE_SOURCE_DIR, script);
    if (access(path, R_OK)) {
        fprintf(stderr, "%s: no %s (the bench is in the source tree)\n", what, path);
        return 1;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "%s: cannot find this binary (/proc/self/exe)\n", what);
        return 1;
    }
    self[n] = 0;
    const char *argv[20];
    int k = 0;
    argv[k++] = "bash";
    argv[k++] = path;
    for (int i = 0; args[i] && k < 19; i++) argv[k++] = args[i];
    argv[k] = NULL;
    return cli_run_script(what, self, argv);
}

/* Runs a bench script: bash argv..., with TINE set to this binary (self). Its exit status. */
int cli_run_script(const char *what, const char *self, const char *const *argv) {
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", what, strerror(errno));
        return 1;
    }
    if (pid == 0) {
        setenv("TINE", self, 1);
        execvp("bash", (char *const *)argv);
        fprintf(stderr, "%s: bash: %s\n", what, strerror(errno));
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
