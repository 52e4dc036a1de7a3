/* cross.h — running an expression's compiled code on an architecture this machine is not:
 * AArch64 code under qemu-aarch64. tine emits the function as an object; a small fixed
 * driver, linked with it by clang-19 against the AArch64 C library, calls it once per
 * input vector that `tine run -e` feeds it and writes the outputs back. */
#ifndef TINE_TOOLS_CROSS_H
#define TINE_TOOLS_CROSS_H

#include <stdbool.h>
#include <stddef.h>

#include "tine.h"

#define CROSS_CC "clang-19"
#define CROSS_QEMU "qemu-aarch64"
#define CROSS_SYSROOT "/usr/aarch64-linux-gnu"

/* ---- the toolchain, for any program run under qemu (tine run -e, tine bench) ---------- */

/* Which of the tools running target's code needs is missing, said into buf; NULL when
 * clang-19, the AArch64 C library and qemu-aarch64 are all installed. */
const char *cross_missing_tool(const char *target, char *buf, size_t n);

/* A fresh directory "$TMPDIR/tine-<what>-XXXXXX" into dir; 0, or -1 after a message. */
int cross_mkdtemp(char *dir, size_t n, const char *what);

/* Removes the files of dir, then dir (NULL or "" is fine). */
void cross_rmtree(const char *dir);

/* Writes n bytes to path; 0, or -1 after a message. */
int cross_write_file(const char *path, const void *data, size_t n);

/* Runs argv with its standard output and error into the file log. The exit status, or -1
 * when it could not start or was killed (*sig: the signal, else 0). */
int cross_spawn(const char *log, char *const *argv, int *sig);

/* Prints the first lines of log on stderr, indented (after a failed step). */
void cross_show_log(const char *log);

/* Links inputs (C files and objects; NULL-terminated) with clang-19 into the static
 * AArch64 program exe (extra: more flags, NULL-terminated, or NULL); what names the code
 * in the message. 0, or -1 after a message and the log. */
int cross_link(const char *log, const char *const *inputs, const char *const *extra, const char *exe,
               const char *what);

/* ---- tine run -e ----------------------------------------------------------------------- */

/* 1 when target's code runs under qemu-aarch64 rather than here (an AArch64 target this
 * machine does not run), else 0 (the host, an x86 target, or an unknown name: the JIT
 * path reports those). */
int cross_wanted(tine_ctx_t *ctx, const char *target);

typedef struct cross_run cross_run;

/* Checks that the cross tools are installed, then compiles e for target into an object in
 * a fresh temporary directory. *args and *nargs receive the function's arguments (owned
 * by the run). NULL after printing why on stderr (a missing tool: a plain message;
 * tine's own errors through cli_report). */
cross_run *cross_open(tine_ctx_t *ctx, const tine_expr_t *e, const char *target, tine_selection_t sel,
                      const tine_expr_t *const **args, int *nargs);

/* Appends one input vector: arg[i] holds size[i] bytes. When call is false the vector is
 * passed over (the code is not called on it; its output reads as zeros). 0, or -1 after
 * printing why. */
int cross_add(cross_run *c, const void *const *arg, const size_t *size, bool call);

/* Links the driver, runs it under qemu-aarch64 on every vector added, and stores
 * out_bytes of output per vector in out (nvectors of them, in the order added). 0, or -1
 * after printing why. */
int cross_finish(cross_run *c, size_t out_bytes, void *out, int nvectors);

/* Removes the temporary directory and frees the run (NULL is fine). */
void cross_close(cross_run *c);

#endif
