/* fingerprint.c — what both searches of src/synth index expressions by: their values on
 * the search's inputs (an expression equal to an earlier one there adds nothing). */
#include "synth.h"

uint64_t synth_hash_vals(tine_type_t t, const uint64_t *v, int n) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ ((uint64_t)t.kind << 16 | (uint64_t)t.bits << 8 | (uint64_t)t.lanes);
    for (int i = 0; i < n; i++) {
        h ^= v[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
    }
    return h ? h : 1;
}

void synth_rehash(synth_index *x, size_t n, uint64_t (*hash)(void *user, size_t i), void *user) {
    size_t ns = x->nslots ? x->nslots * 2 : 4096;
    while (ns < 2 * n) ns *= 2;
    uint32_t *sl = tine_xcalloc(ns, sizeof *sl);
    for (size_t i = 0; i < n; i++) {
        size_t k = hash(user, i) & (ns - 1);
        while (sl[k]) k = (k + 1) & (ns - 1);
        sl[k] = (uint32_t)(i + 1);
    }
    free(x->slots);
    x->slots = sl;
    x->nslots = ns;
}
