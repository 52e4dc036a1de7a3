/* bench.h — what `tine bench` measures (bench.c) and reports (bench_report.c). */
#ifndef TINE_TOOLS_BENCH_H
#define TINE_TOOLS_BENCH_H
#include <stdbool.h>
#include <stddef.h>

#include "tine.h"

/* The implementations measured side by side, in the table's order. tine auto: the same
 * kernel file with its schedule replaced by `schedule auto` (pipeline/autosched.c). The
 * peers (bench/peers): Halide 14, OpenCV, XNNPACK. tine synth (`--rules synthesized`
 * only): tine's selection with the lowering rules `tine synth lower` found instead of the
 * hand rules, reported in a section of its own. */
enum { IMPL_TINE, IMPL_AUTO, IMPL_LLVM, IMPL_HALIDE, IMPL_OPENCV, IMPL_XNNPACK, IMPL_CLANG, IMPL_GCC, IMPL_SYNTH, NIMPL };
/* the implementations the table's columns show (tine synth has a section of its own) */
enum { NTABLE = IMPL_GCC + 1 };
extern const char *const bench_impl_names[NIMPL];

typedef enum {
    MEAS_ABSENT,   /* not built, not selected, or this machine does not run it */
    MEAS_INEXACT,  /* ran, and differed from the reference (so not timed) */
    MEAS_FAILED,   /* could not be bound or returned an error (not timed) */
    MEAS_TIMED     /* bit-exact on every fill pattern (or within a peer's stated difference), then timed */
} meas_state;

typedef struct {
    meas_state state;
    double ms, min_ms, max_ms; /* median and spread of the interleaved runs */
    double compile_ms;         /* negative when not known (the C references, prebuilt libraries) */
    /* a peer whose definition differs from the kernel's (peer.h): what differs, and the
     * largest |peer - reference| over the compared elements and fill patterns; NULL, 0 */
    const char *differs;
    int max_diff;
    unsigned refused; /* the fill patterns (1 << case_pattern) a library peer refused to compute */
} meas;

typedef struct {
    const char *kernel, *target;
    bool user;           /* a user kernel (bench/user): tine's column is its schedule auto; a table of its own */
    meas m[NIMPL];
    int runs;            /* timed runs of each implementation */
    double bytes;        /* inputs read once and the output written once */
    double roof_ms;      /* bytes at this machine's copy bandwidth */
    double parse_ms;     /* tine: parsing and lowering to stages */
    double expand_ms, llvm_cg_ms, lift_ms, tine_cg_ms; /* tine's compile by phase */
} bench_row;

typedef struct {
    double copy_gbs;     /* a large memcpy: bytes read plus bytes written per second */
    double read_gbs;     /* a streaming read */
    char not_run[128];   /* the rows this processor cannot run, comma-separated ("" if none) */
} bench_roof;

/* The table, the summaries, the user kernels' table (rows with user set, after the others)
 * and its summary, tine-bench.csv, tine-bench.svg (and .png); 0, or 1 when a file could
 * not be written (said on stderr). */
int bench_report(const bench_row *rows, int n, const bench_roof *roof, bool quick);

/* `tine bench --target` an AArch64 row: llvm-mca's estimate of each kernel's steady-state
 * loop, LLVM alone beside tine (bench_mca.c); filter as bench's. The exit status. */
int tine_bench_mca(const char *filter, const char *target);

/* One kernel's qemu wall time, per selection (0: LLVM alone, 1: tine): the median ms of the
 * timed runs (MEAS_TIMED), or why it was not timed (MEAS_INEXACT, MEAS_FAILED). */
typedef struct {
    meas_state state[2];
    double ms[2];
} bench_qemu_result;

/* The kernels names[0..n) at the bench size, each selection run under qemu-aarch64 as
 * target's code and checked against its C reference, then timed (runs runs after a
 * warm-up) (bench_qemu.c). 0 with res[0..n) filled (failures said on stderr); -1 when a
 * tool is missing or no directory can be made, why in why (res: MEAS_ABSENT). */
int bench_qemu(const char *target, const char *const *names, int n, int runs, bench_qemu_result *res, char *why,
               size_t nwhy);

#endif
