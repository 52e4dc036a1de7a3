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
    CLI_COMPILE_KERNEL, CLI_RUN_KERNEL, CLI_OPS, CLI_BENCH, CLI_BENCH_IR, CLI_BENCH_LIFT, CLI_VERIFY, CLI_REPORT, CLI_ISA,
    CLI_SYNTH, CLI_RETARGET, CLI_VECTORIZE, CLI_DFT, CLI_HELP, CLI_VERSION, CLI_FORMS
} cli_form;

/* --param NAME=VALUE: the value's text, checked against the parameter's type by
 * cli_param_value once the kernel is known. */
typedef struct {
    const char *name, *value;
} cli_param;

/* --input-size NAME=WxH..: an input's extents, checked against the kernel by tine run. */
typedef struct {
    const char *name, *text; /* text: the extents as written */
    int64_t extent[4];
    int n;
} cli_input_size;

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
    cli_input_size *input_sizes; /* malloc'd, one per --input-size */
    int ninput_sizes;
    const char *types, *focus, *rules_extra, *op; long time_limit; int from_scratch, general, hand_only; /* synth's; lift --rules-extra */
    const char *help; /* tine help COMMAND, tine COMMAND --help: the command (NULL: all) */
    const char *sub;  /* tine isa SUBCOMMAND */
    const char *intel, *cpuid, *report; /* isa import --intel FILE --cpuid LIST --report FILE */
    const char *from, *to;              /* retarget --from T --to T */
    int show_report, check_run, emit_header, no_widen; /* retarget --report, --check, --emit-header, --no-widen */
    int bench_retarget;                                /* bench --retarget */
    int bench_vectorize;                               /* bench --vectorize */
    int bench_dft;                                     /* bench --dft */
    const char *function;                              /* vectorize --function NAME */
    int reassociate, contract, no_vectorize, no_validate; /* vectorize's flags */
    int vectorized;                                    /* verify --vectorized */
    int dft_n, inverse, no_peephole, no_schedule, no_contract, dft_report, vector_bits; /* dft's */
    const char *type;                                  /* dft --type */
    const char **cflags;                /* retarget: the C compiler's -I/-D/-U/-std= words (malloc'd) */
    int ncflags;
} options;

/* The version tine prints (project(VERSION) of CMakeLists.txt). */
extern const char *const CLI_VERSION_TEXT;

/* The largest kernel, rule or expression file read (bytes), and the most elements the
 * buffers of one `tine run FILE` may hold together. */
enum { CLI_MAX_FILE = 16 << 20, CLI_MAX_ELEMS = 1 << 28 };

/* The usage of every command on stderr; 2 (the exit status of bad usage). */
int cli_usage(void);
/* The name of names[0..n) closest to word, if close enough to be a slip, else NULL. */
const char *cli_closest(const char *word, const char *const *names, int n);
/* tine help [COMMAND], tine --help, tine COMMAND --help: the usage on stdout (a command's:
 * its forms, what it does and its options, a line each); 0. */
int cli_help(const options *o);
/* Parses argv into o; 0, or the exit status (2) after a message on stderr. With 0, o->form
 * CLI_HELP or CLI_VERSION asks for help or the version instead of a command. */
int cli_parse(int argc, char **argv, options *o);
void cli_free(options *o);
/* A whole text file, NUL-terminated and malloc'd; NULL after a message on stderr when it
 * cannot be read, is larger than CLI_MAX_FILE, or holds a NUL byte (located). */
char *tine_cli_read_file(const char *path);
/* Writes n bytes to path (stdout when path is NULL); 0, or 1 after a message. */
int cli_write(const char *path, const void *bytes, size_t n);
/* A new context with --rules hand|synthesized applied (the lowering rules selection
 * uses); NULL after a message when --rules names neither. */
tine_ctx_t *cli_ctx(const options *o);
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
/* bench/kernels/NAME.tine (bench/user/NAME.tine for a user kernel) of the source tree
 * parsed in ctx (common: with its common schedule, tine_kernel_parse_common); NULL after a
 * message (an unreadable file) or with ctx's error. */
tine_kernel_t *cli_bench_kernel(tine_ctx_t *ctx, const char *name, bool common);
/* Seconds on the monotonic clock (timings). */
double cli_now(void);
/* The 3x3 Sobel of FPIR.md, as integer IR (`tine demo`, `tine bench-lift`). */
extern const char *const CLI_SOBEL;
/* The next of a splitmix64 sequence (state *s). */
uint64_t cli_rand(uint64_t *s);
/* The edge values of a scalar type t into v (0, 1, max; min and -1 when signed; false and
 * true), as bit patterns sign-extended to 64 bits: their count (at most 5). */
int cli_edge_values(tine_type_t t, uint64_t *v);
/* A random lane value of type t (state *s): an edge value a quarter of the time, else
 * uniform (floats: small multiples of 2^-12). */
uint64_t cli_random_lane(tine_type_t t, uint64_t *s);
/* One element of `bytes` bytes (little-endian host) from a lane value: lanes wider than
 * 64 bits get the 64-bit value extended by their sign (signed) or zeros. */
void cli_store_elem(void *dst, uint64_t v, tine_type_t t, size_t bytes);
/* The kernel of a file, parsed and checked; NULL after a message. A positional argument
 * of compile and run is always a kernel file, whatever its name: an expression that was
 * meant goes through -e, and the message says so. */
tine_kernel_t *cli_load_kernel(tine_ctx_t *ctx, const char *path);
/* tine run FILE (tools/run_kernel.c). */
int cli_run_kernel(const options *o);
/* bench_ir.c: `tine bench-ir`, `tine bench-lift`. */
int cli_cmd_bench_ir(const options *o);
int cli_cmd_bench_lift(const options *o);
/* tine verify (tools/verify.c). */
int cli_verify(const options *o);
/* tine isa classes (tools/isa_classes.c). */
int cli_isa_classes(const options *o);
/* tine synth lift (tools/synth.c). */
int cli_cmd_synth(const options *o);
/* tine report FILE (tools/report.c). */
int cli_cmd_report(const options *o);
/* tine isa SUBCOMMAND (tools/isa.c; list: tools/isa_list.c). */
int cli_cmd_isa(const options *o);
int cli_isa_list(const options *o);
/* tine retarget FILE (tools/retarget.c). */
int cli_cmd_retarget(const options *o);
int cli_cmd_vectorize(const options *o);
/* tine_vectorize on o's FILE with o's flags and vo's emit/prove, the result to o's -o (verify: the standard output). */
int cli_vectorize_run(const options *o, tine_vectorize_opts *vo);
/* Runs `bash argv...` with TINE set to self (this binary); its exit status. what names it in errors. */
int cli_run_script(const char *what, const char *self, const char *const *argv);
/* Runs the source tree's SCRIPT (a path under it) with bash and args (NULL-terminated), TINE
 * set to this binary; its exit status, or 1 after a message when it cannot be found. */
int cli_run_bench_script(const char *what, const char *script, const char *const *args);
int cli_bench_vectorize(const options *o);
/* tine dft: a DFT codelet (tools/dft.c). */
int cli_cmd_dft(const options *o);
/* tine bench --retarget: the retarget corpus timed against its peers (tests/retarget/bench.sh). */
int cli_bench_retarget(const options *o);
/* tine bench --dft: tine dft's codelets timed against FFTW and KissFFT (tests/dft/bench.sh). */
int cli_bench_dft(const options *o);
/* A bench with x86 rows and an arm-64 one (tools/bench_dft.c): DIR/bench.sh (--target
 * x86-64-avx2 or x86-64-avx512, default both) or DIR/bench_arm.sh (--target arm-64), with
 * --quick, --target and --filter passed on; its exit status, or 2 after a message for
 * another target. */
int cli_run_row_bench(const options *o, const char *what, const char *dir);

#endif
