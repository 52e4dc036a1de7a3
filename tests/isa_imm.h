/* isa_imm.h — the immediates the AArch64 tests give an instruction (test_isa_arm,
 * test_cemit). */
#ifndef TINE_TESTS_ISA_IMM_H
#define TINE_TESTS_ISA_IMM_H

#include "internal.h"

/* The mnemonic: the name up to its last '_' (uhadd_u8: uhadd). */
static inline void mnemonic(const char *name, char *out, size_t n) {
    snprintf(out, n, "%s", name);
    char *u = strrchr(out, '_');
    if (u) *u = 0;
}

/* The immediates to test: right shifts (and narrowing ones) take 1..n, where n is the
 * width of the result's element for a narrowing shift and the operand's otherwise; left
 * shifts take 0..n-1 of the operand's width. Each range is sampled at its ends, 2, and
 * the middle. */
static inline int imm_values(const tine_insn *in, int64_t *v) {
    char m[32];
    mnemonic(in->name, m, sizeof m);
    int ob = in->optype[0].bits, rb = in->result.bits;
    bool left = strstr(m, "shl") != NULL || strstr(m, "sli") != NULL;
    int lo = left ? 0 : 1, hi = left ? ob - 1 : (rb < ob ? rb : ob);
    int64_t cand[] = {lo, lo + 1, 2, (lo + hi) / 2, hi - 1, hi};
    int n = 0;
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        bool dup = cand[i] < lo || cand[i] > hi;
        for (int k = 0; k < n && !dup; k++) dup = v[k] == cand[i];
        if (!dup) v[n++] = cand[i];
    }
    return n;
}

#endif
