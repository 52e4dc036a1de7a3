/* emit_c.c — the program as C with the target's intrinsics (tine vectorize --emit c). */
#include "vectorize.h"

char *vz_emit_c(tine_ctx_t *ctx, const vz_program *p, size_t *size) {
    (void)p, (void)size;
    tine_set_error(ctx, "tine vectorize: --emit c is not available yet");
    return NULL;
}
