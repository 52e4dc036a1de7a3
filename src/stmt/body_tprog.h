/* body_tprog.h — the straight-line code of a kernel's innermost loop bodies as target-level
 * programs (src/tprog), optimized by tine_tprog_optimize (src/peephole) and put back into
 * the statement (body_tprog.c).
 *
 * A body qualifies when it is stores, lets and blocks only (no loop, if or allocation
 * inside) and stores at least one vector. Its program's inputs stand for what the body
 * reads: each distinct load is a fresh variable `$.ldN` of its type, and every variable it
 * reads (the loop's variable, parameters, lets kept as lets) is an input as itself. A let
 * of a vector whose loads read no buffer the body stores into is inlined (its value is the
 * same wherever it is computed in the body); other lets stay, read as variables. Each
 * vector store's value is an output, named after its buffer and its place in the body.
 */
#ifndef TINE_STMT_BODY_TPROG_H
#define TINE_STMT_BODY_TPROG_H

#include "../peephole/optimize.h"
#include "stmt.h"

/* One body's program after tine_tprog_optimize; output k is the body's k-th vector store
 * (in the order of the statement) and stands_for[i] is what input i stands for: a load,
 * or the input itself (a variable). */
typedef struct {
    const tine_stmt *loop;
    const tine_tprog *prog;
    tine_expr_t *const *stands_for;
    const tine_peep_stats *stats;
    const char *report; /* tine_tprog_optimize's lines (peephole, schedule) */
} tine_body_prog;

typedef void (*tine_body_prog_fn)(void *user, const tine_body_prog *b);

/* s (selected for target by tine's selection) with each qualifying body's vector stores
 * computing its program's optimized outputs (the loads back in place of their stand-ins;
 * an inlined let no longer read dropped). The peephole's values reach the code; its
 * order cannot (a store's value is an expression, emitted depth first), so the program
 * is scheduled only when `seen` or `listing` looks at it: seen(user, body) for each body,
 * and `listing` gets, per body, its loop's name, the program and the report. NULL with
 * an error (the optimizer's: a rule set that does not terminate is tine's bug). */
tine_stmt *tine_stmt_body_progs(tine_stmt_pool *p, tine_stmt *s, const char *target, tine_body_prog_fn seen,
                                void *user, tine_buf *listing);

#endif
