/* edges.h — edge values of an integer type as bit patterns, for the instruction tests:
 * test_isa.c on this machine, and test_isa_arm.c both here and in the AArch64 driver it
 * writes (which includes this file), so that host and driver draw the same inputs.
 * Plain C: the driver is built without tine. */
#ifndef TINE_TEST_EDGES_H
#define TINE_TEST_EDGES_H

#include <stdint.h>

static uint64_t g_mask(int bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }
static uint64_t g_min(int bits, int sgn) { return sgn ? 1ull << (bits - 1) : 0; }
static uint64_t g_max(int bits, int sgn) { return sgn ? g_mask(bits) >> 1 : g_mask(bits); }

/* The edges of a bits-wide type, signed if sgn (at most 9 + 4 * 21 = 93): min, max, 0,
 * ±1, min+1, max-1, and ±2^k, 2^k ± 1 (every k to 16 bits, every third above). */
static int g_edges(int bits, int sgn, uint64_t *out) {
    int n = 0;
    uint64_t m = g_mask(bits), lo = g_min(bits, sgn), hi = g_max(bits, sgn);
    uint64_t base[9];
    base[0] = 0; base[1] = 1; base[2] = m; base[3] = lo; base[4] = hi; base[5] = lo + 1; base[6] = hi - 1;
    base[7] = 2; base[8] = m - 1;
    for (int i = 0; i < 9; i++) out[n++] = base[i] & m;
    for (int k = 2; k < bits; k += (bits > 16 ? 3 : 1)) {
        uint64_t p = 1ull << k;
        out[n++] = p & m;
        out[n++] = (p - 1) & m;
        out[n++] = (p + 1) & m;
        out[n++] = (0 - p) & m;
    }
    return n;
}

#endif
