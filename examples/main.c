/* main.c — calls the two kernels tine_add_kernel compiled (blur3x3.h and q15_mul.h from
 * the build) on pseudo-random inputs and checks every output element against the scalar
 * C of reference.h; then the C++ caller's check. Exit status 0 when all agree. */
#include <stdio.h>
#include <stdlib.h>

#include "blur3x3.h"
#include "q15_mul.h"
#include "reference.h"

int cxx_caller_check(void); /* cxx_caller.cpp */

/* An odd-sized image (its rows not a whole number of vectors) in rows padded to `stride`. */
static int check_blur(void) {
    enum { W = 203, H = 61, STRIDE = 224 };
    uint8_t *in = malloc(STRIDE * H), *out = malloc(STRIDE * H);
    if (!in || !out) return 1;
    uint32_t seed = 1;
    for (int i = 0; i < STRIDE * H; i++) in[i] = (uint8_t)example_rand(&seed);
    tine_buffer_t bin = {in, 2, {0, 0}, {W, H}, {1, STRIDE}};
    tine_buffer_t bout = {out, 2, {0, 0}, {W, H}, {1, STRIDE}};
    int rc = blur3x3(&bin, &bout), bad = 0;
    if (rc != 0) {
        printf("blur3x3 returned %d\n", rc);
        bad = 1;
    }
    for (int y = 0; y < H && !rc; y++)
        for (int x = 0; x < W; x++) {
            uint8_t want = ref_blur3x3(in, W, H, STRIDE, x, y);
            if (out[y * STRIDE + x] != want && bad++ < 5)
                printf("blur3x3 (%d, %d): %d, the reference says %d\n", x, y, out[y * STRIDE + x], want);
        }
    printf("blur3x3: %dx%d, %s\n", W, H, bad ? "WRONG" : "every element as the reference");
    free(in);
    free(out);
    return bad != 0;
}

/* Random Q15 values, the extremes among them, at three offsets (one saturating). */
static int check_q15(void) {
    enum { N = 1001 };
    static const int16_t edges[] = {-32768, -32767, -1, 0, 1, 16384, 32767};
    int16_t a[N], b[N], out[N];
    uint32_t seed = 7;
    for (int i = 0; i < N; i++) {
        a[i] = (int16_t)example_rand(&seed);
        b[i] = (int16_t)example_rand(&seed);
    }
    for (int i = 0; i < 7 * 7; i++) { /* every pair of extremes */
        a[i] = edges[i / 7];
        b[i] = edges[i % 7];
    }
    static const int16_t offsets[] = {0, -300, 32767};
    int bad = 0;
    for (int o = 0; o < 3; o++) {
        tine_buffer_t ba = {a, 1, {0}, {N}, {1}}, bb = {b, 1, {0}, {N}, {1}}, bo = {out, 1, {0}, {N}, {1}};
        int rc = q15_mul(&ba, &bb, offsets[o], &bo);
        if (rc != 0) {
            printf("q15_mul returned %d\n", rc);
            return 1;
        }
        for (int i = 0; i < N; i++) {
            int16_t want = ref_q15_mul(a[i], b[i], offsets[o]);
            if (out[i] != want && bad++ < 5)
                printf("q15_mul(%d, %d) + %d: %d, the reference says %d\n", a[i], b[i], offsets[o], out[i], want);
        }
    }
    printf("q15_mul: %d elements at 3 offsets, %s\n", N, bad ? "WRONG" : "every element as the reference");
    return bad != 0;
}

int main(void) {
    int bad = check_blur();
    bad |= check_q15();
    bad |= cxx_caller_check();
    return bad;
}
