/* test_bounds_smt.c — the interval rules of src/bounds/bounds.c proven sound with Z3
 * (src/verify/bounds_check.c), on the reduced set.
 *
 * 1. No hits: no operands inside their intervals give a result outside the op's computed
 *    interval, for every op form and type; every op bounds.c has a rule for is covered.
 * 2. The checker fails when it should: with every computed interval made one narrower at
 *    each end, hits are found in most cases and for almost every op.
 * 3. A deadline stops the whole run in time, every planned tuple accounted for.
 *
 * `test_bounds_smt SCALE [ONLY [TIMEOUT_MS [CASE_SECONDS]]]` runs the checker alone at that scale (1: the
 * full set), on the cases whose name contains ONLY ("" for all), printing every case.
 */
#include "internal.h"
#include "verify/bounds_check.h"

#include "testutil.h"

static const tine_op_t PRIM[] = {TINE_OP_ADD, TINE_OP_SUB, TINE_OP_MUL, TINE_OP_DIV,    TINE_OP_MOD,   TINE_OP_MIN,
                                 TINE_OP_MAX, TINE_OP_AND, TINE_OP_OR,  TINE_OP_XOR,    TINE_OP_SHL,   TINE_OP_SHR,
                                 TINE_OP_NEG, TINE_OP_NOT, TINE_OP_EQ,  TINE_OP_NE,     TINE_OP_LT,    TINE_OP_LE,
                                 TINE_OP_GT,  TINE_OP_GE,  TINE_OP_SELECT, TINE_OP_CAST, TINE_OP_REINTERPRET};
#define NPRIM (int)(sizeof PRIM / sizeof PRIM[0])

static tine_op_t op_at(int i) { return i < NPRIM ? PRIM[i] : (tine_op_t)(TINE_FPIR_FIRST + i - NPRIM); }
static int nops_all(void) { return NPRIM + (TINE_OP_COUNT - TINE_FPIR_FIRST); }

static void part_sound(tine_ctx_t *C) {
    /* short limits: the 32- and 64-bit products Z3 cannot settle in them stay unknown or
       skipped (reported), and everything else is decided */
    tine_verify_bounds_opts o = {.scale = TINE_VERIFY_BOUNDS_QUICK, .timeout_ms = 500, .case_seconds = 0.5};
    tine_verify_bounds_totals t;
    int rc = tine_verify_bounds(C, &o, stdout, &t);
    check(rc == 0, "tine_verify_bounds returned %d (%s)", rc, rc < 0 ? tine_error(C) : "hits");
    check(t.hits == 0, "%ld intervals miss results (in %ld cases)", t.hits, t.cases_with_hits);
    /* how many stay undecided depends on the machine's load: reported, not failed */
    printf("  undecided: %ld unknown, %ld skipped (time limits)\n", t.unknown, t.skipped);
    check(t.cases >= 8 * 60, "only %ld cases ran", t.cases);
    for (int i = 0; i < nops_all(); i++)
        check(t.op_intervals[op_at(i)] > 0, "%s: no interval checked", tine_op_name(op_at(i)));
    printf("part 1: %ld cases, %ld intervals, no hits (%.1f s)\n", t.cases, t.intervals, t.seconds);
}

static void part_can_fail(tine_ctx_t *C) {
    tine_verify_bounds_opts o = {.scale = TINE_VERIFY_BOUNDS_QUICK / 2, .shrink = 3, .max_bits = 16, .timeout_ms = 500};
    tine_verify_bounds_totals t;
    int rc = tine_verify_bounds(C, &o, NULL, &t);
    check(rc == 1, "with shrunk intervals the checker returned %d, not 1", rc);
    check(t.cases_with_hits * 10 >= t.cases * 9, "with shrunk intervals only %ld of %ld cases have hits",
          t.cases_with_hits, t.cases);
    int ops_hit = 0;
    for (int i = 0; i < nops_all(); i++) {
        ops_hit += t.op_hits[op_at(i)] > 0;
        if (!t.op_hits[op_at(i)]) printf("  no hit with shrunk intervals: %s\n", tine_op_name(op_at(i)));
    }
    check(ops_hit * 10 >= nops_all() * 9, "with shrunk intervals only %d of %d ops have hits", ops_hit, nops_all());
    printf("part 2: shrunk intervals: hits in %ld of %ld cases, %d of %d ops (%.1f s)\n", t.cases_with_hits, t.cases,
           ops_hit, nops_all(), t.seconds);
}

/* 3. A deadline bounds the whole run (`tine verify --bounds` derives one from the query
 * timeout): with queries of 1 ms the quick set once took over a minute; given 1 s, the run
 * stops within it (and one query), every tuple planned checked, without an interval, or
 * counted as skipped. */
static void part_deadline(tine_ctx_t *C) {
    tine_verify_bounds_opts plan = {.scale = TINE_VERIFY_BOUNDS_QUICK, .timeout_ms = 1, .plan_only = true};
    tine_verify_bounds_totals p = {0}, t = {0};
    check(tine_verify_bounds(C, &plan, NULL, &p) == 0 && p.planned > 1000 && p.intervals == 0,
          "planning: %ld tuples planned, %ld checked", p.planned, p.intervals);
    tine_verify_bounds_opts o = {.scale = TINE_VERIFY_BOUNDS_QUICK, .timeout_ms = 1, .deadline_seconds = 1};
    double t0 = now();
    int rc = tine_verify_bounds(C, &o, NULL, &t);
    double dt = now() - t0;
    check(rc == 0 && t.stopped && t.skipped > 0, "the deadline did not stop the run (rc %d, %ld skipped)", rc, t.skipped);
    check(dt < 5, "a run with a deadline of 1 s took %.1f s", dt);
    check(t.intervals + t.no_interval + t.skipped == p.planned && t.cases == p.cases,
          "%ld checked + %ld without an interval + %ld skipped != %ld planned (cases %ld, %ld planned)", t.intervals,
          t.no_interval, t.skipped, p.planned, t.cases, p.cases);
    printf("part 3: a deadline of 1 s: %ld of %ld tuples checked, the run %.1f s\n", t.intervals, p.planned, dt);
}

int main(int argc, char **argv) {
    tine_ctx_t *C = tine_ctx_new();
    if (argc >= 2) {
        tine_verify_bounds_opts o = {.scale = atof(argv[1]), .only = argc >= 3 && argv[2][0] ? argv[2] : NULL,
                                     .timeout_ms = argc >= 4 ? (unsigned)atoi(argv[3]) : 0,
                                     .case_seconds = argc >= 5 ? atof(argv[4]) : 0};
        int rc = tine_verify_bounds(C, &o, stdout, NULL);
        if (rc < 0) printf("error: %s\n", tine_error(C));
        tine_ctx_free(C);
        return rc != 0;
    }
    double t0 = now();
    /* the sanitizer build (TINE_BOUNDS_SMT_NO_SOUND, ctest sets it) leaves part 1 to the
     * normal build: its time is Z3's, and parts 2 and 3 run the same checker code */
    if (!getenv("TINE_BOUNDS_SMT_NO_SOUND")) part_sound(C);
    part_can_fail(C);
    part_deadline(C);
    printf("test_bounds_smt: %lld checks passed, %lld failed (%.1f s)\n", g_pass, g_fail, now() - t0);
    tine_ctx_free(C);
    return g_fail != 0;
}
