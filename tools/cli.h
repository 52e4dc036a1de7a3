/* cli.h — the tine driver's command line, input files and outputs (tools/cli.c). */
#ifndef TINE_CLI_H
#define TINE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tine.h"

/* A command and the form it takes: compile and run take a kernel FILE or -e EXPR. */
typedef enum {
    CLI_DEMO, CLI_PRINT, CLI_EXPAND, CLI_EVAL, CLI_LIFT, CLI_RULES, CLI_COMPILE_EXPR, CLI_RUN_EXPR,
    CLI_COMPILE_KERNEL, CLI_RUN_KERNEL, CLI_OPS, CLI_BENCH, CLI_BENCH_IR, CLI_BENCH_LIFT, CLI_VERIFY, CLI_REPORT,
    CLI_FORMS
} cli_form;

/* --param NAME=VALUE: the value's text, checked against the parameter's type by
 * cli_param_value once the kernel is known. */
typedef struct {
    const char *name, *value;
} cli_param;

typedef struct {
    cli_form form;
    const char *cmd;
    const char *expr; /* print/expand/eval/lift's EXPR, or -e EXPR */
    const char *file; /* compile/run's kernel FILE */
    int lanes;
    uint64_t seed;
    long nodes;
    int trace, list, quick, bounds, quiet, bench;
    long timeout_ms; /* verify --timeout */
    const char *rules, *isa, *rule; /* verify --rules, --isa, --rule */
    const char *check, *target, *emit, *select, *filter, *peers, *out, *name, *size_text;
    const char *dump_after; /* compile FILE --dump-after STEP|all|help */
    cli_param *params; /* malloc'd, one per --param */
    int nparams;
    int64_t size[4];
    int nsize;
} options;

/* The largest kernel, rule or expression file read (bytes), and the most elements the
 * buffers of one `tine run FILE` may hold together. */
enum { CLI_MAX_FILE = 16 << 20, CLI_MAX_ELEMS = 1 << 28 };

int cli_usage(void);
/* Parses argv into o; 0, or the exit status (2) after a message on stderr. */
int cli_parse(int argc, char **argv, options *o);
void cli_free(options *o);
/* A whole text file, NUL-terminated and malloc'd; NULL after a message on stderr when it
 * cannot be read, is larger than CLI_MAX_FILE, or holds a NUL byte (located). */
char *tine_cli_read_file(const char *path);
/* Writes n bytes to path (stdout when path is NULL); 0, or 1 after a message. */
int cli_write(const char *path, const void *bytes, size_t n);
/* Flushes and closes stdout: rc, or 1 after a message if anything written was lost. */
int cli_finish(int rc);
/* The value of --param name=text for a parameter of type t, as a bit pattern in the low
 * bytes of *out (sign-extended); 0, or 1 after a message when it is out of t's range. */
int cli_param_value(const char *name, tine_type_t t, const char *text, uint64_t *out);

/* The library's error on stderr after prefix (an internal error marks the exit status:
 * cli_internal_error_seen). */
void cli_report(tine_ctx_t *ctx, const char *prefix);
/* Whether cli_report has reported an internal error (tine's bug: exit status 3). */
bool cli_internal_error_seen(void);
/* bench/kernels/NAME.tine of the source tree parsed in ctx (common: with its common
 * schedule, tine_kernel_parse_common); NULL after a message (an unreadable file) or with
 * ctx's error. */
tine_kernel_t *cli_bench_kernel(tine_ctx_t *ctx, const char *name, bool common);
/* Seconds on the monotonic clock (timings). */
double cli_now(void);
/* The 3x3 Sobel of FPIR.md, as integer IR (`tine demo`, `tine bench-lift`). */
extern const char *const CLI_SOBEL;
/* The next of a splitmix64 sequence (state *s). */
uint64_t cli_rand(uint64_t *s);
/* bench_ir.c: `tine bench-ir`, `tine bench-lift`. */
int cli_cmd_bench_ir(const options *o);
int cli_cmd_bench_lift(const options *o);
/* tine verify (tools/verify.c). */
int cli_verify(const options *o);
/* tine report FILE (tools/report.c). */
int cli_cmd_report(const options *o);

#endif
