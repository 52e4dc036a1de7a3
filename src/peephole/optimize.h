/* optimize.h — what every producer of a target-level program runs after selection: the
 * peephole optimizer, then the schedule with the fewest spills (src/peephole/optimize.c).
 * tine dft, tine vectorize, tine retarget and kernels' loop bodies share it. */
#ifndef TINE_PEEPHOLE_OPTIMIZE_H
#define TINE_PEEPHOLE_OPTIMIZE_H

#include "peephole.h"

typedef struct {
    bool no_peephole, no_schedule;
    bool contract; /* the program allows a * b + c to round once */
    int nregs;     /* the scheduler's register budget; 0: tine_tprog_nregs of the target */
} tine_tprog_opt;

/* The vector registers of a target: 32 for AVX-512 and AArch64, else 16. */
int tine_tprog_nregs(tine_ctx_t *ctx, const char *target);

/* One line of a report: what the program holds after `step` and how long it took. */
void tine_tprog_report_line(tine_buf *r, const char *step, const tine_tprog *p, double ms);

/* Peephole (tine_peephole) and schedule (the order with the fewest spills at nregs
 * registers among FFTW's decomposition, the list scheduler and the current order, each with
 * and without the local moves), each unless switched off; a line per step (and the rules'
 * and the spills' counts) appended to report when it is not NULL. p must be selected.
 * False with an error. */
bool tine_tprog_optimize(tine_tprog *p, const tine_tprog_opt *o, tine_peep_stats *st, tine_buf *report);

#endif
