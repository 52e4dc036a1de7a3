/* bounds_check.h — the interval rules of src/bounds/bounds.c checked with Z3.
 *
 * Lowering and lifting rules with predicates such as upper_bounded(e, K) trust the
 * intervals tine_bounds computes, so an interval rule that misses a value makes those
 * rewrites (and proofs about them) unsound. For every op bounds.c has a rule for (every
 * primitive integer op, every FPIR op, in every form its constructor takes: shift counts
 * and casts of every type, mixed-signedness and half-width operands), at every integer
 * type u8..i64 (one lane: the rules are per lane), and for many operand intervals, Z3 is
 * asked for operands inside their intervals whose result leaves the interval computed
 * for the op. Such an input is a hit: printed with its values and counted.
 */
#ifndef TINE_BOUNDS_CHECK_H
#define TINE_BOUNDS_CHECK_H

#include <stdio.h>

#include "../internal.h"

/* The reduced set CI runs (tests/test_bounds_smt.c); 1 is the full set. */
#define TINE_VERIFY_BOUNDS_QUICK 0.01

typedef struct {
    double scale;        /* how many intervals: 1 (or 0) the full set, TINE_VERIFY_BOUNDS_QUICK for CI */
    unsigned timeout_ms; /* per Z3 query (0: 10 s); a timeout counts as unknown, never as passed */
    uint64_t seed;       /* of the random intervals (0: a fixed default) */
    const char *only;    /* only the cases whose name contains this (NULL: all) */
    int max_bits;        /* only the cases whose operands have at most this many bits (0: all) */
    /* A case that has spent this long checks no further tuples; those left are counted
       as skipped, never as passed (0: no limit). Some 32- and 64-bit products take Z3
       seconds per interval. */
    double case_seconds;
    int max_print;       /* hits printed per case (0: 2) */
    /* The whole run stops after this long: the tuples left are counted as skipped, never
       as passed, and each query's limit is cut to the time left (0: no limit). */
    double deadline_seconds;
    /* Only count the tuples the run would check (into the totals' planned), nothing run. */
    bool plan_only;
    /* For the test only: the computed interval made one narrower at the low end (1), the
       high end (2) or both (3) before it is checked, so the checker is seen to fail. */
    int shrink;
} tine_verify_bounds_opts;

typedef struct {
    long cases;       /* (op form, type) cases run */
    long intervals;   /* operand-interval tuples checked with Z3 */
    long hits;        /* results outside the computed interval */
    long unknown;     /* Z3 timeouts or unknowns */
    long no_interval; /* tuples where tine_bounds gave no interval (nothing to check) */
    long skipped;     /* tuples left unchecked by case_seconds or the deadline */
    long planned;     /* tuples the run was to check */
    bool stopped;     /* the deadline stopped the run */
    long cases_with_hits;
    double seconds;
    long op_intervals[TINE_OP_COUNT]; /* checked tuples per op */
    long op_hits[TINE_OP_COUNT];
} tine_verify_bounds_totals;

/* Runs the checks, printing one line per case and totals to out (NULL: silent, hits
 * still counted). t (may be NULL) is filled in. Returns 1 if any hit was found, -1 with
 * the context's error set if a case could not be encoded, 0 otherwise. */
int tine_verify_bounds(tine_ctx_t *ctx, const tine_verify_bounds_opts *o, FILE *out, tine_verify_bounds_totals *t);

#endif
