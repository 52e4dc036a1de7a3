/* live.h — what the schedule files share (private to src/schedule): the DAG with its
 * register edges deduplicated, and both directions of them.
 *
 * The schedulers reason about values in registers, so a CONST operand is no edge and an
 * operand named twice by one instruction is one edge: ops lists a node's distinct LOAD
 * and OP operands, users the distinct nodes that read a value.
 */
#ifndef TINE_SCHEDULE_LIVE_H
#define TINE_SCHEDULE_LIVE_H

#include "schedule.h"

typedef struct {
    int n;
    const uint8_t *kind;
    int *op_start, *ops;    /* distinct register operands, in the order first named */
    int *use_start, *uses;  /* distinct users, in node order */
} tine_sched_graph;

void tine_sched_graph_build(const tine_sched_dag *d, tine_sched_graph *g);
void tine_sched_graph_free(tine_sched_graph *g);

/* Whether node v defines a value held in a register (LOAD or OP). */
static inline bool tine_sched_has_reg(const uint8_t *kind, int v) {
    return kind[v] == TINE_SCHED_LOAD || kind[v] == TINE_SCHED_OP;
}

/* A topological order of d by Kahn's algorithm, ready nodes taken in node order; false
 * (order partly written) when d has a cycle. */
bool tine_sched_kahn(const tine_sched_dag *d, int *order);

/* CONST nodes first, the others after them, each in the order they had: what every
 * scheduler does before its own work (CONST nodes have no operands). Returns how many
 * CONST nodes there are. */
int tine_sched_consts_first(const tine_sched_dag *d, int *order);

#endif
