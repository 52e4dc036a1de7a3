/* block_reduce_main.c — the block reductions of tests/data/block_*.tine compiled ahead of
 * time (tests/test_block_reduce.sh: arm-64 under qemu-aarch64, or any target), each run
 * at a few output sizes on random bytes and compared with the loops written out here;
 * the script puts each kernel's header (--emit h) on the include path. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* the entry points, from their headers (tine compile --emit h) */
#include "block_max6x2.h"
#include "block_sad8x8.h"
#include "block_ssd8x8.h"
#include "block_sum4x4.h"

static uint32_t seed = 12345;
static uint8_t rnd(void) { return (uint8_t)((seed = seed * 1103515245u + 12345u) >> 23); }

static tine_buffer_t buf(void *p, int w, int h) { return (tine_buffer_t){p, 2, {0, 0}, {w, h}, {1, w}}; }

int main(void) {
    int sizes[][2] = {{1, 1}, {13, 5}, {40, 3}, {67, 9}}, bad = 0, runs = 0;
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int W = sizes[s][0], H = sizes[s][1];
        uint8_t *a = malloc((size_t)64 * W * H), *b = malloc((size_t)64 * W * H);
        uint32_t *o32 = malloc(sizeof *o32 * (size_t)W * H);
        uint16_t *o16 = (uint16_t *)o32;
        uint8_t *o8 = (uint8_t *)o32;
        for (int i = 0; i < 64 * W * H; i++) a[i] = rnd(), b[i] = rnd();
        if (s == 0) a[0] = 255, b[0] = 0;
        tine_buffer_t a8 = buf(a, 8 * W, 8 * H), b8 = buf(b, 8 * W, 8 * H), a4 = buf(a, 4 * W, 4 * H), a6 = buf(a, 6 * W, 2 * H);
        tine_buffer_t out = buf(o32, W, H);
        int rc[4] = {block_sad8x8(&a8, &b8, &out), 0, 0, 0};
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                unsigned t = 0;
                for (int j = 0; j < 8; j++)
                    for (int i = 0; i < 8; i++) t += (unsigned)abs(a[(8 * y + j) * 8 * W + 8 * x + i] - b[(8 * y + j) * 8 * W + 8 * x + i]);
                bad += rc[0] || o16[y * W + x] != (uint16_t)t;
            }
        rc[1] = block_sum4x4(&a4, &out);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                unsigned t = 0;
                for (int j = 0; j < 4; j++)
                    for (int i = 0; i < 4; i++) t += a[(4 * y + j) * 4 * W + 4 * x + i];
                bad += rc[1] || o16[y * W + x] != (uint16_t)t;
            }
        rc[2] = block_ssd8x8(&a8, &b8, &out);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                uint32_t t = 0;
                for (int j = 0; j < 8; j++)
                    for (int i = 0; i < 8; i++) {
                        int d = abs(a[(8 * y + j) * 8 * W + 8 * x + i] - b[(8 * y + j) * 8 * W + 8 * x + i]);
                        t += (uint32_t)(d * d);
                    }
                bad += rc[2] || o32[y * W + x] != t;
            }
        rc[3] = block_max6x2(&a6, &out);
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                int mx = 0, mn = 255;
                for (int j = 0; j < 2; j++)
                    for (int i = 0; i < 6; i++) {
                        int v = a[(2 * y + j) * 6 * W + 6 * x + i];
                        mx = v > mx ? v : mx;
                        mn = v < mn ? v : mn;
                    }
                bad += rc[3] || o8[y * W + x] != (uint8_t)(mx - mn);
            }
        runs += 4;
        if (bad) printf("%dx%d: %d wrong elements (codes %d %d %d %d)\n", W, H, bad, rc[0], rc[1], rc[2], rc[3]);
        free(a), free(b), free(o32);
    }
    printf("block_reduce_main: %d runs, %s\n", runs, bad ? "WRONG" : "bit-exact");
    return bad != 0;
}
