/* names.c — the names of the enumerations tine.h gives as tables (X-macros): the compile
 * driver's steps (TINE_STEPS) and the output kinds (TINE_EMIT_KINDS). Below every layer,
 * so that the code generator, the driver and the CLI read one table. */
#include "../internal.h"

static const char *const step_names[] = {
#define STEP_NAME_(id, name, what) name,
    TINE_STEPS(STEP_NAME_)
#undef STEP_NAME_
};

static const char *const kind_names[] = {
#define KIND_NAME_(id, name) name,
    TINE_EMIT_KINDS(KIND_NAME_)
#undef KIND_NAME_
};

const char *tine_step_name(tine_step_t step) { return step >= 0 && step < TINE_NSTEPS ? step_names[step] : NULL; }

int tine_step_find(const char *name) {
    for (int i = 0; name && i < TINE_NSTEPS; i++)
        if (!strcmp(name, step_names[i])) return i;
    return -1;
}

const char *tine_emit_kind_name(tine_emit_kind_t kind) {
    return kind >= 0 && kind < TINE_EMIT_NKINDS ? kind_names[kind] : NULL;
}

int tine_emit_kind_find(const char *name) {
    for (int i = 0; name && i < TINE_EMIT_NKINDS; i++)
        if (!strcmp(name, kind_names[i])) return i;
    return -1;
}
