/* bench_mca.c — `tine bench --target arm-64` (any AArch64 row): speed evidence without
 * Arm hardware, from llvm-mca's model of the steady-state loop.
 *
 * (Reading the assembly's loops and running llvm-mca: asm_loops.c.)
 *
 * For each benchmark kernel and each selection (LLVM alone, tine), the kernel's AArch64
 * assembly comes from the library (tine_kernel_emit, verbose: LLVM prints each block's
 * IR name and loop nesting as comments). In it:
 *
 * The loop. Codegen names a loop's blocks after the loop ("out.x.vec.body"; the parts of a
 * partitioned loop are "out.x.pro", "out.x" and "out.x.epi"; a loop without a name, such
 * as the lanes of a reduction or the rows of an unrolled tile, is "loop.body"), and LLVM
 * prints the nesting ("=>This Inner Loop Header", "in Loop: Header=BB0_5", "Parent Loop
 * BB0_3") and keeps the names, with suffixes of its own (".us", ".i", numbers). The
 * candidates are the innermost machine loops that have a block of a vectorized loop
 * (".vec.") or of an unnamed one ("loop."), have vector instructions, and none of whose
 * blocks or enclosing loops is a prologue or epilogue (".pro.", ".epi."): the steady
 * state, without the scalar loops over a named dimension (tails and edges; LLVM's own
 * vectorizer may have given them vector instructions). When a kernel has none, every
 * innermost loop is a candidate. The loop measured is the candidate with the most vector
 * instructions on whole 128-bit registers, then with the most vector instructions (ties:
 * the first; a loop of 64-bit ones is scalar code LLVM vectorized, such as the remaining
 * terms of a reduction): the dominant loop of the kernel, not a sum over its
 * stages, whose relative trip counts are not in the assembly (in these kernels one
 * stage's loop does most of the vector work). tine's loop is the candidate of the same
 * name as LLVM alone's when there is one (the same loop of the same schedule), else the
 * one the same rule chooses.
 *
 * The estimate. The loop's instructions (labels, directives and comments dropped, the
 * blocks in assembly order) go to llvm-mca-19 -mtriple=aarch64 -mcpu=neoverse-n1 and
 * -mcpu=apple-m1 with -iterations=100; cycles per iteration are "Total Cycles" / 100,
 * which counts loop-carried dependencies (the Block RThroughput would not). An output
 * vector is 16 bytes stored: cycles and instructions per iteration are divided by the
 * bytes the loop's stores write per iteration / 16 (stores to the stack, spills, do not
 * count, nor do those LLVM's comments call spills, which may address the stack through another
 * register; stores to a stage's scratch buffer do: such a loop's output is that stage's). A loop that stores nothing (a
 * reduction's vector loop) is reported per iteration, marked '*'.
 *
 * A kernel with functions or directives of its own for the target's instruction set (`on
 * arm`): both selections compile those, and LLVM alone is also measured on the kernel's
 * every-target definitions; on each CPU its figure is the fewer cycles of the two when
 * both loops are counted the same way (the strongest form LLVM gets), marked "[+]" where
 * the every-target one won. A definition that only slows LLVM alone raises no ratio.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/harness.h"
#include "asm_loops.h"
#include "bench.h"
#include "cli.h"
#include "tine.h"


/* ---- the command ----------------------------------------------------------------------- */

enum { SEL_LLVM, SEL_TINE };
static const char *const CPUS[2] = {"neoverse-n1", "apple-m1"};

typedef struct {
    asm_text a;
    asm_loop loops[256];
    int nloops, steady, pick;
    double cycles[2], per; /* per: iterations per output vector (1 / (stored / 16)) */
} sel_result;

/* Mnemonics in t's loop and not in l's, space-separated, into out. */
static void mnemonic_diff(const sel_result *t, const sel_result *l, char *out, size_t n) {
    out[0] = 0;
    const asm_loop *lt = &t->loops[t->pick], *ll = &l->loops[l->pick];
    for (int j = 0; j < lt->nblocks; j++) {
        const asm_block *b = &t->a.b[lt->blocks[j]];
        for (int k = b->first; k < b->first + b->count; k++) {
            char m[32];
            snprintf(m, sizeof m, "%.*s", (int)strcspn(t->a.ins[k], " "), t->a.ins[k]);
            bool seen = false;
            for (int i = 0; i < ll->nblocks && !seen; i++) {
                const asm_block *c = &l->a.b[ll->blocks[i]];
                for (int q = c->first; q < c->first + c->count && !seen; q++)
                    seen = strcspn(l->a.ins[q], " ") == strlen(m) && !strncmp(l->a.ins[q], m, strlen(m));
            }
            char key[40];
            snprintf(key, sizeof key, " %s ", m);
            char padded[1024];
            snprintf(padded, sizeof padded, " %s ", out);
            if (!seen && !strstr(padded, key) && strlen(out) + strlen(m) + 2 < n)
                snprintf(out + strlen(out), n - strlen(out), "%s%s", out[0] ? " " : "", m);
        }
    }
}

/* k's loop at selection s into r (the loop named same_name when there is one); false after
 * a message. */
static bool measure_one(tine_kernel_t *k, const char *kernel, const char *target, int s, sel_result *r,
                        const char *same_name, const char *who) {
    size_t size = 0;
    char *bytes = tine_kernel_emit(k, target, s == SEL_TINE ? TINE_SELECT_TINE : TINE_SELECT_LLVM, kernel, "asm", &size);
    if (!bytes) return false;
    char *asm_text_ = malloc(size + 1);
    if (!asm_text_) abort();
    memcpy(asm_text_, bytes, size);
    asm_text_[size] = 0;
    free(bytes);
    asm_parse(asm_text_, ASM_ARM, &r->a);
    free(asm_text_);
    r->nloops = asm_find_loops(&r->a, r->loops, 256, &r->steady);
    r->pick = asm_pick_loop(r->loops, r->nloops, r->steady, same_name);
    if (r->pick < 0) {
        fprintf(stderr, "tine: bench: %s (%s) has no loop\n", kernel, who);
        return false;
    }
    const asm_loop *l = &r->loops[r->pick];
    r->per = l->stored >= 16 ? 16.0 / l->stored : 1;
    char what[128];
    snprintf(what, sizeof what, "bench: %s (%s)", kernel, who);
    for (int c = 0; c < 2; c++)
        if ((r->cycles[c] = asm_mca_cycles(&r->a, l, CPUS[c], what)) < 0) return false;
    return true;
}

/* One kernel at both selections into r[2], and, for a kernel with functions or directives of
 * its own for target's instruction set (`on arm`), LLVM alone on its every-target ones into
 * *common (common->pick -1 otherwise); false after a message. */
static bool measure(const char *kernel, const char *target, sel_result r[2], sel_result *common) {
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = cli_bench_kernel(ctx, kernel, false);
    bool ok = k != NULL;
    common->pick = -1;
    for (int s = 0; s < 2 && ok; s++)
        ok = measure_one(k, kernel, target, s, &r[s], s == SEL_TINE ? r[0].loops[r[0].pick].name : NULL,
                         s ? "tine" : "LLVM alone");
    if (ok && tine_kernel_has_own(k, target)) {
        tine_kernel_t *kc = cli_bench_kernel(ctx, kernel, true);
        ok = kc && measure_one(kc, kernel, target, SEL_LLVM, common, NULL, "LLVM alone, every-target kernel");
        tine_kernel_free(kc);
    }
    if (!ok && tine_error(ctx) && tine_error(ctx)[0]) fprintf(stderr, "tine: bench: %s: %s\n", kernel, tine_error(ctx));
    tine_kernel_free(k);
    tine_ctx_free(ctx);
    return ok;
}

enum { QEMU_RUNS = 5 };

/* A qemu column's cell: the median ms, or why there is none. */
static void qemu_cell(const bench_qemu_result *q, int s, char *out, size_t n) {
    if (q->state[s] == MEAS_TIMED) snprintf(out, n, "%.1f", q->ms[s]);
    else snprintf(out, n, "%s", q->state[s] == MEAS_INEXACT ? "differs" : q->state[s] == MEAS_FAILED ? "failed" : "-");
}

int tine_bench_mca(const char *filter, const char *target) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", asm_mca_path());
    if (system(cmd) != 0) {
        fprintf(stderr, "tine: bench --target %s estimates with llvm-mca, and '%s' does not run "
                        "(scripts/setup.sh installs llvm-19; TINE_LLVM_MCA names another)\n", target, asm_mca_path());
        return 1;
    }
    int kernels = 0;
    for (const bench_entry *be = bench_entries(); be->name; be++) kernels += !filter || strstr(be->name, filter);
    if (!kernels) {
        fprintf(stderr, "tine: no benchmark kernel matches --filter '%s'\n", filter);
        return 2;
    }
    /* the qemu columns first: one AArch64 program for every kernel of the table */
    const char **names = calloc((size_t)kernels, sizeof *names);
    bench_qemu_result *q = calloc((size_t)kernels, sizeof *q);
    if (!names || !q) abort();
    int nk = 0;
    for (const bench_entry *be = bench_entries(); be->name; be++)
        if (!filter || strstr(be->name, filter)) names[nk++] = be->name;
    char why[512] = "";
    bool qemu = bench_qemu(target, names, nk, QEMU_RUNS, q, why, sizeof why) == 0;
    printf("tine bench --target %s: llvm-mca-19 estimates of each kernel's steady-state loop\n"
           "(cycles and instructions per output vector = 16 bytes stored; '*' a loop that stores nothing: per "
           "iteration; ratio = LLVM alone / tine, above 1 tine is faster)\n"
           "qemu: the whole kernel's wall time at the bench size under qemu-aarch64, median ms of %d runs after a "
           "bit-exact check against the C reference: an emulation time, qemu models no CPU (a sanity column)\n",
           target, QEMU_RUNS);
    if (!qemu) printf("qemu: - (not run: %s)\n", why);
    printf("\n%-16s %8s %8s %6s %8s %8s %6s %8s %8s %9s %9s  %s\n", "kernel", "n1 LLVM", "n1 tine", "ratio", "m1 LLVM",
           "m1 tine", "ratio", "ins LLVM", "ins tine", "qemu LLVM", "qemu tine", "loop (LLVM alone; tine's when another)");
    double logsum[2] = {0, 0};
    int n = 0, worse = 0, ncommon = 0;
    char worse_list[1024] = ""; /* "name (n1 0.998, m1 1.002)" for each */
    char diffs[32][1024];
    for (const bench_entry *be = bench_entries(); be->name; be++) {
        if (filter && !strstr(be->name, filter)) continue;
        fprintf(stderr, "\rbench: %-16s", be->name);
        sel_result *r = calloc(3, sizeof *r); /* LLVM alone, tine, LLVM alone on the every-target kernel */
        if (!r) abort();
        r[0].pick = -1;
        if (!measure(be->name, target, r, &r[2])) {
            for (int s = 0; s < 3; s++) asm_free(&r[s].a);
            free(r);
            free(names);
            free(q);
            return 1;
        }
        fprintf(stderr, "\r%30s\r", "");
        /* LLVM alone is the stronger of its two forms where the kernel has its own
           definitions here: the same loops as tine's, or the every-target kernel's, when
           that loop is counted the same way (both per output vector, or both per iteration) */
        double llvm[2], ratio[2];
        bool from_common = false;
        const asm_loop *lc = r[2].pick >= 0 ? &r[2].loops[r[2].pick] : NULL;
        for (int c = 0; c < 2; c++) {
            llvm[c] = r[0].cycles[c] * r[0].per;
            if (lc && (lc->stored < 16) == (r[0].loops[r[0].pick].stored < 16) && r[2].cycles[c] * r[2].per < llvm[c]) {
                llvm[c] = r[2].cycles[c] * r[2].per;
                from_common = true;
            }
            ratio[c] = llvm[c] / (r[1].cycles[c] * r[1].per);
            logsum[c] += log(ratio[c]);
        }
        if (ratio[0] < 1 || ratio[1] < 1) {
            size_t used = strlen(worse_list);
            snprintf(worse_list + used, sizeof worse_list - used, "%s%s (n1 %.3f, m1 %.3f)", worse ? ", " : ": ",
                     be->name, ratio[0], ratio[1]);
            worse++;
        }
        const asm_loop *ll = &r[0].loops[r[0].pick], *lt = &r[1].loops[r[1].pick];
        char lb[160] = "";
        if (strcmp(ll->name, lt->name))
            snprintf(lb, sizeof lb, "; %s %s%s", lt->head, lt->name, lt->stored < 16 ? "*" : "");
        if (from_common) {
            size_t used = strlen(lb);
            snprintf(lb + used, sizeof lb - used, " [+]");
            ncommon++;
        }
        char qcol[2][16];
        for (int s = 0; s < 2; s++) qemu_cell(&q[n], s, qcol[s], sizeof qcol[s]);
        printf("%-16s %8.2f %8.2f %6.2f %8.2f %8.2f %6.2f %8.1f %8.1f %9s %9s  %s %s%s%s\n", be->name, llvm[0],
               r[1].cycles[0] * r[1].per, ratio[0], llvm[1], r[1].cycles[1] * r[1].per, ratio[1], ll->ins * r[0].per,
               lt->ins * r[1].per, qcol[0], qcol[1], ll->head, ll->name, ll->stored < 16 ? "*" : "", lb);
        if (n < 32) {
            mnemonic_diff(&r[1], &r[0], diffs[n], sizeof diffs[n]);
        }
        n++;
        for (int s = 0; s < 3; s++) asm_free(&r[s].a);
        free(r);
    }
    printf("%-16s %8s %8s %6.2f %8s %8s %6.2f\n", "geomean", "", "", exp(logsum[0] / n), "", "", exp(logsum[1] / n));
    printf("%d of %d kernels estimated slower with tine than with LLVM alone on a CPU%s\n", worse, n, worse_list);
    if (ncommon)
        printf("[+] LLVM alone's cycles on a CPU are those of the kernel's every-target definitions, faster there "
               "than its own for %s (`on`, docs/KERNELS.md); its instructions are those of the same loops as tine's\n",
               target);
    printf("\ninstructions in tine's loop and not in LLVM alone's:\n");
    for (int i = 0; i < n && i < 32; i++) printf("%-16s %s\n", names[i], diffs[i][0] ? diffs[i] : "(none)");
    free(names);
    free(q);
    return 0;
}
