/* front.h — the kernel front half, as named steps: .tine text to the kernel's stages.
 *
 * Each step takes the kernel under construction, fills in its part, and returns whether
 * it may go on (false: the context holds a located error; the kernel is then fit only for
 * tine_kernel_free). In order, one kernel:
 *
 *   tine_kernel_t *kn = tine_front_new(ctx);
 *   tine_front_parse(kn, text, file)        the syntax (ir/parse.c)
 *   tine_front_on(kn, key)                  `on` names checked; the definitions and
 *                                           directives of key's sections kept (NULL:
 *                                           every target's), its `natural` width
 *   tine_front_check(kn)                    declarations, the call graph (kernel_check.c)
 *   tine_front_schedule(kn, level)          the directives: schedule auto's (at level) or
 *                                           the written ones, applied and checked (schedule.c)
 *   tine_front_elaborate(kn)                the stages' bodies (kernel_stages.c)
 *   tine_front_slide(kn)                    sliding windows of compute_at (kernel_slide.c)
 *   tine_front_unrolled_limit(kn)           the code the unrolls make (kernel_unrolled.c)
 *   tine_front_scalars(kn)                  the scalar table (kernel_scalars.c)
 *
 * The compile driver (driver/compile.c) runs them: under schedule auto, a kernel whose
 * steps fail at level 0 is made again from the start at level 1 (plainer directives,
 * tine_front_retries), and one more kernel is made per key (a `natural` width and the
 * `on` sections that apply) that a target has and the every-target kernel's is not
 * (tine_front_keys, tine_front_add_variant).
 */
#ifndef TINE_PIPELINE_FRONT_H
#define TINE_PIPELINE_FRONT_H

#include "../ir/ast.h"

tine_kernel_t *tine_front_new(tine_ctx_t *ctx);
bool tine_front_parse(tine_kernel_t *kn, const char *text, const char *file);
bool tine_front_on(tine_kernel_t *kn, const tine_on_key *key);
bool tine_front_check(tine_kernel_t *kn);
/* level 0: schedule auto uses every directive; 1: only materialize, vectorize (of
   coordinates) and unroll. A written schedule ignores it. */
bool tine_front_schedule(tine_kernel_t *kn, int level);
bool tine_front_elaborate(tine_kernel_t *kn);
bool tine_front_slide(tine_kernel_t *kn);
bool tine_front_unrolled_limit(tine_kernel_t *kn);
bool tine_front_scalars(tine_kernel_t *kn);

/* Whether a kernel whose steps failed at level is made again at level + 1 (schedule
 * auto's choice refused: not the user's error). */
bool tine_front_retries(const tine_kernel_t *kn, int level);
/* The keys of target (NULL: of every target) other than the every-target kernel k's, each
 * once, into keys (at most 8): their count; and the kernel made for a key (v, owned by k
 * from then on). */
int tine_front_keys(const tine_kernel_t *k, const char *target, tine_on_key *keys);
void tine_front_add_variant(tine_kernel_t *k, const tine_on_key *key, tine_kernel_t *v);

#endif
