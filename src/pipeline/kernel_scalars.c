/* kernel_scalars.c — the scalars of kernel bodies (internal.h, tine_kscalar): the variables
 * that name a parameter ($name) or a buffer's geometry ($in$min0, $in$extent1, ...), and
 * each kernel's table of them, built once its stages are (the front half's last step),
 * which binding a run reads. */
#include "front.h"
#include "kernel.h"

tine_expr_t *tine_kernel_param_var(tine_ctx_t *ctx, const char *param, tine_type_t t) {
    tine_buf b = {0};
    tine_buf_printf(&b, "$%s", param);
    tine_expr_t *v = tine_var(ctx, b.p, t);
    free(b.p);
    return v;
}

tine_expr_t *tine_kernel_geometry_var(tine_ctx_t *ctx, const char *buffer, tine_ks_what what, int dim) {
    static const char *const names[] = {"", "min", "extent", "stride"};
    tine_buf b = {0};
    tine_buf_printf(&b, "$%s$%s%d", buffer, names[what], dim);
    tine_expr_t *v = tine_var(ctx, b.p, tine_type(TINE_INT, 32, 1));
    free(b.p);
    return v;
}

static int cmp_ks(const void *a, const void *b) {
    uint32_t x = ((const tine_kscalar *)a)->var->id, y = ((const tine_kscalar *)b)->var->id;
    return x < y ? -1 : x > y;
}

/* The table: every parameter, and min, extent and stride of every dimension of every
 * input and every stage's buffer. */
bool tine_front_scalars(tine_kernel_t *k) {
    int nin = tine_kernel_ninputs(k), np = tine_kernel_nparams(k), n = np;
    for (int i = 0; i < nin; i++) n += 3 * tine_kernel_nth(k, K_INPUT, i)->dims;
    for (int s = 0; s < k->nstages; s++) n += 3 * k->stages[s].dims;
    k->ks = tine_xcalloc((size_t)n + 1, sizeof *k->ks);
    for (int i = 0; i < np; i++) {
        tine_type_t t;
        const char *name = tine_kernel_param(k, i, &t);
        k->ks[k->nks++] = (tine_kscalar){tine_kernel_param_var(k->ctx, name, t), TINE_KS_PARAM, i, -1, -1, 0};
    }
    for (int b = 0; b < nin + k->nstages; b++) {
        const char *name = b < nin ? tine_kernel_nth(k, K_INPUT, b)->name : k->stages[b - nin].name;
        int dims = b < nin ? tine_kernel_nth(k, K_INPUT, b)->dims : k->stages[b - nin].dims;
        for (int w = TINE_KS_MIN; w <= TINE_KS_STRIDE; w++)
            for (int d = 0; d < dims; d++)
                k->ks[k->nks++] = (tine_kscalar){tine_kernel_geometry_var(k->ctx, name, (tine_ks_what)w, d), (tine_ks_what)w,
                                                 -1, b < nin ? b : -1, b < nin ? -1 : b - nin, d};
    }
    qsort(k->ks, (size_t)k->nks, sizeof *k->ks, cmp_ks);
    return true;
}

const tine_kscalar *tine_kernel_scalars(const tine_kernel_t *k, int *n) {
    *n = k->nks;
    return k->ks;
}

const tine_kscalar *tine_kernel_scalar_of(const tine_kernel_t *k, const tine_expr_t *var) {
    int lo = 0, hi = k->nks - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (k->ks[mid].var == var) return &k->ks[mid];
        if (k->ks[mid].var->id < var->id) lo = mid + 1;
        else hi = mid - 1;
    }
    return NULL;
}

const tine_kscalar *tine_kernel_geometry(const tine_kernel_t *k, int input, int stage, tine_ks_what what, int dim) {
    for (int i = 0; i < k->nks; i++) {
        const tine_kscalar *s = &k->ks[i];
        if (s->what == what && s->input == input && s->stage == stage && s->dim == dim) return s;
    }
    return NULL;
}

int64_t tine_kernel_param_value(const tine_kernel_t *k, int i, const void *const *params) {
    tine_type_t t;
    tine_kernel_param(k, i, &t);
    const void *p = params[i];
    bool sg = t.kind == TINE_INT;
    switch (t.bits) {
    case 1: return *(const uint8_t *)p != 0; /* bool: one byte */
    case 8: return sg ? (int64_t) * (const int8_t *)p : (int64_t) * (const uint8_t *)p;
    case 16: return sg ? (int64_t) * (const int16_t *)p : (int64_t) * (const uint16_t *)p;
    case 32: return sg ? (int64_t) * (const int32_t *)p : (int64_t) * (const uint32_t *)p;
    default: return *(const int64_t *)p;
    }
}

