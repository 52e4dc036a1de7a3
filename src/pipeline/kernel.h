/* kernel.h — a kernel under construction, as the pipeline's files share it.
 *
 * struct tine_kernel is private to src/pipeline: the front half's steps (front.h) fill it
 * in, the accessors (kernel_access.c, kernel_scalars.c) read it. Who calls whom, lowest
 * first (no cycles): kernel_access.c, kernel_scalars.c, directives.c; kernel_elab.c,
 * kernel_on.c, kernel_slide.c, kernel_loops.c, kernel_check.c, kernel_unrolled.c;
 * autosched.c, kernel_stages.c; schedule.c; kernel.c (the front driver).
 */
#ifndef TINE_PIPELINE_KERNEL_H
#define TINE_PIPELINE_KERNEL_H

#include "../ir/ast.h"

struct tine_kernel {
    tine_ctx_t *ctx;
    tine_arena arena;
    tine_kernel_ast ast;
    const tine_kdecl *out;
    tine_stage *stages; /* producers first, the output last (cap of them allocated) */
    const tine_kdecl **sdecl;
    int nstages, cap;
    tine_kscalar *ks; /* the scalar table, sorted by variable id */
    int nks;
    uint64_t *reach; /* declaration i calls j (directly or not): bit j of row i */
    uint64_t *calls; /* declaration i calls j directly: bit j of row i (rows as reach's) */
    size_t reach_words;
    /* the kernel per key (kernel_on.c) that some target has and this every-target kernel's
       is not, key[i]'s in variant[i]; the directives as written, every section's (printed
       by tine_kernel_print_schedule) */
    tine_on_key key[8];
    tine_kernel_t *variant[8];
    int nvariants;
    tine_kdirective *written;
    int nwritten;
    bool variant_of_key; /* made for one key: its directives are one target's whole schedule */
};

/* kernel_access.c: the i-th declaration of that kind (inputs, params), in declaration
 * order, or NULL. */
const tine_kdecl *tine_kernel_nth(const tine_kernel_t *k, tine_kdecl_kind kind, int i);

/* kernel_check.c: whether declaration d calls e, directly or through other functions
 * (after tine_front_check). */
bool tine_kernel_reaches(const tine_kernel_t *kn, const tine_kdecl *d, const tine_kdecl *e);

#endif
