/* edges.h — edge values of an integer type as bit patterns, for the instruction tests:
 * test_isa.c on this machine, and test_isa_arm.c both here and in the AArch64 driver it
 * writes (which includes this file), so that host and driver draw the same inputs.
 * Plain C: the driver is built without tine. */
#ifndef TINE_TEST_EDGES_H
#define TINE_TEST_EDGES_H

#include <stdint.h>

static inline uint64_t g_mask(int bits) { return bits == 64 ? ~0ull : (1ull << bits) - 1; }
static inline uint64_t g_min(int bits, int sgn) { return sgn ? 1ull << (bits - 1) : 0; }
static inline uint64_t g_max(int bits, int sgn) { return sgn ? g_mask(bits) >> 1 : g_mask(bits); }

/* The edges of a bits-wide type, signed if sgn (at most 9 + 4 * 21 = 93): min, max, 0,
 * ±1, min+1, max-1, and ±2^k, 2^k ± 1 (every k to 16 bits, every third above). */
static inline int g_edges(int bits, int sgn, uint64_t *out) {
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

/* The edges of a float type's bits (32 or 64) as bit patterns (30): ±0, ±1, ±inf, quiet and
 * signalling NaNs of both signs (one with a payload), the smallest and largest denormals
 * and the smallest normal of both signs, the largest finite of both signs, 0.5, 1.5, 2.5
 * (ties of rounding to an integer), 3, -7.25, 2^24 + 1 and 2^53 + 1's neighbourhood (the
 * last integers exact), 3.2e9 and -3.2e9 (past i32), 2^31 and -2^31 (i32's ends), 2^63. */
static inline int g_float_edges(int bits, uint64_t *out) {
    static const uint32_t e32[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
                                   0x7fc00000, 0xffc00000, 0x7fa00000, 0xff812345, 0x00000001, 0x80000001,
                                   0x007fffff, 0x807fffff, 0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff,
                                   0x3f000000, 0x3fc00000, 0x40200000, 0x40400000, 0xc0e80000, 0x4b800001,
                                   0x4b7fffff, 0x4f3ebc20, 0xcf3ebc20, 0x4f000000, 0xcf000000, 0x5f000000};
    static const uint64_t e64[] = {0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
                                   0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                   0xfff8000000000000ull, 0x7ff4000000000000ull, 0xfff0000000012345ull, 1,
                                   0x8000000000000001ull, 0x000fffffffffffffull, 0x800fffffffffffffull,
                                   0x0010000000000000ull, 0x8010000000000000ull, 0x7fefffffffffffffull,
                                   0xffefffffffffffffull, 0x3fe0000000000000ull, 0x3ff8000000000000ull,
                                   0x4004000000000000ull, 0x4008000000000000ull, 0xc01d000000000000ull,
                                   0x4340000000000001ull, 0x433fffffffffffffull, 0x41e7d78400000000ull,
                                   0xc1e7d78400000000ull, 0x41e0000000000000ull, 0xc1e0000000000000ull,
                                   0x43e0000000000000ull};
    for (int i = 0; i < 30; i++) out[i] = bits == 32 ? e32[i] : e64[i];
    return 30;
}

/* Whether a float lane's bits are a NaN. */
static inline int g_is_nan(int bits, uint64_t v) {
    return bits == 32 ? (v & 0x7fffffffu) > 0x7f800000u : (v & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

#endif
