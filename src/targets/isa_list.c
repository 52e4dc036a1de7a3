/* isa_list.c — `tine isa list`: the instruction forms of the built-in descriptions, one
 * line each, with whether this machine runs them.
 *
 * A form runs here when the host has every feature it names (LLVM's view of the host, as
 * the JIT's); a form of another architecture's description runs under qemu (the
 * instruction tests run the AArch64 forms there).
 */
#include "../ir/ast.h"
#include "targets.h"

/* The features of a form, joined with '+' as the description writes them. */
static void form_features(const tine_isa *isa, uint32_t mask, tine_buf *b) {
    bool first = true;
    for (int f = 0; f < isa->nfeatures; f++)
        if (mask >> f & 1) {
            tine_buf_printf(b, "%s%s", first ? "" : "+", isa->features[f]);
            first = false;
        }
}

static void list_one(tine_ctx_t *ctx, const char *name, tine_buf *out) {
    const tine_isa *isa = tine_isa_get(ctx, name);
#if defined(__aarch64__)
    bool native = !strcmp(name, "arm");
#else
    bool native = strcmp(name, "arm") != 0;
#endif
    uint32_t host = native ? tine_target_host_mask(isa) : 0;
    for (int k = 0; k < isa->n; k++) {
        const tine_insn *in = &isa->insn[k];
        for (int f = 0; f < in->nforms; f++) {
            const tine_insn_form *fm = &in->form[f];
            tine_buf feats = {0};
            form_features(isa, fm->features, &feats);
            const char *where = !native ? "qemu" : (fm->features & ~host) ? "not on this CPU" : "runs here";
            tine_buf_printf(out, "%-6s %-28s %-4s %-34s %-26s %s\n", name, in->name, fm->reg, fm->c, feats.p, where);
            free(feats.p);
        }
    }
}

char *tine_isa_list(tine_ctx_t *ctx, const char *isa) {
    bool found = false;
    tine_buf out = {0};
    tine_buf_puts(&out, "");
    for (int i = 0; tine_isa_name(i); i++) {
        if (isa && strcmp(isa, tine_isa_name(i))) continue;
        found = true;
        list_one(ctx, tine_isa_name(i), &out);
    }
    if (!found) {
        free(out.p);
        tine_set_error(ctx, "unknown instruction set '%s' (x86, arm or x86gen)", isa);
        return NULL;
    }
    return out.p;
}
