/* tprog.h — target-level vector SSA: a straight-line program of one target's instructions,
 * after selection, in the order it is to run.
 *
 * Every value is a node of the IR (hash-consed, so two equal instructions on the same
 * operands are one value: value numbering is the representation's, not a pass's): an
 * instruction of the target's .isa description (an INSN node, its operands the values it
 * reads), a lane move or cast the target does with its shuffles, a constant, or an input
 * (a variable the program's frame binds: the loads). Outputs are named; storing one is an
 * item of the order, so loads, instructions and stores all have a place. The peephole
 * optimizer (src/peephole) rewrites the values, the scheduler (src/schedule) reorders the
 * items, and the emitters (src/codegen: LLVM, C) write them in that order.
 */
#ifndef TINE_TPROG_H
#define TINE_TPROG_H

#include "../internal.h"
#include "../schedule/schedule.h"

typedef struct {
    char *name;
    tine_expr_t *value;
} tine_tprog_out;

/* One step of the program: computing a value (store < 0), or storing output `store`. */
typedef struct {
    tine_expr_t *e;
    int store;
} tine_tprog_item;

typedef struct {
    tine_ctx_t *ctx;
    char *target;
    tine_expr_t **inputs;
    int ninputs, capinputs;
    tine_tprog_out *outs;
    int nouts, capouts;
    tine_tprog_item *order;
    int n, cap;
} tine_tprog;

tine_tprog *tine_tprog_new(tine_ctx_t *ctx, const char *target);
void tine_tprog_free(tine_tprog *p);
/* An input: a variable node the frame binds before it is first read. */
void tine_tprog_input(tine_tprog *p, tine_expr_t *leaf);
/* An output named name (copied) computed by value. */
void tine_tprog_output(tine_tprog *p, const char *name, tine_expr_t *value);

/* A program computing values that are already selected (values[k] its output named
 * names[k], or out<k> where names is NULL): its inputs the values' leaves (nodes without
 * operands that are not constants), in the order they are first reached, and its order
 * the values' operands first (tine_tprog_reorder). For a producer that selects values
 * itself and wants them through the optimizer (src/peephole/optimize.h). */
tine_tprog *tine_tprog_of(tine_ctx_t *ctx, const char *target, int n, const char *const *names,
                          tine_expr_t *const *values);

/* Instruction selection: every output lowered for the target (tine_lower); then the order
 * is rebuilt (tine_tprog_reorder). False with the lowering's error. */
bool tine_tprog_select(tine_tprog *p);
/* The order rebuilt from the outputs: what they need, operands first, each once (dead
 * values dropped); the previous order's relative order of the values still there is kept,
 * new values placed before their first user, and a store at its old place or, where its
 * value now needs old values placed later, right after the last of them. */
void tine_tprog_reorder(tine_tprog *p);
/* Whether every value is computed after its operands and before its readers, each once,
 * and every output stored once after its value. */
bool tine_tprog_check(const tine_tprog *p);

/* The dependence graph of the order, for the scheduler (nodes are the order's items;
 * constants are CONST, inputs LOAD, stores STORE); free with tine_tprog_dag_free. */
typedef struct {
    tine_sched_dag dag;
    uint8_t *kind;
    int *op_start, *ops;
} tine_tprog_dag;
void tine_tprog_dag_make(const tine_tprog *p, tine_tprog_dag *d);
void tine_tprog_dag_free(tine_tprog_dag *d);
/* The order permuted: item k of the new order is old item perm[k]. */
void tine_tprog_permute(tine_tprog *p, const int *perm);

/* What the program holds: instructions of the description (INSN nodes), other computing
 * nodes (lane moves, casts, generic ops), constants, inputs, stores; and the most values
 * live at once in the order (constants not counted). */
typedef struct {
    int insns, generic, consts, inputs, stores, max_live;
} tine_tprog_stats;
tine_tprog_stats tine_tprog_stats_of(const tine_tprog *p);

/* The program as text, one item a line: `%12 = vaddps %3, %7`, `store y0 %12`. */
void tine_tprog_print(const tine_tprog *p, tine_buf *out);

#endif
