/* retarget.h — C written with one instruction set's intrinsics, rewritten for another
 * (src/retarget/retarget.c). */
#ifndef TINE_RETARGET_H
#define TINE_RETARGET_H

#include "../internal.h"
#include "../peephole/peephole.h"

/* tine_retarget (tine.h) is this module's entry point. */

/* root rebuilt bottom-up (join.c): each node, its operands rebuilt (ops), given to fn as it
 * was (e) and as rebuilt; fn's result replaces it. NULL if fn (or a rebuild) gives NULL. */
typedef tine_expr_t *(*rt_rewrite_fn)(tine_ctx_t *ctx, const tine_expr_t *e, tine_expr_t *rebuilt,
                                      tine_expr_t *const *ops, void *user);
tine_expr_t *tine_retarget_rewrite(tine_ctx_t *ctx, tine_expr_t *root, rt_rewrite_fn fn, void *user);

/* root with each concat of the halves of one computation joined back into it (join.c). */
tine_expr_t *tine_retarget_join(tine_ctx_t *ctx, tine_expr_t *root);

/* root (selected for `to`) with each table lookup written as a chain of selects (Neon's
 * vqtbl1q) made the target's lookup instruction (tables.c); root if the target has none. */
tine_expr_t *tine_retarget_tables(tine_ctx_t *ctx, tine_expr_t *root, const char *to);

/* values (selected for `to`) through the target-level optimizer as one program (peep.c):
 * the peephole's passes without the contract pass (the rewrite rounds where the source
 * does) and without a schedule; each replaced by what it became. The rules that fired
 * counted in st (may be NULL). false with an error. */
bool tine_retarget_optimize(tine_ctx_t *ctx, const char *to, int n, tine_expr_t **values, tine_peep_stats *st);

/* The emulation of the named intrinsics of `from` for `to` (as the emulation header has
 * them), written with em into out, after every vector type of from's C: for code kept as
 * written in a file whose other functions em writes. false with an error naming one that
 * cannot be written. */
struct tine_cemit;
bool tine_retarget_emulation(tine_ctx_t *ctx, const char *from, const char *to, struct tine_cemit *em,
                             const char *const *names, int n, tine_buf *out);

/* --report: what each call site became (report.c). A call's value is recorded where the
 * call is lifted; each sink's value (raw: as the run built it; ready: folded and joined;
 * selected: for the target) classifies the calls it reads. */
typedef struct tine_rt_report tine_rt_report;
tine_rt_report *tine_rt_report_new(void);
void tine_rt_report_free(tine_rt_report *rep);
void tine_rt_report_call(tine_rt_report *rep, const char *name, const char *from, int line, int col, tine_expr_t *value);
void tine_rt_report_sink(tine_rt_report *rep, tine_ctx_t *ctx, const char *target, tine_expr_t *raw, tine_expr_t *ready,
                         tine_expr_t *selected);
/* The peephole's rewrites on one sink's value (tine_retarget_optimize's stats), added to
 * the counts by rule the text ends with. */
void tine_rt_report_peephole(tine_rt_report *rep, const tine_peep_stats *st);
/* The peephole's records so far, and those since a mark forgotten (code written again, or
 * dropped: a loop's widening planned or given up, a function kept as written). */
int tine_rt_report_peep_mark(const tine_rt_report *rep);
void tine_rt_report_peep_drop(tine_rt_report *rep, int mark);
/* The calls recorded so far; those recorded from `from` to `to` forgotten (a loop
 * rewritten again), or marked as widened (widen.c). */
int tine_rt_report_count(const tine_rt_report *rep);
void tine_rt_report_cut(tine_rt_report *rep, int from, int to);
void tine_rt_report_widen(tine_rt_report *rep, int from, int to, int copies, int bits);
/* The report's text: one line per call site (path:line:col), then the counts. */
char *tine_rt_report_text(tine_rt_report *rep, const char *path);

#endif
