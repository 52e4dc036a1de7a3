/* dot_main.c — the harness of test_dot_products.sh: one dot-product kernel compiled ahead
 * of time (tine compile --emit obj|h), run on deterministic random rows with the type
 * limits among them, for lengths around the vector step, against the serial sum in C
 * (wrapping i32, as the kernel's sum). Built with -DKERNEL=name -DTA=type -DTW=type
 * -DHEADER="file.h"; prints "ok N" or the first difference and exits 1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include HEADER

#define C 19 /* output channels: not a multiple of the vector width (the tail runs too) */
#define N 3  /* activation rows */

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint32_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)state;
}

/* a random value of the type, or one of its limits every fourth time */
#define FILL(p, n, T, lo, hi)                                                                  \
    for (int i = 0; i < (n); i++) {                                                            \
        uint32_t r = next();                                                                   \
        (p)[i] = (r & 3) ? (T)(r >> 8) : ((r >> 2) & 1) ? (T)(lo) : (T)(hi);                   \
    }

static int64_t lo_of(int bits, int sgn) { return sgn ? -((int64_t)1 << (bits - 1)) : 0; }
static int64_t hi_of(int bits, int sgn) { return sgn ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1; }

int main(void) {
    static const int32_t lens[] = {0, 1, 7, 31, 32, 33, 64, 100, 129, 256, 1000};
    int runs = 0;
    for (unsigned l = 0; l < sizeof lens / sizeof *lens; l++) {
        int32_t K = lens[l], Kd = K ? K : 1;
        TA *a = malloc(sizeof *a * (size_t)(Kd * N));
        TW *w = malloc(sizeof *w * (size_t)(Kd * C));
        int32_t *out = malloc(sizeof *out * C * N);
        int sa = (TA)-1 < 0, sw = (TW)-1 < 0;
        FILL(a, Kd * N, TA, lo_of(8 * (int)sizeof(TA), sa), hi_of(8 * (int)sizeof(TA), sa));
        FILL(w, Kd * C, TW, lo_of(8 * (int)sizeof(TW), sw), hi_of(8 * (int)sizeof(TW), sw));
        if (l % 3 == 2) { /* every element at its limit: the largest sums */
            for (int i = 0; i < Kd * N; i++) a[i] = (TA)(sa ? lo_of(8 * (int)sizeof(TA), 1) : hi_of(8 * (int)sizeof(TA), 0));
            for (int i = 0; i < Kd * C; i++) w[i] = (TW)(sw ? lo_of(8 * (int)sizeof(TW), 1) : hi_of(8 * (int)sizeof(TW), 0));
        }
        tine_buffer_t ba = {a, 2, {0, 0}, {Kd, N}, {1, Kd}}, bw = {w, 2, {0, 0}, {Kd, C}, {1, Kd}};
        tine_buffer_t bo = {out, 2, {0, 0}, {C, N}, {1, C}};
        int rc = KERNEL(&ba, &bw, K, &bo);
        if (rc != 0) {
            printf("K = %d: the kernel returned %d\n", K, rc);
            return 1;
        }
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++) {
                uint32_t s = 0;
                for (int k = 0; k < K; k++) s += (uint32_t)((int64_t)a[n * Kd + k] * (int64_t)w[c * Kd + k]);
                if ((int32_t)s != out[n * C + c]) {
                    printf("K = %d: dot(%d, %d) = %d, expected %d\n", K, c, n, out[n * C + c], (int32_t)s);
                    return 1;
                }
            }
        free(a);
        free(w);
        free(out);
        runs++;
    }
    printf("ok %d\n", runs);
    return 0;
}
