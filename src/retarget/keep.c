/* keep.c — a function tine retarget cannot rewrite, kept as written.
 *
 * A construct the rewriting does not follow (a vector passed to a function of another
 * file, kept in a struct, a loop whose header computes with intrinsics) leaves its
 * function as the source wrote it, with a located note; the intrinsics it calls (and the
 * helpers on vectors it calls, kept too) are then emulated from their semantics, as the
 * emulation header has them (header.c), in the same output. A function that cannot be
 * emulated either — inline assembly, an intrinsic tine does not know — is an error.
 */
#include "keep.h"

static bool has(char *const *list, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i], name)) return true;
    return false;
}

static void add(char ***list, int *n, int *cap, const char *name) {
    if (has(*list, *n, name)) return;
    TINE_GROW(*list, *n + 1, *cap);
    (*list)[(*n)++] = tine_strdup(name);
}

/* Whether a name is spelled as the source's intrinsics are (vaddq_u8, _mm_add_epi8). */
static bool intrinsic_like(const rt *r, const char *name) {
    return !strcmp(r->ffam, "arm") ? name[0] == 'v' && strchr(name, '_') : !strncmp(name, "_mm", 3) || !strncmp(name, "_m_", 3);
}

/* The intrinsics and the helpers on vectors a statement calls, into ks (a helper's own
 * calls too); false at what cannot be emulated (inline assembly, an unknown intrinsic),
 * with its located error. */
static bool calls(rt *r, const tine_cnode *e, keep_state *ks) {
    if (!e) return true;
    if (e->kind == TINE_CS_ASM) return rt_fail_at(r, e->range.begin, "%s", "inline assembly in a function that uses intrinsics");
    if (e->kind == TINE_CE_CALL && e->name) {
        const tine_cfunc *fn;
        if (tine_intrin_find(r->ctx, r->ffam, e->name)) add(&ks->names, &ks->nnames, &ks->capnames, e->name);
        else if (rt_vector_helper(r, e->name) && (fn = rt_local_func(r, e->name)) && !has(ks->helpers, ks->nhelpers, e->name)) {
            add(&ks->helpers, &ks->nhelpers, &ks->caphelpers, e->name);
            if (!calls(r, fn->body, ks)) return false;
        } else if (!rt_local_func(r, e->name) && intrinsic_like(r, e->name)) {
            tine_clear_error(r->ctx);
            return rt_fail_at(r, e->range.begin, "'%s' is not an intrinsic tine knows", e->name);
        }
    }
    for (int i = 0; i < e->nkids; i++)
        if (!calls(r, e->kid[i], ks)) return false;
    return true;
}

bool rt_keep(rt *r, const tine_cfunc *fn, keep_state *ks) {
    char *why = tine_strdup(tine_error(r->ctx) ? tine_error(r->ctx) : "");
    r->failed = false;
    if (!calls(r, fn->body, ks)) {
        free(why);
        return false;
    }
    tine_clear_error(r->ctx);
    tine_buf_printf(&ks->notes, "%s\n", why);
    tine_buf_printf(&ks->notes, "%s:%d:%d: note: '%s' is kept as written; the intrinsics it calls are emulated from their "
                                "semantics, as in the header tine retarget --emit-header writes\n",
                    tine_cfile_path(r->f), fn->range.begin.line, fn->range.begin.col, fn->name);
    if (!ks->have_first) ks->first = fn->range.begin, ks->have_first = true;
    free(why);
    return true;
}

bool rt_kept_helper(const keep_state *ks, const char *name) { return has(ks->helpers, ks->nhelpers, name); }

void rt_keep_free(keep_state *ks) {
    for (int i = 0; i < ks->nnames; i++) free(ks->names[i]);
    for (int i = 0; i < ks->nhelpers; i++) free(ks->helpers[i]);
    free(ks->names);
    free(ks->helpers);
}
