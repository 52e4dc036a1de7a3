/* test_refs.c — every benchmark kernel against its independent scalar C reference.
 *
 * The kernels (the .tine files of bench/kernels) are compiled by tine through both selections (LLVM
 * alone, and tine's) for the host and run on random images and on images of edge values
 * (all 0, all max, a 0/max checkerboard, stripes); every output element must equal the
 * plain C reference in bench/ref/, written from BENCHMARKS.md alone. Sizes are not
 * multiples of any vector width, and one is narrower than a vector.
 */
#include "internal.h"

#include "../bench/ref/refs.h"

static long passed, failed;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (c) passed++;                                                                           \
        else {                                                                                     \
            failed++;                                                                              \
            if (failed < 30) {                                                                     \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc((size_t)n + 1);
    if (p && fread(p, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (p) p[n] = 0;
    fclose(f);
    return p;
}

typedef enum { RANDOM, ZERO, MAX, CHECKER, STRIPES } pattern;
static const char *const PATTERNS[] = {"random", "zero", "max", "checker", "stripes"};

static uint64_t pick(pattern p, int x, int y, int bits, uint64_t *s) {
    uint64_t max = bits == 8 ? 0xff : 0xffff;
    switch (p) {
    case ZERO: return 0;
    case MAX: return max;
    case CHECKER: return ((x ^ y) & 1) ? max : 0;
    case STRIPES: return (x % 3 == 0) ? max : (y & 1) ? 1 : max - 1;
    default: return tine_rand64(s) & max;
    }
}

typedef struct {
    const char *name;
    int margin;  /* 0: edge() kernel, the input is the output's size */
    int bits;    /* element bits of input and output */
    int mask;    /* conv3x3a16: a second input, the 3x3 mask */
} kernel_case;

static const kernel_case CASES[] = {
    {"gaussian3x3", 1, 8, 0}, {"gaussian5x5", 0, 8, 0}, {"gaussian7x7", 3, 8, 0},
    {"conv3x3a16", 0, 8, 1},  {"conv3x3a32", 0, 8, 0},  {"dilate3x3", 0, 8, 0},
    {"median3x3", 0, 8, 0},   {"sobel3x3", 0, 8, 0},    {"blur3x3", 2, 16, 0},
};

static void test_kernel(const kernel_case *kc) {
    char path[256];
    snprintf(path, sizeof path, "../bench/kernels/%s.tine", kc->name);
    char *text = slurp(path);
    CHECK(text != NULL, "cannot read %s", path);
    if (!text) return;
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = tine_kernel_parse(ctx, text, path);
    CHECK(k != NULL, "%s: %s", kc->name, tine_error(ctx));
    free(text);
    if (!k) {
        tine_ctx_free(ctx);
        return;
    }
    tine_compiled_t *c[2] = {tine_kernel_compile(k, "host", TINE_SELECT_LLVM), tine_kernel_compile(k, "host", TINE_SELECT_TINE)};
    CHECK(c[0] && c[1], "%s: compile: %s", kc->name, tine_error(ctx));
    static const int sizes[][2] = {{67, 45}, {5, 4}, {130, 3}};
    int8_t mask[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    uint64_t seed = 7;
    int bytes = kc->bits / 8;
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes && c[0] && c[1]; si++) {
        int w = sizes[si][0], h = sizes[si][1], m = kc->margin;
        int iw = w + 2 * m, ih = h + 2 * m;
        for (int pi = 0; pi < 5; pi++) {
            void *in = calloc((size_t)iw * (size_t)ih, (size_t)bytes);
            void *want = calloc((size_t)w * (size_t)h, (size_t)bytes), *got = calloc((size_t)w * (size_t)h, (size_t)bytes);
            if (!in || !want || !got) abort();
            for (int y = 0; y < ih; y++)
                for (int x = 0; x < iw; x++) {
                    uint64_t v = pick((pattern)pi, x, y, kc->bits, &seed);
                    memcpy((char *)in + ((size_t)y * (size_t)iw + (size_t)x) * (size_t)bytes, &v, (size_t)bytes);
                }
            if (pi == RANDOM && kc->mask)
                for (int i = 0; i < 9; i++) mask[i] = (int8_t)(tine_rand64(&seed) & 0xff);
            /* the reference sees (0, 0) at the first output pixel */
            CHECK(tine_ref_run(kc->name, (char *)in + ((size_t)m * (size_t)iw + (size_t)m) * (size_t)bytes, iw, mask,
                               want, w, w, h) == 0, "no reference for %s", kc->name);
            tine_buffer_t bin = {.data = in, .dims = 2, .min = {-m, -m}, .extent = {iw, ih}, .stride = {1, iw}};
            tine_buffer_t bmask = {.data = mask, .dims = 2, .min = {0, 0}, .extent = {3, 3}, .stride = {1, 3}};
            tine_buffer_t bout = {.data = got, .dims = 2, .min = {0, 0}, .extent = {w, h}, .stride = {1, w}};
            tine_buffer_t *inputs[2] = {&bin, &bmask};
            for (int s = 0; s < 2; s++) {
                memset(got, 0xa5, (size_t)w * (size_t)h * (size_t)bytes);
                int rc = tine_compiled_run(c[s], inputs, NULL, &bout);
                CHECK(rc == 0, "%s: run: %s", kc->name, tine_error(ctx));
                size_t bad = (size_t)-1;
                for (size_t i = 0; i < (size_t)w * (size_t)h && bad == (size_t)-1; i++)
                    if (memcmp((char *)got + i * (size_t)bytes, (char *)want + i * (size_t)bytes, (size_t)bytes)) bad = i;
                CHECK(bad == (size_t)-1, "%s (%s, %dx%d, %s): pixel (%zu, %zu) differs from the reference",
                      kc->name, s ? "tine" : "LLVM alone", w, h, PATTERNS[pi], bad % (size_t)w, bad / (size_t)w);
            }
            free(in);
            free(want);
            free(got);
        }
    }
    tine_compiled_free(c[0]);
    tine_compiled_free(c[1]);
    tine_kernel_free(k);
    tine_ctx_free(ctx);
}

int main(void) {
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) test_kernel(&CASES[i]);
    printf("test_refs: %ld checks passed, %ld failed\n", passed, failed);
    return failed != 0;
}
