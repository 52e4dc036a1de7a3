/* context.c — a context as the library hands it out: the IR core's context with the
 * hooks of the layers that extend the expression language from the start.
 *
 * The core (src/ir/expr.c) knows no layer above it; layers keep their state in their own
 * slot of the context, made on first use (tine_layer_set). The one extension every
 * expression needs before any layer is used is the target descriptions' instruction names
 * (`pavgb(a, b)` parses in a new context), so it is registered here, the one place that
 * assembles the layers. Rule predicates are registered by the rule compiler, the first
 * thing to elaborate a condition.
 */
#include "internal.h"
#include "ir/elab.h"

tine_ctx_t *tine_ctx_new(void) {
    tine_ctx_t *ctx = tine_ctx_core_new();
    if (!ctx) return NULL;
    tine_elab_builtins_install(ctx);
    tine_fpir_install(ctx);
    tine_isa_install(ctx);
    return ctx;
}
