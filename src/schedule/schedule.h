/* schedule.h — register-pressure scheduling of straight-line code (issue 36).
 *
 * The code is a dependence DAG over plain integer arrays: node i has a kind and a list of
 * operands (other nodes). A schedule is an order of the nodes, a permutation of 0..n-1 in
 * which every node comes after its operands. The schedulers here choose orders that keep
 * few values in registers at once, so that the code they become needs few spills:
 * FFTW's recursive decomposition (Frigo, PLDI'99 §6, genfft's schedule.ml and
 * annotate.ml), a list scheduler that tracks pressure for DAGs of any shape, and
 * FFTW-GEL's local moves that polish either. The module knows nothing of tine's IR: the
 * target-level program and the DFT generator build the arrays and read the order back.
 *
 * Liveness. CONST nodes hold no register (they become memory operands or are
 * rematerialized); they are ignored by liveness and every scheduler puts them first.
 * LOAD nodes have no operands and define a value; OP nodes define a value from their
 * operands; STORE nodes consume operands and define nothing. A value is live from the
 * position of its definition to the position of its last use, both included, so an
 * instruction's operands and its result count together; a value nobody uses counts at its
 * definition alone.
 */
#ifndef TINE_SCHEDULE_H
#define TINE_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>

typedef enum { TINE_SCHED_CONST, TINE_SCHED_LOAD, TINE_SCHED_OP, TINE_SCHED_STORE } tine_sched_kind;

typedef struct {
    int n;                 /* nodes 0..n-1 */
    const uint8_t *kind;   /* tine_sched_kind per node */
    const int *op_start;   /* CSR: node i's operands are ops[op_start[i] .. op_start[i+1]) (n+1 entries) */
    const int *ops;        /* operand node indices; an operand may repeat */
} tine_sched_dag;

/* Whether d is something the schedulers take: kinds known, operands in range, CONST and
 * LOAD nodes without operands, no cycle. The functions below assert it. */
bool tine_sched_dag_ok(const tine_sched_dag *d);

/* Whether order is a permutation of 0..n-1 with every node after its operands. */
bool tine_sched_is_topo(const tine_sched_dag *d, const int *order);
/* The largest number of values live at one position of order. */
int tine_sched_max_live(const tine_sched_dag *d, const int *order);
/* The sum over values of the positions each is live at: a finer measure than the
 * maximum, the last tie-break of tine_sched_run. */
long long tine_sched_lifetime(const tine_sched_dag *d, const int *order);
/* The spill stores plus reloads that Belady's allocation with nregs registers needs on
 * order (asserted topological): an instruction's operands are brought into registers (a
 * reload each that is not there), then its result gets one; a value is evicted when no
 * register is free, the one whose next use is furthest (on a tie, one stored already,
 * then the lower node), with a spill store the first time it is evicted. -1 when some
 * instruction needs more than nregs registers by itself (its distinct operands and its
 * result). Zero exactly when tine_sched_max_live(d, order) <= nregs. */
int tine_sched_spills(const tine_sched_dag *d, const int *order, int nregs);

/* FFTW's scheduler: the DAG cut into a top and a bottom half, each cut into its
 * connected components (parallel blocks), recursively; parallel blocks ordered so that
 * blocks sharing values run one after another. Any DAG; O((n + e) log n) when the cuts
 * halve the longest path, as they do but for loads and stores. */
void tine_sched_fftw(const tine_sched_dag *d, int *order);
/* A greedy list scheduler: of the nodes whose operands are computed, the one that raises
 * the live count least (kills the most values), then the one that reads the most recent
 * value, then the first in a Sethi-Ullman depth-first order. O(e log e). */
void tine_sched_list(const tine_sched_dag *d, int *order);
/* FFTW-GEL's local moves on order, in place, which stays topological: loads moved down,
 * stores moved up, unary instructions whose operand dies with them moved up and the other
 * unary ones down, binary instructions whose operands both die with them moved up. */
void tine_sched_local_moves(const tine_sched_dag *d, int *order);

typedef enum { TINE_SCHED_NONE, TINE_SCHED_FFTW, TINE_SCHED_LIST, TINE_SCHED_AUTO } tine_sched_method;

/* Which candidate order tine_sched_run returned. */
typedef enum {
    TINE_SCHED_FROM_INPUT,       /* in_order itself */
    TINE_SCHED_FROM_INPUT_MOVES, /* the local moves on in_order */
    TINE_SCHED_FROM_FFTW,
    TINE_SCHED_FROM_FFTW_MOVES,
    TINE_SCHED_FROM_LIST,
    TINE_SCHED_FROM_LIST_MOVES,
} tine_sched_from;

typedef struct {
    int live_before, live_after;     /* max live of in_order and of the order returned */
    long long lifetime_before, lifetime_after;
    int spills_before, spills_after; /* with 16 registers, -1 when too few */
    tine_sched_from from;            /* the candidate returned */
    int tried;                       /* how many candidate orders were compared */
    double seconds;
} tine_sched_stats;

/* The name of a candidate ("input", "fftw+moves" ...). */
const char *tine_sched_from_name(tine_sched_from f);

/* Schedules d with method m into order (n entries). NONE keeps in_order; FFTW and LIST
 * run that scheduler, then the local moves; AUTO runs both and the moves alone on
 * in_order. Of the candidate orders (each scheduler's with and without the moves, and
 * in_order), the one with the least max live is returned; ties go to the fewest spills
 * with 16 registers, then the least lifetime, then the first of fftw+moves, fftw,
 * list+moves, list, input+moves, input. So whatever the method, the order returned never
 * has a higher max live than in_order. in_order may be NULL: then the nodes' own order if it is topological, else Kahn's
 * order. Returns the max live of the order returned, or -1 (order untouched) when d is
 * not a DAG the schedulers take (tine_sched_dag_ok) or in_order is not a topological
 * order of it. st may be NULL. */
int tine_sched_run(const tine_sched_dag *d, tine_sched_method m, const int *in_order, int *order,
                   tine_sched_stats *st);

#endif
