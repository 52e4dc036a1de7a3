/* retarget.h — C written with one instruction set's intrinsics, rewritten for another
 * (src/retarget/retarget.c). */
#ifndef TINE_RETARGET_H
#define TINE_RETARGET_H

#include "../internal.h"

/* tine_retarget (tine.h) is this module's entry point. */

/* root with each concat of the halves of one computation joined back into it (join.c). */
tine_expr_t *tine_retarget_join(tine_ctx_t *ctx, tine_expr_t *root);

#endif
