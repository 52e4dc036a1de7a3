/* passes.h — building a kernel's statement (its plan and each stage's loop nest) and the
 * passes that rewrite it, in the order the compile driver (src/driver/compile.c,
 * tine_compile_kernel) runs them.
 *
 * A stage's nest (build.c) loops over its buffer's region, whose geometry is the scalar
 * variables $S$min0, $S$extent0, $S$stride1 ... of the stage's buffer (the kernel's scalar
 * table says what each is; the plan, plan.c, binds them). Its free variables are
 * kernel scalars (parameters, geometry); the buffers it reads are the kernel's inputs and
 * the buffers of earlier stages, by name; it stores into its own buffer (the stage's
 * name) and into scratch it allocates itself. The first coordinate's loop is vectorized:
 *
 *   for S.y: $.c1 in [$S$min1, $S$min1 + $S$extent1)
 *     if ($S$extent0 >= L)
 *       for.vectorized<L> S.x: $.c0 in [$S$min0, $S$min0 + $S$extent0 / L * L)
 *         (loop reductions, then) store S[ramp($.c0 - $S$min0, 1, L) + x(($.c1 - $S$min1) * $S$stride1)] = body
 *       if ($S$extent0 % L != 0)
 *         let $.c0 = $S$min0 + $S$extent0 - L      -- the last vector, shifted back to end at the edge
 *           (the same store)
 *     else
 *       for S.x: $.c0 in [$S$min0, $S$min0 + $S$extent0)
 *         (loop reductions at one lane, then) store S[...] = body1
 *
 * With `parallel S.y` the outermost loop of the last coordinate (here S.y; the loop over
 * row groups or tile rows when those are unrolled or tiled) is TINE_LOOP_PARALLEL; a
 * one-dimensional stage gets a parallel loop over blocks of its first coordinate,
 * each block a run as above.
 *
 * A loop reduction (sum(k in 0..K) ...) is an accumulator in scratch of the body's lanes:
 *
 *   allocate $.a0: T[L]
 *     store $.a0[ramp(0, 1, L)] = init
 *     for $.r0 in [lo, lo + max(hi - lo, 0))
 *       (nested reductions)
 *       let $.acc0 = $.a0[ramp(0, 1, L)]
 *         store $.a0[ramp(0, 1, L)] = update
 *     let $.red0 = $.a0[ramp(0, 1, L)]
 *       ... the store of the body, which reads $.red0
 *     free $.a0
 */
#ifndef TINE_PASSES_H
#define TINE_PASSES_H

#include "stmt.h"

/* build.c: the loop nest of stage sn as the schedule describes it, before any pass (the
 * stages computed at its loops, compute_at, inside it; build_nest.c's note). The steps
 * of a stage's build are in build.c's note; their builder in build.h. */
tine_stmt *tine_stmt_build_stage(tine_stmt_pool *p, const tine_kernel_t *k, int sn);

/* partition.c: loops split into prologue, steady state and epilogue so that in the steady
 * state the boundary conditions (the clamps edge() makes, the comparisons constant()
 * makes) are no-ops and removed. */
tine_stmt *tine_stmt_partition(tine_stmt_pool *p, const tine_kernel_t *k, tine_stmt *s);

/* simplify.c: index and loop-bound arithmetic in linear form, constants folded. */
tine_expr_t *tine_simplify_expr(tine_ctx_t *ctx, tine_expr_t *e);
tine_stmt *tine_stmt_simplify(tine_stmt_pool *p, tine_stmt *s);

/* residue.c: a vectorized loop whose body reads ramp($.c0, 1, L) / d or % d (d = 2 or 4
 * dividing its step: halved coordinates, parity tests) emitted once per residue of its
 * min mod d, each copy with those as a scalar plus constant lane offsets (dense loads and
 * shuffles in codegen) and constant masks. */
tine_stmt *tine_stmt_residues(tine_stmt_pool *p, tine_stmt *s);

/* unswitch.c: a vectorized loop whose selects test a condition that is the same in every
 * lane and every iteration (a row's parity inside the loop over x) as an If over one copy
 * per value, each computing only the side of those selects it keeps. */
tine_stmt *tine_stmt_unswitch(tine_stmt_pool *p, tine_stmt *s);

/* interleave.c: an interleave of loads of one buffer that together read consecutive
 * elements (a function stored in k pairs, read as its pairs' two halves), as one dense
 * load; through a cast of every operand too. Applied to each selected expression. */
tine_expr_t *tine_interleaved_loads(tine_ctx_t *ctx, tine_expr_t *root);

/* reassoc.c: in a vectorized loop, an integer sum's loop-invariant addends (a
 * selection's corrections, such as 128 times a mask weight) gathered into one sum added
 * last, which hoist.c or LLVM's LICM then lifts out of the loop. */
tine_stmt *tine_stmt_reassociate(tine_stmt_pool *p, tine_stmt *s);

/* select.c: selection of every expression of s, once (LLVM alone: FPIR expanded; tine:
 * lift, then lower for target); then tine_interleaved_loads on each selected expression. */
tine_stmt *tine_stmt_select(tine_stmt_pool *p, tine_stmt *s, tine_selection_t sel, const char *target);
tine_stmt *tine_stmt_interleave(tine_stmt_pool *p, tine_stmt *s);

/* body_tprog.c: each innermost straight-line loop body's vector stores as a target-level
 * program through the peephole optimizer (tine_stmt_body_progs, body_tprog.h), the
 * optimized values put back; with LLVM's selection (no target instructions) s itself.
 * listing, if not NULL, gets `--emit tprog`'s text. NULL with an error. */
tine_stmt *tine_stmt_peephole(tine_stmt_pool *p, tine_stmt *s, tine_selection_t sel, const char *target,
                              tine_buf *listing);

/* plan.c: bounds inference. The caller's buffers reach a kernel's statement as
 * variables: for buffer B, $.B$given and $.B$data (bool: B, and its data, are not NULL),
 * $.B$dims (i32), $.B$addr (u64: the data's address), $.B$min0, $.B$extent0, $.B$stride0
 * ... (i64, as the caller wrote them). Parameters are their own variables; the data of B is
 * the buffer named B. */
typedef enum { TINE_CALL_GIVEN, TINE_CALL_DATA, TINE_CALL_DIMS, TINE_CALL_ADDR, TINE_CALL_MIN, TINE_CALL_EXTENT,
               TINE_CALL_STRIDE } tine_call_what;
tine_expr_t *tine_call_var(tine_ctx_t *ctx, const char *buffer, tine_call_what what, int dim);

/* The plan of a run, as steps in order: `let var = value` (for what follows), or an
 * Assert (check). It checks the call by the rules of tine.h (codes: -2 the output, i + 1
 * input i, -3 an overlap), binds the geometry variables of the inputs and the output,
 * then from the output back derives each stage's region from what its consumers read,
 * checks that the inputs cover what each stage reads (code i + 1), checks each scratch
 * buffer against the limits (code -1) and binds its geometry. read[s] (bool) says
 * whether anything reads stage s, size[s] (i32) its buffer's elements. */
typedef struct {
    tine_expr_t *var, *value;
    tine_stmt *check;
} tine_plan_step;
/* One stage's reads of one input (an input read by three stages has three): whether it is
 * read (any) and the region, per dimension, lowest and highest coordinate; the plan's
 * variables once its steps ran. */
typedef struct {
    int input;
    tine_expr_t *any, *lo[4], *hi[4];
} tine_plan_read;
/* reads: every input read (tine_kernel_input_regions); sizing: every bound that sizes the
 * run, a loop reduction's and a region's, before any Let named it, so what they read is
 * what they depend on (tine_kernel_param_sizes). */
typedef struct {
    tine_plan_step *steps;
    int nsteps;
    tine_expr_t **read, **size;
    tine_plan_read *reads;
    int nreads, reads_cap;
    tine_expr_t **sizing;
    int nsizing, sizing_cap;
} tine_kernel_plan_t;
int tine_stmt_plan(tine_stmt_pool *p, const tine_kernel_t *k, tine_kernel_plan_t *plan); /* 0, or -1 with an error */
void tine_kernel_plan_free(tine_kernel_plan_t *plan);
/* plan_share.c: binds each large subexpression the steps[0..*nsteps) (a growable array
 * of *cap) repeat to a Let `$.sN` before the step that first reads it; the steps read the
 * variable. A plan that binds a variable twice is left as it is. */
void tine_plan_share(tine_stmt_pool *p, tine_plan_step **steps, int *nsteps, int *cap);
/* body inside the plan's lets and checks. */
tine_stmt *tine_stmt_plan_around(tine_stmt_pool *p, const tine_kernel_plan_t *plan, tine_stmt *body);

/* build.c: every stage's nest into its buffer (scratch allocated around the stages that
 * run after it), inside the plan (tine_stmt_plan of k); and the whole kernel, plan and
 * stages (NULL with an error: the plan's). */
tine_stmt *tine_stmt_build_stages(tine_stmt_pool *p, const tine_kernel_t *k, const tine_kernel_plan_t *plan);
tine_stmt *tine_stmt_build_kernel(tine_stmt_pool *p, const tine_kernel_t *k);

/* hoist.c: loop-invariant expressions (row base addresses, clamped row coordinates, a
 * partitioned loop's split points and bounds, invariant broadcasts; never loads) bound by
 * a Let `$.hN` at the top of the body of the innermost For or Let binding one of their
 * variables (the statement's top for kernel scalars only): the outermost place they can
 * be computed, once for every loop below it that uses them (the parts of a partitioned
 * loop share one binding). A Let whose whole value moves is dropped:
 *
 *   for y: $.c1 in [...]                    let $.h0 = $in$extent1 + $in$min1 - 1
 *     for.vectorized<L> x: $.c0 in [...]      for y: $.c1 in [...]
 *       out[ramp($.c0 + ($.c1 - m) * s,   =>     let $.h1 = ($.c1 - m) * s
 *                1, L)] = ...                    for.vectorized<L> x: $.c0 in [...]
 *                                                  out[ramp($.c0 + $.h1, 1, L)] = ...
 *
 * After selection (a Let would hide a pattern from lifting); vectors in an index stay
 * whole (codegen reads a dense load's stride from the index's shape). */
tine_stmt *tine_stmt_hoist(tine_stmt_pool *p, tine_stmt *s);

#endif
