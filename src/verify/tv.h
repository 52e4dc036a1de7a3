/* tv.h — translation validation of compiled kernels: every vector expression tine's
 * selection (lift + lower) rewrites while a kernel compiles is proven equal, for all
 * inputs, to the expression it came from (one Z3 query each, src/verify/smt.h), assuming
 * the interval facts selection used (the bounds of the expression's variables and loads
 * when it was selected).
 */
#ifndef TINE_TV_H
#define TINE_TV_H

#include <stdio.h>

#include "../internal.h"

enum { TINE_TV_SLOWEST = 10 };

/* One query, for the slowest list. */
typedef struct {
    double seconds;
    int lanes;
    char what[160]; /* file, target, the expression's number and its start */
} tine_tv_query;

/* Counts over one or more tine_verify_kernel calls: each call adds to them (zero the
 * struct before the first). */
typedef struct {
    int kernels;
    int exprs;           /* distinct (before, after) pairs, float ones included */
    int proven;
    int counterexamples;
    int unknown;         /* Z3 gave up (the timeout) */
    int skipped_float;   /* the encoding has no floats */
    int errors;          /* the encoding refused something else */
    int reused;          /* of proven and unknown: the verdict of the same pair at an earlier call (memo) */
    int facts;           /* interval facts assumed that say more than the leaf's type */
    double compile_seconds, solver_seconds;
    tine_tv_query slowest[TINE_TV_SLOWEST]; /* slowest first; seconds 0: unused */
} tine_tv_totals;

/* Verdicts by a pair's text (both sides, their types and the facts), kept across
 * tine_verify_kernel calls with the same timeout: a kernel compiled for the x86 levels
 * mostly selects the same pairs at each (test_tv: 249 distinct of 800), and a query is
 * the same query whatever the target it came from, so each is sent to Z3 once. Proofs
 * and unknowns are kept; a counterexample is always queried again (its report). */
typedef struct tine_tv_memo tine_tv_memo;
tine_tv_memo *tine_tv_memo_new(void);
void tine_tv_memo_free(tine_tv_memo *m);

/* Compiles the kernel `text` (file names it in messages) for target with tine's
 * selection, through the driver the JIT and `tine compile` use (tine_compile_stmt),
 * and proves each distinct vector expression it selected equal to its selection.
 * timeout_ms: per query (0: none). out (if not NULL) gets one line per expression and
 * the kernel's totals. memo (NULL: none) gives and takes the verdicts of pairs seen
 * before. Returns the number of counterexamples (0: none), or -1 with the context's error
 * when the kernel does not compile. */
int tine_verify_kernel(tine_ctx_t *ctx, const char *text, const char *file, const char *target, unsigned timeout_ms,
                       FILE *out, tine_tv_totals *totals, tine_tv_memo *memo);

/* Adds from's counts to to's, and merges the slowest queries. */
void tine_tv_add(tine_tv_totals *to, const tine_tv_totals *from);
/* Prints the totals (every line prefixed with `indent`), and the slowest queries if asked. */
void tine_tv_print_totals(FILE *out, const tine_tv_totals *t, const char *indent, bool slowest);

#endif
