/* cross.h — running an expression's compiled code on an architecture this machine is not:
 * AArch64 code under qemu-aarch64. tine emits the function as an object; a small fixed
 * driver, linked with it by clang-19 against the AArch64 C library, calls it once per
 * input vector that `tine run -e` feeds it and writes the outputs back. */
#ifndef TINE_TOOLS_CROSS_H
#define TINE_TOOLS_CROSS_H

#include <stdbool.h>
#include <stddef.h>

#include "tine.h"

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
