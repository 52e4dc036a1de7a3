#define _POSIX_C_SOURCE 200809L
/* bench_dft.c — `tine bench --dft`: tine dft's codelets against FFTW 3.3.10 and KissFFT
 * (issue 36's benchmark). The bench script does the work (tests/dft/bench.sh: each size and
 * type built by tine dft with its ablations, linked into one driver with FFTW and KissFFT,
 * checked against a long-double DFT, timed interleaved; tests/dft/bench_arm.sh for arm-64,
 * by llvm-mca beside FFTW's Neon codelets): this runs it with this binary as the tine it
 * times. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

int cli_run_row_bench(const options *o, const char *what, const char *dir) {
    bool arm = o->target && !strcmp(o->target, "arm-64");
    if (o->target && !arm && strcmp(o->target, "x86-64-avx2") && strcmp(o->target, "x86-64-avx512") &&
        strcmp(o->target, "host")) {
        fprintf(stderr, "%s: times x86-64-avx2, x86-64-avx512 (both by default, those this CPU runs) or arm-64 (by "
                        "llvm-mca), not '%s'\n", what, o->target);
        return 2;
    }
    char script[256];
    snprintf(script, sizeof script, "%s/%s", dir, arm ? "bench_arm.sh" : "bench.sh");
    const char *args[8];
    int k = 0;
    if (o->quick) args[k++] = "--quick";
    if (o->target && !arm && strcmp(o->target, "host")) args[k++] = "--target", args[k++] = o->target;
    if (o->filter) args[k++] = "--filter", args[k++] = o->filter;
    args[k] = NULL;
    return cli_run_bench_script(what, script, args);
}

int cli_bench_dft(const options *o) { return cli_run_row_bench(o, "tine bench --dft", "tests/dft"); }
