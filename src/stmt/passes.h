/* passes.h — building a stage's loop nest and the passes that rewrite it, in the order
 * the driver (lower.c, tine_stmt_lower_stage) runs them.
 *
 * A stage's nest (build.c) loops over its buffer's region, whose geometry is the scalar
 * variables $S$min0, $S$extent0, $S$stride1 ... of the stage's buffer (the kernel's scalar
 * table says what each is; a run's plan gives their values). Its free variables are
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

/* build.c: the loop nest of stage sn as the schedule describes it, before any pass. */
tine_stmt *tine_stmt_build_stage(tine_stmt_pool *p, const tine_kernel_t *k, int sn);

/* partition.c: loops split into prologue, steady state and epilogue so that in the steady
 * state the boundary conditions (the clamps edge() makes, the comparisons constant()
 * makes) are no-ops and removed. */
tine_stmt *tine_stmt_partition(tine_stmt_pool *p, const tine_kernel_t *k, tine_stmt *s);

/* simplify.c: index and loop-bound arithmetic in linear form, constants folded. */
tine_expr_t *tine_simplify_expr(tine_ctx_t *ctx, tine_expr_t *e);
tine_stmt *tine_stmt_simplify(tine_stmt_pool *p, tine_stmt *s);

/* lower.c: selection of every expression of s, once (LLVM alone: FPIR expanded; tine:
 * lift, then lower for target). */
tine_stmt *tine_stmt_select(tine_stmt_pool *p, tine_stmt *s, tine_selection_t sel, const char *target);

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

/* lower.c: the driver. Every pass in order on stage sn; after each, `after` (if not NULL)
 * sees the pass's name and its result (tests run each on the statement interpreter).
 * sel < 0 stops before selection (the reference run interprets that). */
typedef void (*tine_pass_fn)(void *user, const char *pass, const tine_stmt *s);
tine_stmt *tine_stmt_lower_stage(tine_stmt_pool *p, tine_kernel_t *k, int sn, int sel, const char *target,
                                 tine_pass_fn after, void *user);

/* run.c: kernel k run on the statement interpreter, each stage's statement taken after
 * the driver's pass `pass` ("build", ..., "select", "hoist"; sel as for tine_stmt_lower_stage),
 * over the plan a compiled run makes. 0, or what tine_stmt_run returns. */
int tine_kernel_interpret_stmt(tine_kernel_t *k, const char *pass, int sel, const char *target,
                               tine_buffer_t *const *inputs, const void *const *params, tine_buffer_t *out);

#endif
