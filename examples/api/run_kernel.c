/* run_kernel.c — libtine's API from a C program: a kernel file parsed, compiled in memory
 * (JIT) for this machine, and run on an image, every output element checked against the
 * scalar C of reference.h. Built against an installed tine with pkg-config:
 *
 *   cc run_kernel.c $(pkg-config --cflags --libs tine) -o run_kernel
 *   ./run_kernel ../blur3x3.tine
 *
 * (or by examples/CMakeLists.txt against tine::tine_static). Exit status 0 when all agree. */
#include <stdio.h>
#include <stdlib.h>

#include <tine.h>

#include "../reference.h"

/* the kernel's text, NUL-terminated (kernels are small: a fixed limit keeps this short) */
static char *read_file(const char *path) {
    enum { LIMIT = 1 << 20 };
    FILE *f = fopen(path, "rb");
    char *text = f ? malloc(LIMIT) : NULL;
    size_t n = text ? fread(text, 1, LIMIT - 1, f) : 0;
    if (f) fclose(f);
    if (text) text[n] = 0;
    return text;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: run_kernel blur3x3.tine\n");
        return 2;
    }
    char *text = read_file(argv[1]);
    if (!text) {
        fprintf(stderr, "run_kernel: cannot read %s\n", argv[1]);
        return 1;
    }
    tine_ctx_t *ctx = tine_ctx_new();
    tine_kernel_t *k = tine_kernel_parse(ctx, text, argv[1]);
    tine_compiled_t *c = k ? tine_kernel_compile(k, "host", TINE_SELECT_TINE) : NULL;
    if (!c) {
        fprintf(stderr, "%s\n", tine_error(ctx));
        return 1;
    }

    enum { W = 77, H = 33 };
    uint8_t in[W * H], out[W * H];
    uint32_t seed = 3;
    for (int i = 0; i < W * H; i++) in[i] = (uint8_t)example_rand(&seed);
    tine_buffer_t bin = {in, 2, {0, 0}, {W, H}, {1, W}}, bout = {out, 2, {0, 0}, {W, H}, {1, W}};
    tine_buffer_t *inputs[] = {&bin};
    int rc = tine_compiled_run(c, inputs, NULL, &bout), bad = 0;
    if (rc != 0) fprintf(stderr, "run_kernel: the run failed: %s\n", tine_error(ctx));
    for (int y = 0; y < H && rc == 0; y++)
        for (int x = 0; x < W; x++) bad += out[y * W + x] != ref_blur3x3(in, W, H, W, x, y);
    printf("run_kernel: %s compiled through libtine's API, %dx%d, %s\n", argv[1], W, H,
           rc ? "not run" : bad ? "WRONG" : "every element as the reference");
    tine_compiled_free(c);
    tine_kernel_free(k);
    tine_ctx_free(ctx);
    free(text);
    return rc != 0 || bad != 0;
}
