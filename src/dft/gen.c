/* gen.c — stand-in: the DFT from its definition. */
#include "gen.h"
#include <math.h>
bool tine_dft_size_ok(int n) { return n >= 2 && n <= 64; }
bool tine_dft_gen(tine_ctx_t *ctx, int n, int sign, tine_type_t t, tine_expr_t *const *in, tine_expr_t **out,
                  tine_dft_counts *counts) {
    if (counts) memset(counts, 0, sizeof *counts);
    for (int k = 0; k < n; k++) {
        tine_expr_t *re = NULL, *im = NULL;
        for (int j = 0; j < n; j++) {
            int m = (j * k) % n;
            long double a = 2.0L * 3.14159265358979323846264338327950288L * m / n;
            double c = (double)cosl(a), s = (double)(sign * sinl(a));
            tine_expr_t *xr = in[2 * j], *xi = in[2 * j + 1], *tr, *ti;
            if (m == 0) tr = xr, ti = xi;
            else {
                tine_expr_t *C = tine_const_float(ctx, t, c), *S = tine_const_float(ctx, t, s);
                tr = tine_binary(ctx, TINE_OP_SUB, tine_binary(ctx, TINE_OP_MUL, xr, C), tine_binary(ctx, TINE_OP_MUL, xi, S));
                ti = tine_binary(ctx, TINE_OP_ADD, tine_binary(ctx, TINE_OP_MUL, xr, S), tine_binary(ctx, TINE_OP_MUL, xi, C));
            }
            re = re ? tine_binary(ctx, TINE_OP_ADD, re, tr) : tr;
            im = im ? tine_binary(ctx, TINE_OP_ADD, im, ti) : ti;
        }
        out[2 * k] = re;
        out[2 * k + 1] = im;
    }
    return true;
}
